/**
 * Which CRM write wins: the CRM's own `modified_on`, never arrival order. A write is applied only
 * when it is strictly newer than the stored version (tombstones included), so out-of-order
 * delivery, replays and a late upsert after a delete all converge on the CRM's latest state.
 */
import {
  isoFromMicros,
  type AccountWrite,
  type CrmAccount,
  type StoredVersion,
  type WriteOutcome,
  type WriteResult,
} from "./account.ts";

function fingerprint(account: CrmAccount | null): string {
  if (account === null) return "deleted";
  const { identifiers: i, address: a, contact: c, period: p } = account;
  return JSON.stringify([
    account.name,
    account.alias,
    account.organisation_type,
    account.language,
    i.vat,
    a.street,
    a.postal_code,
    a.city,
    a.province,
    a.country,
    c.email,
    c.phone,
    p.start_date,
    p.stop_date,
  ]);
}

function outcomeOf(stored: StoredVersion | undefined, write: AccountWrite): WriteOutcome {
  if (stored === undefined || write.modifiedOnUs > stored.modifiedOnUs) {
    if (write.account === null) return "deleted";
    return stored === undefined || stored.account === null ? "created" : "replaced";
  }
  if (
    write.modifiedOnUs === stored.modifiedOnUs &&
    fingerprint(write.account) === fingerprint(stored.account)
  )
    return "duplicate";
  // Equally new but different content: the CRM gave two states one timestamp. The first stored
  // one stays, so the result does not depend on which replica or retry wrote last.
  return "superseded";
}

const APPLIED: ReadonlySet<WriteOutcome> = new Set(["created", "replaced", "deleted"]);

/**
 * Decides a batch as if its writes arrived one by one, in order, on top of `stored` (the current
 * versions of the batch's ids). Returns each write's result and the final version of every id
 * that changed, which is all the store has to write.
 */
export function decideBatch(
  stored: ReadonlyMap<string, StoredVersion>,
  writes: ReadonlyArray<AccountWrite>,
) {
  const current = new Map(stored);
  const changed = new Map<string, StoredVersion>();
  const results: WriteResult[] = writes.map((write) => {
    const outcome = outcomeOf(current.get(write.crmId), write);
    if (APPLIED.has(outcome)) {
      const version = { modifiedOnUs: write.modifiedOnUs, account: write.account };
      current.set(write.crmId, version);
      changed.set(write.crmId, version);
    }
    const winner = current.get(write.crmId) as StoredVersion;
    return {
      crm_id: write.crmId,
      applied: APPLIED.has(outcome),
      outcome,
      modified_on: isoFromMicros(winner.modifiedOnUs),
      deleted: winner.account === null,
    };
  });
  return { results, changed };
}
