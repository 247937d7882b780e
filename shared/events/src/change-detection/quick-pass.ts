import type { ChangeStamp } from "./change-source.ts";
import type { DetectionPass, PassDeps } from "./detection-pass.ts";
import { earlierLocal, laterLocal, normalizeLocal, shiftLocal } from "./local-time.ts";

type Version = { modifiedLocal: string; firstSeenMs: number; settled: boolean };

/**
 * Versions (record id, modification time) quick passes have evaluated, in this process. A version
 * is settled once a pass that started `settleMs` or more after it was first seen has evaluated
 * it: a second write in the same second keeps the stamp, and it lands within a second of the
 * first, whatever clock wrote the stamp. Quick passes skip settled versions. Only a cost saving;
 * a new leader starts empty and evaluates its window once.
 */
export class SeenVersions {
  readonly #byKey = new Map<string, Version>();

  settled(stamp: ChangeStamp): boolean {
    return this.#byKey.get(keyOf(stamp))?.settled ?? false;
  }

  /** Records that a pass started at `passMs` (the detector's clock) evaluated `stamp`. */
  evaluated(stamp: ChangeStamp, passMs: number, settleMs: number): void {
    const key = keyOf(stamp);
    const known = this.#byKey.get(key);
    if (!known)
      this.#byKey.set(key, {
        modifiedLocal: stamp.modifiedLocal,
        firstSeenMs: passMs,
        settled: false,
      });
    else if (passMs - known.firstSeenMs >= settleMs) known.settled = true;
  }

  /** Forgets versions stamped before `local`: no quick window reaches them any more. */
  forgetBefore(local: string): void {
    for (const [key, v] of this.#byKey) if (v.modifiedLocal < local) this.#byKey.delete(key);
  }

  get size(): number {
    return this.#byKey.size;
  }
}

// A record may show several versions at once (a practice's rows in two tables): each is its own.
const keyOf = (s: ChangeStamp) => `${s.id}\u0000${s.modifiedLocal}`;

export type QuickOptions = {
  /**
   * How far before the cursor a quick pass reads: wide enough for a writer whose clock runs
   * behind the one that moves the cursor (UTC against the source's zone, a clock set back).
   */
  windowMs: number;
  /** How long after it is first seen a version is still read again (SeenVersions). */
  settleMs: number;
};

/**
 * The frequent, cheap pass between the overlap passes: reads the stamps of what changed since the
 * cursor minus its window, then the full records only for versions not settled yet, and moves the
 * cursor as the incremental pass does. Any stamp in the window that was not evaluated is a change,
 * whether the writer's clock runs behind, ahead or on time
 * (docs/decisions/change-detection-clocks.md). No calendar recheck: the overlap pass keeps that.
 */
export async function quickPass(
  pass: DetectionPass,
  deps: PassDeps,
  cursor: string,
  seen: SeenVersions,
  o: QuickOptions,
): Promise<void> {
  const from = shiftLocal(cursor, -o.windowMs);
  const passMs = pass.startedAt.getTime();
  let newest = cursor;
  const evaluated = (page: ChangeStamp[], fresh: ChangeStamp[]) => {
    for (const s of page) newest = laterLocal(newest, s.modifiedLocal);
    for (const s of fresh) seen.evaluated(s, passMs, o.settleMs);
  };
  const { source } = deps;
  if (source.stampsSince) {
    for await (const page of source.stampsSince({ modifiedAfterLocal: from }, pass.ctx)) {
      pass.ctx.signal.throwIfAborted();
      const stamps = page.map((s) => ({
        id: s.id,
        modifiedLocal: normalizeLocal(s.modifiedLocal),
      }));
      const fresh = stamps.filter((s) => !seen.settled(s));
      const latest = new Map<string, string>();
      for (const s of fresh)
        latest.set(s.id, laterLocal(latest.get(s.id) ?? s.modifiedLocal, s.modifiedLocal));
      const ids = [...latest.keys()];
      for (let i = 0; i < ids.length; i += deps.batchSize)
        await pass.applyByIds(ids.slice(i, i + deps.batchSize), latest);
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
      const fresh = stamped.filter((x) => x.stamp === null || !seen.settled(x.stamp));
      await pass.apply(fresh.map((x) => x.record));
      const stampsOf = (xs: typeof stamped) => xs.flatMap((x) => (x.stamp ? [x.stamp] : []));
      evaluated(stampsOf(stamped), stampsOf(fresh));
    }
  }
  seen.forgetBefore(from);
  // Capped at the detector's own time: a writer whose clock runs ahead cannot push the cursor past
  // the stamps an on-time writer is still to give, nor past a clock set back.
  const next = earlierLocal(newest, pass.localNow);
  if (next !== cursor) await deps.store.updateCursor({ modifiedAfterLocal: next }, pass.startedAt);
}
