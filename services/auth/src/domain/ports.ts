/** The interfaces the auth domain owns; adapters in store/ and messaging/ implement them. */
import type { ClientRevocation } from "@svc/auth";
import type { ClientRecord, NewClient } from "./clients/client.ts";

/** Client persistence, owned by the domain; PgClientStore implements it. */
export interface ClientStore {
  find(id: string): Promise<ClientRecord | undefined>;
  insert(client: NewClient): Promise<ClientRecord>;
  list(): Promise<ClientRecord[]>;
  /**
   * Replaces the secret hash of an active client; undefined when there is no such active client.
   */
  replaceSecret(id: string, secretHash: string, at: Date): Promise<ClientRecord | undefined>;
  /**
   * Marks the client revoked (keeping the first revocation time); undefined when it does not exist.
   */
  revoke(id: string, at: Date): Promise<ClientRecord | undefined>;
  setExpiry(id: string, at: Date): Promise<ClientRecord | undefined>;
  /** Every client that is revoked or has an expiry: what the revocations bucket must hold. */
  listRevokedOrExpiring(): Promise<ClientRecord[]>;
}

/** Writes one revocation to the bucket every service watches (kvRevocationPublisher). */
export type RevocationPublisher = (revocation: ClientRevocation) => Promise<void>;
