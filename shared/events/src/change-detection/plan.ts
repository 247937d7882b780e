import { canonicalHash } from "./canonical-hash.ts";
import type { ChangeRecord } from "./change-source.ts";

export type Change = "created" | "updated" | "deleted";

/** A record reduced to what is compared: its hash (null: not live) and its recheck date. */
export type Observation = { id: string; hash: Buffer | null; recheckOn: string | null };

export type StateRow = {
  entityId: string;
  hash: Buffer;
  recheckOn: string | null;
  deleted: boolean;
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
    });
  }
  return [...byId.values()];
}

/**
 * Compares what the source shows with what was last emitted. An event is planned only when the
 * canonical form changed (so a write to a field outside the contract is silent) and a delete is
 * reported once. In baseline mode `created` is recorded without an event.
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
      plan.writes.push({ ...last, recheckOn: null, deleted: true });
    } else if (change !== null && o.hash) {
      plan.writes.push({ entityId: o.id, hash: o.hash, recheckOn: o.recheckOn, deleted: false });
    } else if (o.hash && last && last.recheckOn !== o.recheckOn) {
      // Same contract, new calendar schedule: remember it, nothing to report.
      plan.writes.push({ ...last, recheckOn: o.recheckOn });
    }
    if (change !== null && !(baseline && change === "created"))
      plan.events.push({ id: o.id, change });
  }
  return plan;
}

function classify(o: Observation, last: StateRow | undefined): Change | null {
  if (o.hash === null) return last && !last.deleted ? "deleted" : null;
  // A record that comes back after its delete was reported is new again for subscribers.
  if (!last || last.deleted) return "created";
  return last.hash.equals(o.hash) ? null : "updated";
}
