import type { MirroredAccount } from "../domain/crm-mirror/account.ts";

/** A mirrored account as its writer reads it back: the written fields, null on a tombstone. */
export function presentMirroredAccount(a: MirroredAccount) {
  const x = a.account;
  return {
    crm_id: a.crmId,
    name: x?.name ?? null,
    alias: x?.alias ?? null,
    organisation_type: x?.organisation_type ?? null,
    language: x?.language ?? null,
    identifiers: { vat: x?.identifiers.vat ?? null },
    address: {
      street: x?.address.street ?? null,
      postal_code: x?.address.postal_code ?? null,
      city: x?.address.city ?? null,
      province: x?.address.province ?? null,
      country: x?.address.country ?? null,
    },
    contact: { email: x?.contact.email ?? null, phone: x?.contact.phone ?? null },
    period: { start_date: x?.period.start_date ?? null, stop_date: x?.period.stop_date ?? null },
    modified_on: a.modifiedOn,
    deleted: a.deleted,
  };
}
