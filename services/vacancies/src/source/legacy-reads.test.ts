// The columns @svc/legacy's LEGACY_READS declares for vacancies (what `npm run legacy:check`
// checks a real database for) are exactly those the statements below name: a column read but not
// declared, or declared but no longer read, fails here.
import { describe, expect, it } from "vitest";
import { columnsIn, columnsReadBy } from "@svc/legacy/reads";
import type { VacancyFilter } from "../domain/ports.ts";
import { byUuidsStatement, liveStatement, modifiedSinceStatement } from "./mysql-vacancy-feed.ts";
import {
  countStatement,
  LINK_SQL,
  marksStatement,
  pageStatement,
  REFERENCE_LIST_SQL,
  singleStatement,
} from "./mysql-vacancy-source.ts";

const asOf = { today: "2025-06-15" };
const since = "2025-01-01 00:00:00";
const FILTERS: VacancyFilter[] = [
  {},
  { language: "nl" },
  { published: false },
  { updatedSinceLocal: since },
  { practice: "p", published: true, updatedSinceLocal: since },
  { language: "fr", province: "OVL", position: "TA", status: "open", published: true },
  { province: "OVL", updatedSinceLocal: since },
];

function statements(): string[] {
  const sql = FILTERS.flatMap((f) => [
    countStatement(f, asOf).sql,
    marksStatement(f, asOf, 250).sql,
    pageStatement(f, asOf, { offset: 0, limit: 10 }).sql,
    pageStatement(f, asOf, { offset: 20, limit: 10 }).sql,
    pageStatement(f, asOf, { offset: 90_000, limit: 10 }).sql,
    pageStatement(f, asOf, { offset: 0, limit: 10 }, { windowPrefix: false }).sql,
    pageStatement(f, asOf, { offset: 3, limit: 10 }, { fromKey: 500 }).sql,
  ]);
  return [
    ...sql,
    singleStatement("u", asOf).sql,
    modifiedSinceStatement(since, null, 10, asOf).sql,
    modifiedSinceStatement(since, { modifiedLocal: since, rowKey: 1 }, 10, asOf).sql,
    liveStatement(null, 10, asOf).sql,
    byUuidsStatement(["u"], asOf).sql,
    LINK_SQL,
    REFERENCE_LIST_SQL.positions,
    REFERENCE_LIST_SQL.provinces,
  ];
}

describe("the legacy columns vacancies reads", () => {
  it("are exactly those LEGACY_READS declares for vacancies", () => {
    const named = new Set(statements().flatMap((sql) => [...columnsIn(sql)]));
    expect([...named].sort()).toEqual([...columnsReadBy("vacancies")].sort());
  });
});
