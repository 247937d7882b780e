import type { ChangeStamp } from "./change-source.ts";
import type { DetectionPass, PassDeps } from "./detection-pass.ts";
import { earlierLocal, laterLocal, normalizeLocal, shiftLocal } from "./local-time.ts";

/**
 * Versions (record id, modification time) a quick pass has already evaluated, in this process:
 * evaluating one again would find the state unchanged, so quick passes skip them. Only a cost
 * saving; a new leader starts empty and evaluates its window once.
 */
export class SeenVersions {
  readonly #byId = new Map<string, string>();

  has(stamp: ChangeStamp): boolean {
    return this.#byId.get(stamp.id) === stamp.modifiedLocal;
  }

  remember(stamp: ChangeStamp): void {
    this.#byId.set(stamp.id, stamp.modifiedLocal);
  }

  /** Forgets versions older than `local`: no quick window reaches them any more. */
  forgetBefore(local: string): void {
    for (const [id, modified] of this.#byId) if (modified < local) this.#byId.delete(id);
  }

  get size(): number {
    return this.#byId.size;
  }
}

export type QuickOptions = {
  /** How far before the cursor a quick pass reads. */
  windowMs: number;
  /**
   * Versions stamped this close to the pass's local time are read again by every quick pass:
   * a second write within the same second keeps the stamp, and writers' clocks differ a little.
   */
  settleMs: number;
};

/**
 * The frequent, cheap pass between the overlap passes: reads the stamps of what changed since the
 * cursor (minus a short window), then the full records only for versions it has not evaluated
 * yet, and moves the cursor as the incremental pass does. No calendar recheck: the overlap pass
 * keeps that, and catches what falls outside the short window (a transaction committing late, a
 * second write in a second already remembered).
 */
export async function quickPass(
  pass: DetectionPass,
  deps: PassDeps,
  cursor: string,
  seen: SeenVersions,
  o: QuickOptions,
): Promise<void> {
  const from = shiftLocal(cursor, -o.windowMs);
  const settledBefore = shiftLocal(pass.localNow, -o.settleMs);
  let newest = cursor;
  const evaluated = (page: ChangeStamp[], fresh: ChangeStamp[]) => {
    for (const s of page) newest = laterLocal(newest, s.modifiedLocal);
    for (const s of fresh) if (s.modifiedLocal < settledBefore) seen.remember(s);
  };
  const { source } = deps;
  if (source.stampsSince) {
    for await (const page of source.stampsSince({ modifiedAfterLocal: from }, pass.ctx)) {
      pass.ctx.signal.throwIfAborted();
      const stamps = page.map((s) => ({
        id: s.id,
        modifiedLocal: normalizeLocal(s.modifiedLocal),
      }));
      const fresh = stamps.filter((s) => !seen.has(s));
      const ids = [...new Set(fresh.map((s) => s.id))];
      for (let i = 0; i < ids.length; i += deps.batchSize)
        await pass.applyByIds(ids.slice(i, i + deps.batchSize));
      evaluated(stamps, fresh);
    }
  } else {
    for await (const page of source.changedSince({ modifiedAfterLocal: from }, pass.ctx)) {
      pass.ctx.signal.throwIfAborted();
      const stamped = page.map((r) => ({
        record: r,
        stamp: r.modifiedLocal
          ? { id: r.id, modifiedLocal: normalizeLocal(r.modifiedLocal) }
          : null,
      }));
      const fresh = stamped.filter((x) => x.stamp === null || !seen.has(x.stamp));
      await pass.apply(fresh.map((x) => x.record));
      const stampsOf = (xs: typeof stamped) => xs.flatMap((x) => (x.stamp ? [x.stamp] : []));
      evaluated(stampsOf(stamped), stampsOf(fresh));
    }
  }
  seen.forgetBefore(from);
  const next = earlierLocal(newest, pass.localNow);
  if (next !== cursor) await deps.store.updateCursor({ modifiedAfterLocal: next }, pass.startedAt);
}
