import type { ClientRevocation } from "@svc/auth";

/** An OAuth client as the domain sees it. The secret exists only as its argon2id hash. */
export interface ClientRecord {
  id: string;
  name: string;
  secretHash: string;
  scopes: ReadonlyArray<string>;
  status: "active" | "revoked";
  isCrmMirror: boolean;
  expiresAt: Date | null;
  createdAt: Date;
  rotatedAt: Date | null;
  revokedAt: Date | null;
}

export interface NewClient {
  id: string;
  name: string;
  secretHash: string;
  scopes: ReadonlyArray<string>;
  isCrmMirror: boolean;
  expiresAt: Date | null;
}

export type ClientState = "active" | "revoked" | "expired";

export function stateOf(client: ClientRecord, nowMs: number): ClientState {
  if (client.status === "revoked") return "revoked";
  if (client.expiresAt !== null && nowMs >= client.expiresAt.getTime()) return "expired";
  return "active";
}

/** What the revocations bucket holds for this client: the earlier of its revocation and expiry. */
export function revocationOf(client: ClientRecord): ClientRevocation | undefined {
  const revokedMs = client.revokedAt?.getTime() ?? Number.POSITIVE_INFINITY;
  const expiresMs = client.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY;
  if (revokedMs === Number.POSITIVE_INFINITY && expiresMs === Number.POSITIVE_INFINITY)
    return undefined;
  return revokedMs <= expiresMs
    ? { clientId: client.id, notAfterMs: revokedMs, reason: "revoked" }
    : { clientId: client.id, notAfterMs: expiresMs, reason: "expired" };
}
