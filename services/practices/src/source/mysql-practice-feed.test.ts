import { describe, expect, it } from "vitest";
import { legacySchemaSql } from "@svc/legacy";
import { FEED_INDEXES, modificationsSql } from "./mysql-practice-feed.ts";
import { pageSql } from "./mysql-practice-source.ts";

describe("MySQL practice feed statements", () => {
  it("name only indexes the legacy tables have", () => {
    for (const index of FEED_INDEXES) expect(legacySchemaSql, index).toContain(`KEY ${index} (`);
  });

  it("bind one parameter per placeholder, first page and resumed", () => {
    for (const s of [
      modificationsSql("2025-06-15 10:00:00", null, 100),
      modificationsSql(
        "2025-06-15 10:00:00",
        { practiceId: "OUD 0042", modifiedLocal: "2025-06-15 10:05:00" },
        100,
      ),
    ]) {
      expect(s.text.split("?").length - 1).toBe(s.params.length);
    }
  });

  it("scopes the read API's union to one id, a list of ids or ids from one on, as bound values", () => {
    const byIds = pageSql(
      {},
      "2025-06-15",
      { limit: 4, offset: 0 },
      { ids: ["ACC/2009/117", "x' OR 1=1"] },
    );
    expect(byIds.text.split("?").length - 1).toBe(byIds.params.length);
    expect(byIds.text).toContain("p.crm_ref IN (?)");
    expect(byIds.text).toContain("c.crm_id IN (?)");
    expect(byIds.text).not.toContain("1=1");
    const one = pageSql({}, "2025-06-15", { limit: 2, offset: 0 }, "x' OR 1=1");
    expect(one.text).toContain("p.crm_ref = ?");
    expect(one.text).toContain("c.crm_id = ?");
    expect(one.params.filter((p) => p === "x' OR 1=1")).toHaveLength(2);
    expect(one.text.split("?").length - 1).toBe(one.params.length);
    const from = pageSql({}, "2025-06-15", { limit: 4, offset: 0 }, { from: "M" });
    expect(from.text).toContain("p.crm_ref >= ?");
    expect(from.text).toContain("c.crm_id >= ?");
    expect(from.text.split("?").length - 1).toBe(from.params.length);
  });
});
