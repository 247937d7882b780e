// The columns @svc/legacy's LEGACY_READS declares for practices (what `npm run legacy:check`
// checks a real database for) are exactly those the statements below name: a column read but not
// declared, or declared but no longer read, fails here.
import { describe, expect, it } from "vitest";
import { columnsIn, columnsReadBy } from "@svc/legacy/reads";
import type { PracticeFilters } from "../domain/practice.ts";
import { modificationsSql } from "./mysql-practice-feed.ts";
import { countSql, marksSql, observedSql, pageSql } from "./mysql-practice-source.ts";

const today = "2025-06-15";
const FILTERS: PracticeFilters[] = [
  {},
  { active: true },
  { active: false, visible: true },
  { language: "nl", province: "Antwerpen" },
  { search: "Tandarts Peeters", visible: false },
];

function statements(): string[] {
  const sql = FILTERS.flatMap((f) => [
    countSql(f, today).text,
    marksSql(f, today, 25).text,
    pageSql(f, today, { limit: 25, offset: 0 }).text,
    pageSql(f, today, { limit: 25, offset: 50 }, { from: "A" }).text,
  ]);
  return [
    ...sql,
    pageSql({}, today, { limit: 2, offset: 0 }, "ACC/2009/117").text,
    pageSql({}, today, { limit: 4, offset: 0 }, { ids: ["a", "b"] }).text,
    modificationsSql("2025-06-15 10:00:00", null, 100).text,
    observedSql(),
  ];
}

describe("the legacy columns practices reads", () => {
  it("are exactly those LEGACY_READS declares for practices", () => {
    const named = new Set(statements().flatMap((sql) => [...columnsIn(sql)]));
    expect([...named].sort()).toEqual([...columnsReadBy("practices")].sort());
  });
});
