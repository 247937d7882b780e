/**
 * What clients must see during each fault: the timeouts the stack runs with, and per read target
 * the answer and the time bound while a backing service is gone or hangs.
 */
import { latency } from "./checks.ts";
import type { Sample } from "./load.ts";

/** Added to every bound: a busy 2-core machine. */
export const SLACK_MS = 3_000;
/**
 * The bounds a request must answer within. The first three are set in STACK_ENV; the PostgreSQL
 * pool's are @svc/db's (2 s to connect, statement timeout 5 s + 1 s client-side); a retry whose
 * Idempotency-Key is held waits 10 s before its 409 (identity README).
 */
export const TIMEOUTS = {
  legacyConnect: 1_500,
  legacyQuery: 3_000,
  vacancyLookup: 1_500,
  pgConnect: 2_000,
  pgQuery: 6_000,
  idempotencyWait: 10_000,
};
export const STACK_ENV: Record<string, string> = {
  LOG_LEVEL: "warn",
  LEGACY_CONNECT_TIMEOUT_MS: String(TIMEOUTS.legacyConnect),
  LEGACY_QUERY_TIMEOUT_MS: String(TIMEOUTS.legacyQuery),
  VACANCY_LOOKUP_TIMEOUT_MS: String(TIMEOUTS.vacancyLookup),
  DETECTOR_INCREMENTAL_MS: "300",
  RELAY_POLL_MS: "100",
  WEBHOOK_ALLOW_LOOPBACK: "true",
  WEBHOOK_RETRY_SCHEDULE_MS: "250,500,1000,2000,4000",
  WEBHOOK_ATTEMPT_TIMEOUT_MS: "2000",
  WEBHOOK_DELIVERY_ACK_WAIT_MS: "4000",
  WEBHOOK_FANOUT_ACK_WAIT_MS: "4000",
  WEBHOOK_REQUEUE_SWEEP_MS: "1000",
};

export type Source = "mysql" | "pg" | "nats";
export type Expectation = "ok" | { status: number; code: string; boundMs: number };
const unavailable = (code: string, timeoutMs: number): Expectation => ({
  status: 503,
  code,
  boundMs: timeoutMs + SLACK_MS,
});
/**
 * What each target must answer while one backing service is gone (stopped: connections refused)
 * or hangs (frozen: connections open, nothing answers, so only the timeouts bound a request).
 * The bound is the timeouts that apply: refused connections fail at once, a hung legacy read
 * after its connection and query timeouts, a hung PostgreSQL query after the pool's client-side
 * query timeout (statement timeout 5 s + 1 s), a vacancy lookup after VACANCY_LOOKUP_TIMEOUT_MS.
 */
export function whileDown(source: Source, how: "stopped" | "frozen"): Record<string, Expectation> {
  // A hung legacy server: taking a pooled connection is bounded by connect + query timeout (it may
  // be busy that long), the query itself by the query timeout (@svc/db legacy-mysql.ts).
  const legacy =
    how === "stopped" ? TIMEOUTS.legacyConnect : TIMEOUTS.legacyConnect + 2 * TIMEOUTS.legacyQuery;
  const own = how === "stopped" ? TIMEOUTS.pgConnect : TIMEOUTS.pgQuery;
  switch (source) {
    case "mysql":
      return {
        vacancies: unavailable("LEGACY_SOURCE_UNAVAILABLE", legacy),
        practices: unavailable("LEGACY_SOURCE_UNAVAILABLE", legacy),
        // The vacancy check says why it failed: the legacy source, not the vacancies service.
        apply: unavailable("LEGACY_SOURCE_UNAVAILABLE", TIMEOUTS.vacancyLookup),
        applications: "ok",
        webhooks: "ok",
        token: "ok",
      };
    case "pg":
      return {
        applications: unavailable("SERVICE_UNAVAILABLE", own),
        webhooks: unavailable("SERVICE_UNAVAILABLE", own),
        token: unavailable("temporarily_unavailable", own),
        apply: unavailable("SERVICE_UNAVAILABLE", own),
        vacancies: "ok",
        practices: "ok",
      };
    case "nats":
      return {
        apply: unavailable("SERVICE_UNAVAILABLE", TIMEOUTS.vacancyLookup),
        vacancies: "ok",
        practices: "ok",
        applications: "ok",
        webhooks: "ok",
        token: "ok",
      };
  }
}
export const OK_BOUND_MS = 5_000 + SLACK_MS;
/**
 * A service that is gone, as the gateway answers for it (the token endpoint in RFC 6749's form).
 */
export const UNAVAILABLE_CODES = new Set(["SERVICE_UNAVAILABLE", "temporarily_unavailable"]);
/** The longest bound of any request: anything slower hung. */
export const HANG_MS =
  Math.max(TIMEOUTS.pgQuery, TIMEOUTS.legacyConnect + 2 * TIMEOUTS.legacyQuery) + SLACK_MS;
/** A retry of an application whose key is still held waits up to the idempotency wait, then 409. */
export const keyHeld = (s: Sample) =>
  s.target === "apply" &&
  s.status === 409 &&
  s.code === "IDEMPOTENT_REQUEST_IN_PROGRESS" &&
  latency(s) <= TIMEOUTS.idempotencyWait + SLACK_MS;
