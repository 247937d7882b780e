import type { AttemptOutcome, FailureReason } from "./model.ts";
import type { Verdict } from "./classify.ts";

/**
 * The retry schedule as data: `scheduleMs[n-1]` is the wait after failed attempt n, counted from
 * the end of that attempt; there are `scheduleMs.length + 1` attempts (6 by default) and then the
 * delivery is dead. The wait is carried out by JetStream: the message is nak'd with exactly this
 * delay (docs/decisions/delivery-retries-with-nak-delay.md).
 */
export type RetryPolicy = { maxAttempts: number; delayAfterAttempt(attempt: number): number };

export function retryPolicy(scheduleMs: ReadonlyArray<number>): RetryPolicy {
  if (scheduleMs.length === 0) throw new RangeError("the retry schedule needs at least one entry");
  return {
    maxAttempts: scheduleMs.length + 1,
    delayAfterAttempt(attempt) {
      const delay = scheduleMs[attempt - 1];
      if (delay === undefined) throw new RangeError(`no retry after attempt ${attempt}`);
      return delay;
    },
  };
}

export type Next = {
  outcome: AttemptOutcome;
  failureReason: FailureReason | null;
  retryInMs: number | null;
};

/** What attempt `attempt` (1-based, within its round) leads to. */
export function nextStep(verdict: Verdict, attempt: number, policy: RetryPolicy): Next {
  if (verdict.kind === "success")
    return { outcome: "succeeded", failureReason: null, retryInMs: null };
  if (verdict.kind === "final") {
    return {
      outcome: "failed",
      failureReason: verdict.errorClass === "blocked_url" ? "blocked_url" : "http_status",
      retryInMs: null,
    };
  }
  if (attempt >= policy.maxAttempts)
    return { outcome: "dead", failureReason: "attempts_exhausted", retryInMs: null };
  return { outcome: "retrying", failureReason: null, retryInMs: policy.delayAfterAttempt(attempt) };
}
