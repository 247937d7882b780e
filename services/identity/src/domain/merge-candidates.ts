import type { IdentityStore } from "./ports.ts";

/** A merge the rules refuse; the CLI prints the message. */
export class MergeRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MergeRefusedError";
  }
}

export interface MergeResult {
  mergedCandidateUuid: string;
  /** Where the candidate now points: the survivor of the requested target. */
  survivorCandidateUuid: string;
}

/**
 * Marks `mergedUuid` as merged into the survivor of `intoUuid`. Merging into a merged candidate
 * follows its chain to the survivor, so every pointer targets a candidate that was active at the
 * time and later resolutions land on the survivor (A→B→C resolves to C). Refused: unknown
 * candidates, a candidate that is already merged, and anything that would close a cycle (the
 * target's survivor is the candidate itself). History is not rewritten: applications and cases
 * keep the candidate they were recorded for.
 */
export async function mergeCandidates(
  deps: { store: IdentityStore; now: () => Date },
  mergedUuid: string,
  intoUuid: string,
): Promise<MergeResult> {
  const now = deps.now();
  return deps.store.transaction(async (tx) => {
    const merged = await tx.lockCandidate(mergedUuid);
    if (!merged) throw new MergeRefusedError(`no candidate ${mergedUuid}`);
    if (merged.status === "merged")
      throw new MergeRefusedError(
        `candidate ${mergedUuid} is already merged into ${merged.mergedIntoCandidateUuid}`,
      );
    const survivor = await tx.survivorOfCandidate(intoUuid);
    if (!survivor) throw new MergeRefusedError(`no candidate ${intoUuid}`);
    if (survivor === mergedUuid)
      throw new MergeRefusedError(
        `candidate ${intoUuid} already resolves to ${mergedUuid}; merging would close a cycle`,
      );
    const target = await tx.lockCandidate(survivor);
    // Re-checked under the lock: a concurrent merge may have merged the survivor meanwhile.
    if (target?.status === "merged")
      throw new MergeRefusedError(`candidate ${survivor} was merged concurrently; retry`);
    await tx.markMerged(mergedUuid, survivor, now);
    return { mergedCandidateUuid: mergedUuid, survivorCandidateUuid: survivor };
  });
}
