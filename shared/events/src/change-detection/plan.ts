import { canonicalHash } from "./canonical-hash.ts";
import type { ChangeRecord } from "./change-source.ts";

export type Change = "created" | "updated" | "deleted";

/**
 * A record reduced to what is compared: its hash (null: not live), its recheck date and the
 * source's digest of it (null: none).
 */
export type Observation = {
  id: string;
  hash: Buffer | null;
  recheckOn: string | null;
  digest: Buffer | null;
};

export type StateRow = {
  entityId: string;
  hash: Buffer;
  recheckOn: string | null;
  deleted: boolean;
  /** Stored only together with the hash and recheck date read with it; null otherwise. */
  digest: Buffer | null;
};

export type Plan = {
  writes: StateRow[];
  events: { id: string; change: Change }[];
};

/** Hashes a page; a record listed twice counts once, as its last occurrence. */
export function observe(records: ChangeRecord[]): Observation[] {
  const byId = new Map<string, Observation>();
  for (const r of records) {
    byId.set(r.id, {
      id: r.id,
      hash: r.canonical === null ? null : canonicalHash(r.canonical),
      recheckOn: r.recheckOn ?? null,
      digest: r.digest ?? null,
    });
  }
  return [...byId.values()];
}

/**
 * Compares what the source shows with what was last emitted. An event is planned only when the
 * canonical form changed (so a write to a field outside the contract is silent) and a delete is
 * reported once. In baseline mode `created` is recorded without an event. Every write stores the
 * digest read with the record (or none), so a stored digest always names the source record its
 * hash and recheck date came from; an unchanged record read with another digest is written to
 * store it, so the next sweep by digest need not read it again.
 */
export function planChanges(
  observed: Observation[],
  state: ReadonlyMap<string, StateRow>,
  baseline: boolean,
): Plan {
  const plan: Plan = { writes: [], events: [] };
  for (const o of observed) {
    const change = classify(o, state.get(o.id));
    const last = state.get(o.id);
    if (change === "deleted" && last) {
      plan.writes.push({ ...last, recheckOn: null, deleted: true, digest: null });
    } else if (change !== null && o.hash) {
      plan.writes.push({
        entityId: o.id,
        hash: o.hash,
        recheckOn: o.recheckOn,
        deleted: false,
        digest: o.digest,
      });
    } else if (o.hash && last && (last.recheckOn !== o.recheckOn || newDigest(o, last))) {
      // Same contract, new calendar schedule or source digest: remember it, nothing to report.
      plan.writes.push({ ...last, recheckOn: o.recheckOn, digest: o.digest });
    }
    if (change !== null && !(baseline && change === "created"))
      plan.events.push({ id: o.id, change });
  }
  return plan;
}

function newDigest(o: Observation, last: StateRow): boolean {
  return o.digest !== null && (last.digest === null || !last.digest.equals(o.digest));
}

function classify(o: Observation, last: StateRow | undefined): Change | null {
  if (o.hash === null) return last && !last.deleted ? "deleted" : null;
  // A record that comes back after its delete was reported is new again for subscribers.
  if (!last || last.deleted) return "created";
  return last.hash.equals(o.hash) ? null : "updated";
}
