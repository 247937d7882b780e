import { describe, expect, it } from "vitest";
import { legacySchemaSql } from "@svc/legacy";
import type { VacancyFilter } from "../domain/ports.ts";
import {
  countStatement,
  INDEXES_USED,
  pageStatement,
  singleStatement,
} from "./mysql-vacancy-source.ts";

const asOf = { today: "2025-06-15" };
const vacancyDdl =
  /CREATE TABLE tbl_vacature \(([\s\S]*?)\) ENGINE/.exec(legacySchemaSql)?.[1] ?? "";

const FILTERS: VacancyFilter[] = [
  {},
  { language: "nl" },
  { published: true },
  { updatedSinceLocal: "2025-01-01 00:00:00" },
  { practice: "p", published: false, updatedSinceLocal: "2025-01-01 00:00:00" },
  {
    language: "fr",
    province: "OVL",
    position: "TA",
    status: "open",
    published: true,
    updatedSinceLocal: "2025-01-01 00:00:00",
  },
];

describe("MySQL vacancy statements", () => {
  it("name only indexes the legacy vacancy table has (a forced index that is missing fails every query)", () => {
    for (const index of INDEXES_USED)
      expect(
        index === "PRIMARY"
          ? /PRIMARY KEY/.test(vacancyDdl)
          : vacancyDdl.includes(`KEY ${index} (`),
        index,
      ).toBe(true);
  });

  it.each(FILTERS.map((f) => [JSON.stringify(f), f] as const))(
    "bind one parameter per placeholder for %s",
    (_name, filter) => {
      for (const s of [
        countStatement(filter, asOf),
        pageStatement(filter, asOf, { offset: 0, limit: 10 }),
        pageStatement(filter, asOf, { offset: 90_000, limit: 10 }),
      ]) {
        expect(s.sql.split("?").length - 1).toBe(s.params.length);
        expect(s.sql).toContain("verwijderd");
      }
      expect(singleStatement("u", asOf).params).toEqual([asOf.today, "u"]);
    },
  );

  it("walks the primary key only for early unfiltered pages", () => {
    expect(pageStatement({}, asOf, { offset: 0, limit: 100 }).sql).toContain(
      "FORCE INDEX (PRIMARY)",
    );
    expect(pageStatement({}, asOf, { offset: 50_000, limit: 100 }).sql).not.toContain(
      "FORCE INDEX (PRIMARY)",
    );
    expect(pageStatement({ language: "nl" }, asOf, { offset: 0, limit: 100 }).sql).not.toContain(
      "FORCE INDEX (PRIMARY)",
    );
  });
});
