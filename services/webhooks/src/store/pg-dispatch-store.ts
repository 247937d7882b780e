import type pg from "pg";
import { guardPg } from "@svc/db";
import type { TraceContext } from "@svc/messaging";
import type { DeliveryMessage, DeliveryStatus } from "../domain/model.ts";
import type { AttemptContext, AttemptRecord, DispatchStore, NewEvent } from "../domain/ports.ts";
import { microBatcher, type MicroBatcher } from "./micro-batcher.ts";
import { DISPATCH_SQL } from "./dispatch-sql.ts";

type AttemptContextRow = {
  id: string;
  subscription_id: string;
  event_uuid: string;
  event_type: string;
  status: DeliveryStatus;
  round: number;
  round_attempts: number;
  next_attempt_at: Date | null;
  created_at: Date;
  body: string;
  traceparent: string | null;
  tracestate: string | null;
  url: string;
  enabled: boolean;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
};

const BATCH = { maxBatch: 200, maxInFlight: 4 };

/**
 * The dispatcher's hot path in plain SQL on the pg pool (prepared statements, no query builder):
 * every attempt reads its context and writes its record, and under load those reads and writes
 * are grouped (micro-batcher) into one statement and one commit each.
 */
export class PgDispatchStore implements DispatchStore {
  readonly #pool: pg.Pool;
  readonly #loads: MicroBatcher<string, AttemptContext | undefined>;
  readonly #records: MicroBatcher<AttemptRecord, boolean>;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
    this.#loads = microBatcher((ids) => this.#loadMany(ids), BATCH);
    this.#records = microBatcher((records) => this.#recordMany(records), BATCH);
  }

  fanOut(event: NewEvent, now: Date): Promise<DeliveryMessage[]> {
    return guardPg(async () => {
      const values = [
        event.eventUuid,
        event.eventType,
        event.body,
        event.trace?.traceparent ?? null,
        event.trace?.tracestate ?? null,
        now,
      ];
      const { rows } = await this.#pool.query<{
        id: string;
        subscription_id: string;
        round: number;
      }>({ name: "webhooks_fan_out", text: DISPATCH_SQL.fanOut, values });
      return rows.map((r) => ({
        v: 1,
        delivery_uuid: r.id,
        subscription_uuid: r.subscription_id,
        event_uuid: event.eventUuid,
        round: r.round,
      }));
    });
  }

  markQueued(messages: ReadonlyArray<DeliveryMessage>, now: Date): Promise<void> {
    if (messages.length === 0) return Promise.resolve();
    return guardPg(async () => {
      await this.#pool.query({
        name: "webhooks_mark_queued",
        text: DISPATCH_SQL.markQueued,
        values: [messages.map((m) => m.delivery_uuid), messages.map((m) => m.round), now],
      });
    });
  }

  loadForAttempt(deliveryId: string): Promise<AttemptContext | undefined> {
    return guardPg(() => this.#loads.run(deliveryId));
  }

  recordAttempt(record: AttemptRecord): Promise<boolean> {
    return guardPg(() => this.#records.run(record));
  }

  closeAsDisabled(deliveryId: string, round: number, now: Date): Promise<void> {
    return guardPg(async () => {
      await this.#pool.query({
        name: "webhooks_close_disabled",
        text: DISPATCH_SQL.closeAsDisabled,
        values: [deliveryId, round, now],
      });
    });
  }

  findUnqueued(
    olderThan: Date,
    limit: number,
  ): Promise<Array<{ message: DeliveryMessage; trace: TraceContext | undefined }>> {
    return guardPg(async () => {
      const { rows } = await this.#pool.query<{
        id: string;
        subscription_id: string;
        event_uuid: string;
        round: number;
        traceparent: string | null;
        tracestate: string | null;
      }>({
        name: "webhooks_find_unqueued",
        text: DISPATCH_SQL.findUnqueued,
        values: [olderThan, limit],
      });
      return rows.map((r) => ({
        message: {
          v: 1,
          delivery_uuid: r.id,
          subscription_uuid: r.subscription_id,
          event_uuid: r.event_uuid,
          round: r.round,
        },
        trace: traceOf(r.traceparent, r.tracestate),
      }));
    });
  }

  async #loadMany(ids: string[]): Promise<Array<AttemptContext | undefined>> {
    const { rows } = await this.#pool.query<AttemptContextRow>({
      name: "webhooks_load_attempts",
      text: DISPATCH_SQL.loadForAttempts,
      values: [ids],
    });
    const byId = new Map(rows.map((r) => [r.id, toAttemptContext(r)]));
    return ids.map((id) => byId.get(id));
  }

  async #recordMany(records: AttemptRecord[]): Promise<boolean[]> {
    // Two copies of one delivery in the same batch: only the first may record (the other lost the
    // race).
    const first = new Map<string, AttemptRecord>();
    for (const r of records) if (!first.has(r.deliveryId)) first.set(r.deliveryId, r);
    const unique = [...first.values()];
    const column = <K extends keyof AttemptRecord>(key: K) => unique.map((r) => r[key]);
    const values = [
      column("deliveryId"),
      column("round"),
      column("expectedRoundAttempts"),
      column("attemptedAt"),
      column("durationMs"),
      column("statusCode"),
      column("outcome"),
      column("errorClass"),
      column("errorDetail"),
      column("responseSample"),
      column("status"),
      column("failureReason"),
      column("nextAttemptAt"),
    ];
    const { rows } = await this.#pool.query<{ delivery_id: string }>({
      name: "webhooks_record_attempts",
      text: DISPATCH_SQL.recordAttempts,
      values,
    });
    const recorded = new Set(rows.map((r) => r.delivery_id));
    return records.map((r) => first.get(r.deliveryId) === r && recorded.has(r.deliveryId));
  }
}

function traceOf(traceparent: string | null, tracestate: string | null): TraceContext | undefined {
  if (!traceparent) return undefined;
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

function toAttemptContext(row: AttemptContextRow): AttemptContext {
  return {
    deliveryId: row.id,
    subscriptionId: row.subscription_id,
    eventUuid: row.event_uuid,
    eventType: row.event_type,
    status: row.status,
    round: row.round,
    roundAttempts: row.round_attempts,
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
    body: row.body,
    trace: traceOf(row.traceparent, row.tracestate),
    url: row.url,
    enabled: row.enabled,
    secretSealed: row.secret_sealed,
    previousSecretSealed: row.previous_secret_sealed,
    previousSecretExpiresAt: row.previous_secret_expires_at,
  };
}
