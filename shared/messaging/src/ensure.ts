import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import type {
  ConsumerInfo,
  ConsumerUpdateConfig,
  JetStreamManager,
  StreamInfo,
} from "@nats-io/jetstream";
import type { ConsumerSpec, StreamSpec } from "./stream-configs.ts";

export type EnsureOutcome = "created" | "updated" | "unchanged";

/**
 * Creates the stream, or updates it when it exists with other settings; an identical stream is
 * left alone. Safe to run from every replica at startup: when two race to create, the loser sees
 * the winner's stream on its second pass. Immutable settings (storage, retention) are not
 * changed: the server rejects the update and the error propagates.
 */
export async function ensureStream(
  jsm: JetStreamManager,
  config: StreamSpec,
): Promise<{ outcome: EnsureOutcome; info: StreamInfo }> {
  for (let attempt = 1; ; attempt++) {
    const existing = await jsm.streams
      .info(config.name)
      .catch(orNullIfMissing(JetStreamApiCodes.StreamNotFound));
    try {
      if (!existing) return { outcome: "created", info: await jsm.streams.add(config) };
      if (matches(config, existing.config)) return { outcome: "unchanged", info: existing };
      return { outcome: "updated", info: await jsm.streams.update(config.name, config) };
    } catch (err) {
      if (attempt >= 2) throw err;
    }
  }
}

/**
 * The same for a durable consumer. Only settings a 2.9 server knows may be used: the client
 * refuses `filter_subjects` and `metadata` there, and the raw API would silently drop them.
 */
export async function ensureConsumer(
  jsm: JetStreamManager,
  stream: string,
  config: ConsumerSpec,
): Promise<{ outcome: EnsureOutcome; info: ConsumerInfo }> {
  const name = config.durable_name;
  for (let attempt = 1; ; attempt++) {
    const existing = await jsm.consumers
      .info(stream, name)
      .catch(orNullIfMissing(JetStreamApiCodes.ConsumerNotFound));
    try {
      if (!existing) return { outcome: "created", info: await jsm.consumers.add(stream, config) };
      if (matches(config, existing.config)) return { outcome: "unchanged", info: existing };
      const changes = config as ConsumerUpdateConfig;
      return { outcome: "updated", info: await jsm.consumers.update(stream, name, changes) };
    } catch (err) {
      if (attempt >= 2) throw err;
    }
  }
}

function orNullIfMissing(code: number) {
  return (err: unknown): null => {
    if (err instanceof JetStreamApiError && err.code === code) return null;
    throw err;
  };
}

/**
 * True when every setting the caller asked for already holds. Settings the caller left out are
 * the server's business (it fills in defaults), and the server omits zero values from its JSON,
 * so a missing value equals false, 0, "" or an empty list.
 */
export function matches(desired: object, actual: object): boolean {
  const have = actual as Record<string, unknown>;
  return Object.entries(desired).every(
    ([key, want]) => want === undefined || sameValue(want, have[key]),
  );
}

function sameValue(want: unknown, have: unknown): boolean {
  if (have === undefined || have === null) return isZero(want);
  if (Array.isArray(want)) {
    return (
      Array.isArray(have) &&
      want.length === have.length &&
      want.every((w, i) => sameValue(w, have[i]))
    );
  }
  if (typeof want === "object" && want !== null)
    return typeof have === "object" && matches(want, have);
  return want === have;
}

function isZero(value: unknown): boolean {
  return (
    value === false ||
    value === 0 ||
    value === "" ||
    value === null ||
    (Array.isArray(value) && value.length === 0)
  );
}
