import type { Condition, ConditionStatus } from "./types.ts";

export type ConditionUpdate = {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
  observedGeneration?: number;
};

/**
 * Sets one condition in a list (keyed by type), Kubernetes style: lastTransitionTime moves only
 * when the status changes; reason, message and observedGeneration always follow the update.
 */
export function setCondition(
  conditions: Condition[] | undefined,
  update: ConditionUpdate,
  now: Date,
): Condition[] {
  const list = conditions ?? [];
  const previous = list.find((c) => c.type === update.type);
  const lastTransitionTime =
    previous && previous.status === update.status ? previous.lastTransitionTime : rfc3339(now);
  const next: Condition = {
    ...update,
    message: update.message.slice(0, 32_768),
    lastTransitionTime,
  };
  return previous ? list.map((c) => (c === previous ? next : c)) : [...list, next];
}

export function findCondition(
  conditions: Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** metav1.Time: RFC 3339 in seconds, as the API server writes it. */
function rfc3339(at: Date): string {
  return `${at.toISOString().slice(0, 19)}Z`;
}
