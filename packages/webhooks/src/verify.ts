/**
 * Verifying one delivery: `X-SVC-Signature` holds one or more comma-separated `v1=<hex>` values,
 * each HMAC-SHA256 of `<X-SVC-Timestamp>.<raw body>` keyed with a subscription secret (two during
 * a secret rotation); any one matching any given secret, compared in constant time, with a
 * timestamp within the tolerance of the receiver's clock, makes the delivery authentic.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { WebhookEvent } from "./generated/events.ts";

export const DEFAULT_TOLERANCE_SECONDS = 300;

export type VerificationFailure =
  | "missing_timestamp"
  | "malformed_timestamp"
  | "timestamp_too_old"
  | "timestamp_in_future"
  | "missing_signature"
  | "signature_mismatch"
  | "malformed_body";

/** A delivery that is not authentic; `reason` says why (answer it with 401). */
export class WebhookVerificationError extends Error {
  readonly reason: VerificationFailure;

  constructor(reason: VerificationFailure, message: string) {
    super(message);
    this.name = "WebhookVerificationError";
    this.reason = reason;
  }
}

export type VerifyOptions = {
  /** The subscription's secret, `whsec_` included; during a rotation, both secrets may be given. */
  secret: string | ReadonlyArray<string>;
  /** Largest accepted distance between the timestamp and the clock (default 300 s). */
  toleranceSeconds?: number;
  /** The receiver's clock in milliseconds (default Date.now). */
  now?: () => number;
};

/** The two signed headers, by any capitalisation: node:http's headers, a Headers or a record. */
export type SignedHeaders =
  { get(name: string): string | null } | Record<string, string | string[] | undefined>;

function header(headers: SignedHeaders, name: string): string | undefined {
  if (typeof headers.get === "function") return headers.get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(",") : value;
}

/** `v1=` + hex HMAC-SHA256 of `<timestamp>.<raw body>` with `secret`: what the service sends. */
export function sign(secret: string, timestamp: string | number, rawBody: string | Uint8Array) {
  const hmac = createHmac("sha256", secret).update(`${timestamp}.`).update(rawBody);
  return `v1=${hmac.digest("hex")}`;
}

function checkTimestamp(timestamp: string | undefined, options: VerifyOptions): void {
  if (!timestamp) throw new WebhookVerificationError("missing_timestamp", "no X-SVC-Timestamp");
  if (!/^\d{1,12}$/.test(timestamp))
    throw new WebhookVerificationError(
      "malformed_timestamp",
      "X-SVC-Timestamp is not Unix seconds",
    );
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const skew = Number(timestamp) - (options.now ?? Date.now)() / 1000;
  if (skew < -tolerance)
    throw new WebhookVerificationError("timestamp_too_old", "X-SVC-Timestamp is too old");
  if (skew > tolerance)
    throw new WebhookVerificationError("timestamp_in_future", "X-SVC-Timestamp is in the future");
}

function signatureMatches(header: string, expected: ReadonlyArray<Buffer>): boolean {
  const given = header
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part.startsWith("v1=") && /^[0-9a-f]{64}$/i.test(part.slice(3)))
    .map((part) => Buffer.from(part.slice(3), "hex"));
  // Every pair is compared, so the time taken does not say which one matched.
  let match = false;
  for (const g of given) for (const e of expected) match = timingSafeEqual(g, e) || match;
  return match;
}

/**
 * Checks a delivery and returns its event; throws WebhookVerificationError when it is not
 * authentic. `rawBody` must be the body exactly as received, before any JSON parsing.
 */
export function verify(
  rawBody: string | Uint8Array,
  headers: SignedHeaders,
  options: VerifyOptions,
): WebhookEvent {
  const timestamp = header(headers, "x-svc-timestamp")?.trim();
  checkTimestamp(timestamp, options);
  const signatures = header(headers, "x-svc-signature");
  if (!signatures) throw new WebhookVerificationError("missing_signature", "no X-SVC-Signature");
  const secrets = typeof options.secret === "string" ? [options.secret] : options.secret;
  const expected = secrets.map((s) => Buffer.from(sign(s, timestamp!, rawBody).slice(3), "hex"));
  if (!signatureMatches(signatures, expected))
    throw new WebhookVerificationError("signature_mismatch", "no signature matches the secret");
  try {
    const text = typeof rawBody === "string" ? rawBody : Buffer.from(rawBody).toString("utf8");
    return JSON.parse(text) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError("malformed_body", "the signed body is not JSON");
  }
}
