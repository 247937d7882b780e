import { instantOfLocal, localOfInstant, offsetMinutes } from "@svc/time";
import type { ChangeRecord } from "./change-source.ts";

/**
 * `occurred_at` of a detected change: the source's modification stamp when it can be trusted to
 * describe this change, otherwise the detection time. Why and when: docs/decisions/event-occurred-at.md.
 */

const HOUR_MS = 3_600_000;

/**
 * The instant a source wall-clock stamp denotes, or null when it does not denote exactly one: a
 * time in the repeated autumn hour (the row does not say which), in the spring gap, or malformed.
 */
export function stampInstant(local: string, zone: string): number | null {
  const wall = local.replace("T", " ").slice(0, 19);
  if (!/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(wall)) return null;
  const instant = instantOfLocal(wall, zone);
  // A time in the gap comes back moved forward: its wall clock differs.
  if (localOfInstant(instant, zone) !== wall) return null;
  // instantOfLocal takes the earlier of two readings; a later one exists when the offset drops.
  const drop = offsetMinutes(instant, zone) - offsetMinutes(instant + 3 * HOUR_MS, zone);
  if (drop > 0 && localOfInstant(instant + drop * 60_000, zone) === wall) return null;
  return instant;
}

/**
 * The trusted stamp per record id (last occurrence wins, as in `observe`). Only records an
 * incremental pass read because their stamp moved carry a stamp worth trusting.
 */
export function stampsOf(records: ChangeRecord[], zone: string): Map<string, number | null> {
  const stamps = new Map<string, number | null>();
  for (const r of records)
    stamps.set(r.id, r.modifiedLocal ? stampInstant(r.modifiedLocal, zone) : null);
  return stamps;
}

/**
 * The stamp when it lies between the previous time the detector recorded this record (`since`;
 * null for a record it never saw) and the detection time; otherwise the detection time. A stamp
 * before `since` predates what was already seen, so it does not date this change (a joined row, a
 * late commit, a clock set back); one after `detectedAt` is from a writer whose clock runs ahead.
 */
export function occurredAt(
  stamp: number | null | undefined,
  since: Date | null,
  detectedAt: Date,
): Date {
  if (stamp === null || stamp === undefined) return detectedAt;
  if (stamp > detectedAt.getTime()) return detectedAt;
  if (since !== null && stamp < since.getTime()) return detectedAt;
  return new Date(stamp);
}
