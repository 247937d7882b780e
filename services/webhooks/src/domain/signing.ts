import { createHmac, randomBytes } from "node:crypto";

/** The signature scheme's version tag: the `v1=` before every signature. */
export const SIGNATURE_VERSION = "v1";

/**
 * `v1=` + hex HMAC-SHA256 of `<timestamp>.<raw body>`, keyed with the subscription
 * secret (its UTF-8 text, exactly as shown to the subscriber). During a rotation's overlap one
 * signature per secret is sent, newest first, comma-separated: `v1=<new>,v1=<old>`; a receiver
 * accepts the delivery when any of them verifies with the secret it holds.
 */
export function signatureHeader(
  secrets: ReadonlyArray<string>,
  timestampSeconds: number,
  body: string,
): string {
  return secrets
    .map((secret) => `${SIGNATURE_VERSION}=${sign(secret, timestampSeconds, body)}`)
    .join(",");
}

export function sign(secret: string, timestampSeconds: number, body: string): string {
  return createHmac("sha256", secret).update(`${timestampSeconds}.${body}`).digest("hex");
}

/** The delivery headers (the dispatcher adds content type and user agent). */
export function deliveryHeaders(input: {
  eventUuid: string;
  eventType: string;
  deliveryUuid: string;
  timestampSeconds: number;
  body: string;
  secrets: ReadonlyArray<string>;
}): Record<string, string> {
  return {
    "x-svc-event-id": input.eventUuid,
    "x-svc-event-type": input.eventType,
    "x-svc-timestamp": String(input.timestampSeconds),
    "x-svc-signature": signatureHeader(input.secrets, input.timestampSeconds, input.body),
    // Not among the contract's headers: lets a receiver tell one subscription's delivery from
    // another's.
    "x-svc-delivery-id": input.deliveryUuid,
  };
}

/** The body's type on every delivery POST (the dispatcher's and `webhooks listen`'s). */
export const DELIVERY_CONTENT_TYPE = "application/json";

/** The sender's name on every delivery POST. */
export function deliveryUserAgent(version: string): string {
  return `svc-webhooks/${version}`;
}

/** A new signing secret: 32 random bytes, prefixed so it is recognisable in a secret scanner. */
export function generateSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}
