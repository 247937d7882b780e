/**
 * The revocations KV bucket's contents, shared by its one writer (the auth service) and every
 * reader (each service's RevocationView). One key per client: `client.<client_id>`. The value
 * says from which instant every token of that client is rejected: at once for a revocation, at
 * the expiry instant for an expiry (which may lie in the future when it is scheduled).
 */
export interface ClientRevocation {
  clientId: string;
  /** Epoch milliseconds from which every token of this client is rejected. */
  notAfterMs: number;
  reason: "revoked" | "expired";
}

/**
 * Bucket settings every process opens the bucket with. They must be identical in every process,
 * because opening reconciles the bucket's stream to them. One value per key; no TTL: a revoked or
 * expired client never becomes usable again, so an entry never needs to go away, and there are
 * as many entries as revoked clients (a few hundred bytes each).
 */
export const REVOCATION_BUCKET_OPTIONS = Object.freeze({ history: 1 });

const KEY_PREFIX = "client.";
// Client ids are generated from URL-safe characters; KV keys allow these and more.
const CLIENT_ID = /^[A-Za-z0-9_-]{1,128}$/;

export function revocationKey(clientId: string): string {
  if (!CLIENT_ID.test(clientId))
    throw new RangeError(`not a client id usable as a revocation key: ${JSON.stringify(clientId)}`);
  return `${KEY_PREFIX}${clientId}`;
}

/** The client id a key names, or undefined for a key this version does not know. */
export function clientIdOfKey(key: string): string | undefined {
  if (!key.startsWith(KEY_PREFIX)) return undefined;
  const id = key.slice(KEY_PREFIX.length);
  return CLIENT_ID.test(id) ? id : undefined;
}

export function encodeRevocation(revocation: ClientRevocation): string {
  return JSON.stringify({
    v: 1,
    client_id: revocation.clientId,
    not_after_ms: revocation.notAfterMs,
    not_after: new Date(revocation.notAfterMs).toISOString(),
    reason: revocation.reason,
  });
}

/** Validates a decoded value; throws on anything else, so the watcher logs and skips it. */
export function parseRevocation(data: unknown): ClientRevocation {
  const v = (data ?? {}) as Record<string, unknown>;
  if (v.v !== 1) throw new TypeError("unknown revocation record version");
  if (typeof v.client_id !== "string" || !CLIENT_ID.test(v.client_id))
    throw new TypeError("revocation record without a valid client_id");
  if (typeof v.not_after_ms !== "number" || !Number.isFinite(v.not_after_ms))
    throw new TypeError("revocation record without not_after_ms");
  if (v.reason !== "revoked" && v.reason !== "expired")
    throw new TypeError("revocation record with an unknown reason");
  return { clientId: v.client_id, notAfterMs: v.not_after_ms, reason: v.reason };
}

export function sameRevocation(a: ClientRevocation | undefined, b: ClientRevocation): boolean {
  return (
    a !== undefined &&
    a.clientId === b.clientId &&
    a.notAfterMs === b.notAfterMs &&
    a.reason === b.reason
  );
}
