import type pg from "pg";
import { ensureStream, eventsStreamConfig, type JetStreamTopology } from "@svc/messaging";
import type { Logger } from "@svc/logging";
import type { JetStreamClient, JetStreamManager, Names } from "@svc/messaging";
import { backoffMs, bounded, sleep } from "@svc/time";
import { pruneOutbox } from "./outbox-prune.ts";
import { checkedIdentifier } from "./pg-transaction.ts";
import { relayBatch } from "./relay-batch.ts";
import type { BatchOptions } from "./relay-batch.ts";
import type { BatchObservableResult } from "@opentelemetry/api";
import type { Meter } from "./telemetry.ts";

export type RelayOptions = {
  pool: pg.Pool;
  /** The emitting service's own schema, holding its `outbox` table. */
  schema: string;
  js: JetStreamClient;
  jsm: JetStreamManager;
  names: Names;
  /** Replicas and placement of the events stream when the relay creates it; one by default. */
  topology?: JetStreamTopology;
  logger: Logger;
  /** Rows claimed, published and marked per transaction; default 500. */
  batchSize?: number;
  /**
   * Batches in flight at once in this process (each its own transaction and connection), so one
   * batch's database work overlaps another's publishing; default 2.
   */
  concurrency?: number;
  /**
   * Pause between polls when the outbox is drained; default 200 ms (the added latency of rows
   * written by another process; wake() ends it for rows written by this one).
   */
  pollMs?: number;
  /** How long sent rows are kept for inspection and re-drive; default 7 days. */
  retentionMs?: number;
  /** How often old sent rows are pruned; default 60 s. */
  pruneEveryMs?: number;
  /** Rows deleted per prune statement; default 1000. */
  pruneBatchSize?: number;
  /** Wait for one PubAck; default 5 s. */
  publishTimeoutMs?: number;
  /** Ceiling of the retry backoff while NATS or PostgreSQL is unavailable; default 10 s. */
  maxBackoffMs?: number;
  /** false: no background loop, only runOnce()/prune() (tests, one-shot tools); default true. */
  autoStart?: boolean;
  /** Test seam: see BatchOptions.afterPublish. */
  afterPublish?: BatchOptions["afterPublish"];
  /**
   * The process's Meter: outbox backlog and the age of its oldest pending row, read at each
   * collection.
   */
  meter?: Meter;
};

export type RelayStats = {
  published: number;
  duplicates: number;
  failures: number;
  pruned: number;
};

export type Relay = {
  /** Stops the loop after the batch in flight (its publishes are bounded by publishTimeoutMs). */
  stop(): Promise<void>;
  /** Publishes every pending row now; resolves with the number marked sent, rejects on failure. */
  runOnce(): Promise<number>;
  /**
   * Ends the pause between polls now (or skips the next one): this process just committed outbox
   * rows. Does nothing to a backoff after a failure.
   */
  wake(): void;
  /** Deletes sent rows older than the retention now; resolves with the number deleted. */
  prune(): Promise<number>;
  stats(): RelayStats;
};

const DEFAULTS = {
  batchSize: 500,
  concurrency: 2,
  pollMs: 200,
  retentionMs: 7 * 86_400_000,
  pruneEveryMs: 60_000,
  pruneBatchSize: 1_000,
  publishTimeoutMs: 5_000,
  maxBackoffMs: 10_000,
  autoStart: true,
};

type Settings = typeof DEFAULTS & RelayOptions;

/**
 * The outbox relay of one service schema: pending outbox rows → the events stream,
 * `Nats-Msg-Id` = event_uuid. Any number of replicas may run it. Failures (NATS or PostgreSQL
 * unreachable) leave rows pending and are retried with backoff; the caller owns the pool and the
 * NATS connection, which reconnect on their own.
 */
export function startRelay(options: RelayOptions): Relay {
  const relay = new OutboxRelay({
    ...DEFAULTS,
    ...options,
    schema: checkedIdentifier(options.schema),
  });
  const unobserve = options.meter
    ? observeBacklog(options.meter, options.pool, relay.settings.schema)
    : () => {};
  const done = relay.settings.autoStart ? relay.loop() : Promise.resolve();
  return {
    runOnce: () => relay.runOnce(),
    wake: () => relay.wake(),
    prune: () => relay.prune(),
    stats: () => ({ ...relay.stats }),
    stop: async () => {
      unobserve();
      relay.stopping.abort();
      await done;
    },
  };
}

/**
 * `outbox.pending` (rows not yet published) and `outbox.oldest_pending.age` (seconds since the
 * oldest of them was written; 0 when none), per schema. Read from the table at each collection (the
 * partial index over pending rows keeps it cheap), so every replica reports the shared backlog.
 */
function observeBacklog(meter: Meter, pool: pg.Pool, schema: string): () => void {
  const pending = meter.createObservableGauge("outbox.pending", {
    unit: "{row}",
    description: "Outbox rows not yet published to the events stream",
  });
  const age = meter.createObservableGauge("outbox.oldest_pending.age", {
    unit: "s",
    description: "Age of the oldest outbox row not yet published",
  });
  const attributes = { "outbox.schema": schema };
  const sql = `SELECT count(*)::int AS n, COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float8 AS age FROM "${schema}".outbox WHERE sent_at IS NULL`;
  const callback = async (result: BatchObservableResult) => {
    const answer = await bounded(pool.query<{ n: number; age: number }>(sql), 2_000);
    const row = answer?.rows[0];
    if (!row) return;
    result.observe(pending, row.n, attributes);
    result.observe(age, Math.max(0, row.age), attributes);
  };
  meter.addBatchObservableCallback(callback, [pending, age]);
  return () => meter.removeBatchObservableCallback(callback, [pending, age]);
}

class OutboxRelay {
  readonly settings: Settings;
  readonly stopping = new AbortController();
  readonly stats: RelayStats = { published: 0, duplicates: 0, failures: 0, pruned: 0 };
  #streamReady = false;
  #prunedAt = 0;
  readonly #reported = new Set<string>();
  #woken = false;
  #wakeUp: (() => void) | null = null;

  constructor(settings: Settings) {
    this.settings = settings;
  }

  async runOnce(): Promise<number> {
    // Created idempotently by whichever replica comes first; checked again after any failure,
    // in case the stream was deleted or the server lost its store.
    if (!this.#streamReady)
      await ensureStream(
        this.settings.jsm,
        eventsStreamConfig(this.settings.names, this.settings.topology),
      );
    this.#streamReady = true;
    const drains = await Promise.allSettled(
      Array.from({ length: this.settings.concurrency }, () => this.#drain()),
    );
    const failed = drains.find((d) => d.status === "rejected");
    if (failed) {
      this.#streamReady = false;
      throw failed.reason;
    }
    return drains.reduce((sum, d) => sum + (d.status === "fulfilled" ? d.value : 0), 0);
  }

  /** Claims batches until one comes back short (the outbox is drained) or stop() was called. */
  async #drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const outcome = await relayBatch(this.settings);
      total += outcome.sent;
      this.stats.published += outcome.sent;
      this.stats.duplicates += outcome.duplicates;
      this.#reportUnpublishable(outcome.unpublishable);
      if (outcome.error !== undefined) throw outcome.error;
      if (outcome.claimed < this.settings.batchSize || this.stopping.signal.aborted) return total;
    }
  }

  /** Once per row and process: the row is claimed again on every poll. */
  #reportUnpublishable(eventUuids: string[]): void {
    const fresh = eventUuids.filter((id) => !this.#reported.has(id));
    for (const id of fresh) this.#reported.add(id);
    if (fresh.length > 0) {
      this.settings.logger.error(
        { schema: this.settings.schema, eventUuids: fresh },
        "outbox rows with an invalid event type cannot be published; fix or delete them",
      );
    }
  }

  async prune(): Promise<number> {
    const { pool, schema, retentionMs, pruneBatchSize } = this.settings;
    this.#prunedAt = Date.now();
    const deleted = await pruneOutbox(pool, schema, retentionMs, pruneBatchSize);
    this.stats.pruned += deleted;
    return deleted;
  }

  wake(): void {
    if (this.#wakeUp) this.#wakeUp();
    else this.#woken = true;
  }

  /** The pause between polls, ended early by wake() or stop(). */
  async #pause(ms: number): Promise<void> {
    if (!this.#woken) {
      const wake = new AbortController();
      this.#wakeUp = () => wake.abort();
      await sleep(ms, AbortSignal.any([this.stopping.signal, wake.signal]));
      this.#wakeUp = null;
    }
    this.#woken = false;
  }

  async loop(): Promise<void> {
    const { pollMs, pruneEveryMs, maxBackoffMs, logger, schema } = this.settings;
    let failures = 0;
    while (!this.stopping.signal.aborted) {
      try {
        await this.runOnce();
        if (Date.now() - this.#prunedAt >= pruneEveryMs) await this.prune();
        failures = 0;
        await this.#pause(pollMs);
      } catch (err) {
        failures += 1;
        this.stats.failures += 1;
        const delayMs = backoffMs(failures, pollMs, maxBackoffMs);
        logger.warn(
          { err, schema, failures, delayMs },
          "outbox relay failed; rows stay pending, retrying",
        );
        await sleep(delayMs, this.stopping.signal);
      }
    }
  }
}
