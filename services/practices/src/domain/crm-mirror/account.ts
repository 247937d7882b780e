/**
 * The CRM mirror's model: an account as the external CRM writes it (the payload is our design, see
 * the service README "CRM mirror"), the writes it sends, and what became of each write.
 */

/** An account record; every field is as the CRM holds it (free text, no normalisation). */
export interface CrmAccount {
  name: string | null;
  alias: string | null;
  organisation_type: string | null;
  /** The CRM's language value, unnormalised (the read API would map it to nl/fr/null). */
  language: string | null;
  identifiers: { vat: string | null };
  address: {
    street: string | null;
    postal_code: string | null;
    city: string | null;
    province: string | null;
    country: string | null;
  };
  contact: { email: string | null; phone: string | null };
  period: { start_date: string | null; stop_date: string | null };
}

/**
 * One write: a create-or-replace (`account`) or a delete (`account` null). `modifiedOnUs` is the
 * CRM's modification time in microseconds since the epoch (PostgreSQL's precision), so the
 * service and the database compare versions identically.
 */
export interface AccountWrite {
  crmId: string;
  modifiedOnUs: number;
  account: CrmAccount | null;
}

/**
 * created: no live version existed (none, or a tombstone); replaced: an older version was replaced;
 * deleted: a tombstone now holds this version; duplicate: this exact version is already stored
 * (a replay); superseded: the stored version is newer, or equally new with other content.
 */
export type WriteOutcome = "created" | "replaced" | "deleted" | "duplicate" | "superseded";

export interface WriteResult {
  crm_id: string;
  /** Whether this write changed the mirror (a stale or replayed write is acknowledged only). */
  applied: boolean;
  outcome: WriteOutcome;
  /** The stored (winning) version after this write, ISO 8601 UTC with microseconds. */
  modified_on: string;
  /** Whether the stored version is a delete (tombstone). */
  deleted: boolean;
}

/** The stored version of one account, as the decision needs it. */
export interface StoredVersion {
  modifiedOnUs: number;
  account: CrmAccount | null;
}

/** Microseconds since the epoch → `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
export function isoFromMicros(us: number): string {
  const ms = Math.floor(us / 1000);
  const micro = us - ms * 1000;
  return `${new Date(ms).toISOString().slice(0, 23)}${String(micro).padStart(3, "0")}Z`;
}

/**
 * An account as the mirror holds it, for its writer to read back: the winning version, a
 * tombstone (`deleted`, every field null) included, so a reconciling CRM sees its deletes too.
 */
export interface MirroredAccount {
  crmId: string;
  /** The stored version, ISO 8601 UTC with microseconds (as `WriteResult.modified_on`). */
  modifiedOn: string;
  deleted: boolean;
  account: CrmAccount | null;
}

/** A place in the mirror's (modified_on, crm_id) order: after this account. */
export interface MirrorPosition {
  modifiedOn: string;
  crmId: string;
}
