import { describe, expect, it } from "vitest";
import type { AccountWrite, CrmAccount, StoredVersion } from "./account.ts";
import { decideBatch } from "./decide.ts";

const account = (name: string): CrmAccount => ({
  name,
  alias: null,
  organisation_type: null,
  language: null,
  identifiers: { vat: null },
  address: { street: null, postal_code: null, city: null, province: null, country: null },
  contact: { email: null, phone: null },
  period: { start_date: null, stop_date: null },
});
const upsert = (us: number, name = "a"): AccountWrite => ({
  crmId: "X",
  modifiedOnUs: us,
  account: account(name),
});
const remove = (us: number): AccountWrite => ({ crmId: "X", modifiedOnUs: us, account: null });
const outcomes = (stored: StoredVersion | undefined, writes: AccountWrite[]) =>
  decideBatch(new Map(stored ? [["X", stored]] : []), writes).results.map((r) => r.outcome);

describe("decideBatch", () => {
  it("creates, replaces with newer, and ignores older and equal-but-different versions", () => {
    expect(
      outcomes(undefined, [
        upsert(10),
        upsert(20, "b"),
        upsert(15, "c"),
        upsert(20, "c"),
        upsert(20, "b"),
      ]),
    ).toEqual(["created", "replaced", "superseded", "superseded", "duplicate"]);
  });

  it("keeps a tombstone against older upserts and recreates on a newer one", () => {
    const stored = { modifiedOnUs: 10, account: account("a") };
    expect(outcomes(stored, [remove(20), upsert(15), remove(20), upsert(30)])).toEqual([
      "deleted",
      "superseded",
      "duplicate",
      "created",
    ]);
  });

  it("reports the winning version and writes only the final state of each changed id", () => {
    const { results, changed } = decideBatch(new Map(), [upsert(2_000_001), upsert(1_000_000)]);
    expect(results[1]).toEqual({
      crm_id: "X",
      applied: false,
      outcome: "superseded",
      modified_on: "1970-01-01T00:00:02.000001Z",
      deleted: false,
    });
    expect([...changed.values()]).toEqual([{ modifiedOnUs: 2_000_001, account: account("a") }]);
  });

  it("changes nothing when no write wins", () => {
    const stored = { modifiedOnUs: 10, account: null };
    expect(decideBatch(new Map([["X", stored]]), [upsert(5), remove(10)]).changed.size).toBe(0);
  });
});
