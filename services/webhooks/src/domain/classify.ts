import type { ErrorClass } from "./model.ts";
import type { PostResult } from "./ports.ts";

/**
 * How one attempt's result counts in the delivery state machine: success, retried, or final
 * (docs/decisions/delivery-status-model.md).
 */
export type Verdict = { kind: "success" | "retryable" | "final"; errorClass: ErrorClass | null };

// These 4xx are "try again later", not "never".
const RETRYABLE_4XX = new Set([408, 425, 429]);

export function classify(result: PostResult): Verdict {
  if (result.kind === "error") {
    // Nothing was contacted for a refused URL; retrying would only knock on the same door.
    return {
      kind: result.errorClass === "blocked_url" ? "final" : "retryable",
      errorClass: result.errorClass,
    };
  }
  const status = result.statusCode;
  if (status >= 200 && status < 300) return { kind: "success", errorClass: null };
  // Redirects are never followed; the attempt failed and is retried on schedule.
  if (status >= 300 && status < 400) return { kind: "retryable", errorClass: "http_redirect" };
  if (RETRYABLE_4XX.has(status)) return { kind: "retryable", errorClass: "http_retryable_status" };
  if (status >= 400 && status < 500) return { kind: "final", errorClass: "http_client_error" };
  if (status >= 500 && status < 600) return { kind: "retryable", errorClass: "http_server_error" };
  return { kind: "retryable", errorClass: "http_other_status" };
}
