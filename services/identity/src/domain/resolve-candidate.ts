import type { LookupKey } from "./identifiers/lookup-keys.ts";
import type { Resolution } from "./model.ts";

export interface ResolutionDecision {
  resolution: Resolution;
  /** The candidate the application belongs to; null: create a new one. */
  candidateUuid: string | null;
  /** Keys to link to that candidate (new ones it now answers to). */
  linkKeys: LookupKey[];
}

export const keyId = (key: LookupKey): string => key.hash.toString("hex");

/**
 * Identity resolution rules (the application's `resolution`), given the usable keys in precedence
 * order (e-mail, then phone) and the surviving candidate each known key points to:
 *
 * - no usable key (identifiers missing or unusable after normalisation): `unresolved`, and a new
 *   candidate with no identifiers, so candidate_uuid stays a string and an operator can merge it
 *   into the right person later. It is never found again by a lookup.
 * - no key known: `resolved` to a new candidate that answers to every key.
 * - every known key leads to one survivor: `resolved` to it; keys not yet known are linked to it.
 * - known keys lead to different survivors: `ambiguous`; the application goes to the survivor of
 *   the first key in precedence order (the e-mail address), and nothing new is linked, so one
 *   person's identifiers are never attached to another on a guess.
 */
export function decideResolution(
  keys: LookupKey[],
  survivors: ReadonlyMap<string, string>,
): ResolutionDecision {
  if (keys.length === 0) return { resolution: "unresolved", candidateUuid: null, linkKeys: [] };
  const matched = keys.filter((k) => survivors.has(keyId(k)));
  const distinct = new Set(matched.map((k) => survivors.get(keyId(k))));
  const first = matched[0];
  if (first === undefined) return { resolution: "resolved", candidateUuid: null, linkKeys: keys };
  const candidateUuid = survivors.get(keyId(first)) as string;
  if (distinct.size > 1) return { resolution: "ambiguous", candidateUuid, linkKeys: [] };
  return {
    resolution: "resolved",
    candidateUuid,
    linkKeys: keys.filter((k) => !survivors.has(keyId(k))),
  };
}
