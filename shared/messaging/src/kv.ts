import { jetstreamManager } from "@nats-io/jetstream";
import { Kvm, KvWatchInclude } from "@nats-io/kv";
import type { KV, KvWatchEntry } from "@nats-io/kv";
import { nanos } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/transport-node";
import { ensureStream } from "./ensure.ts";
import type { Logger } from "@svc/logging";
import { SINGLE_SERVER, topologyFields, type JetStreamTopology } from "./settings.ts";

export type OpenKvOptions = {
  /** Values kept per key, 1..64. */
  history: number;
  /** Entries older than this are removed by the server; unset keeps them forever. */
  ttlMs?: number;
  /** Replicas and placement of the bucket's stream; one replica by default. */
  topology?: JetStreamTopology;
};

/**
 * Opens the bucket, creating it if needed. The client leaves an existing bucket's settings as
 * they are, so history, ttl and replicas are reconciled on its stream afterwards: changing them in
 * configuration takes effect at the next start.
 */
export async function openKv(
  nc: NatsConnection,
  bucket: string,
  options: OpenKvOptions,
): Promise<KV> {
  const topology = options.topology ?? SINGLE_SERVER;
  const kv = await new Kvm(nc).create(bucket, {
    history: options.history,
    replicas: topology.replicas,
    ...(topology.placement && { placement: topology.placement }),
    ...(options.ttlMs !== undefined && { ttl: options.ttlMs }),
  });
  await ensureStream(await jetstreamManager(nc), {
    name: `KV_${bucket}`,
    ...topologyFields(topology),
    max_msgs_per_subject: options.history,
    max_age: nanos(options.ttlMs ?? 0),
    // The server's default window is 2 min but may not exceed max_age, as it chose on creation.
    duplicate_window: nanos(Math.min(120_000, options.ttlMs ?? 120_000)),
  });
  return kv;
}

export type KvChange<T> = {
  key: string;
  /** null when the key was deleted or purged. */
  value: T | null;
  operation: "PUT" | "DEL" | "PURGE";
  revision: number;
  /** false while the values present at the start are delivered, true once `ready`. */
  isUpdate: boolean;
};

export type WatchKvOptions<T> = {
  /** A key or subject-style pattern ("client.*"); default every key. */
  key?: string;
  onChange: (change: KvChange<T>) => void;
  logger: Logger;
  /** Validates each decoded value; an entry that fails is logged and skipped. */
  parse?: (data: unknown) => T;
};

export type KvWatcher = {
  /** Resolves once every value present at the start has been passed to onChange. */
  ready: Promise<void>;
  stop(): Promise<void>;
};

/**
 * Passes the current value of every matching key to onChange, then every change as it happens.
 * Services wait for `ready` before trusting what they built from it (e.g. a revocation list).
 */
export async function watchKv<T>(kv: KV, options: WatchKvOptions<T>): Promise<KvWatcher> {
  const key = options.key ?? ">";
  const entries = await kv.watch({ key, include: KvWatchInclude.LastValue });
  // Not entry.isUpdate: the 3.4 client already marks the last initial value as an update.
  let isReady = false;
  let markReady = () => {};
  const ready = new Promise<void>((resolve) => (markReady = () => ((isReady = true), resolve())));
  const done = (async () => {
    for await (const entry of entries) {
      deliver(entry, !isReady, options);
      // The entry's delta is the number still pending behind it: 0 means caught up.
      if (entry.delta === 0) markReady();
    }
  })();
  // Checked after the watch exists, so a key that appears in between is delivered by the watch.
  if (!(await hasAnyKey(kv, key))) markReady();
  return {
    ready,
    async stop() {
      entries.stop();
      await done;
      markReady();
    },
  };
}

function deliver<T>(entry: KvWatchEntry, initial: boolean, options: WatchKvOptions<T>): void {
  const context = { bucket: entry.bucket, key: entry.key, revision: entry.revision };
  let value: T | null = null;
  try {
    if (entry.operation === "PUT") {
      const decoded: unknown = entry.json();
      value = options.parse ? options.parse(decoded) : (decoded as T);
    }
  } catch (err) {
    options.logger.error({ ...context, err }, "kv value rejected; skipped");
    return;
  }
  try {
    options.onChange({
      key: entry.key,
      value,
      operation: entry.operation,
      revision: entry.revision,
      isUpdate: !initial,
    });
  } catch (err) {
    options.logger.error({ ...context, err }, "kv watch handler failed");
  }
}

async function hasAnyKey(kv: KV, key: string): Promise<boolean> {
  const keys = await kv.keys(key);
  for await (const _ of keys) {
    keys.stop();
    return true;
  }
  return false;
}
