import { describe, expect, it } from "vitest";
import { legacySchemaSql } from "@svc/legacy";
import {
  byUuidsStatement,
  DIGEST,
  FEED_INDEXES,
  liveDigestsStatement,
  liveStatement,
  modifiedSinceStatement,
  stampsSinceStatement,
} from "./mysql-vacancy-feed.ts";

const asOf = { today: "2025-06-15" };
const vacancyDdl =
  /CREATE TABLE tbl_vacature \(([\s\S]*?)\) ENGINE/.exec(legacySchemaSql)?.[1] ?? "";

describe("MySQL vacancy feed statements", () => {
  it("name only indexes the legacy vacancy table has", () => {
    for (const index of FEED_INDEXES)
      expect(
        index === "PRIMARY"
          ? /PRIMARY KEY/.test(vacancyDdl)
          : vacancyDdl.includes(`KEY ${index} (`),
        index,
      ).toBe(true);
  });

  it("bind one parameter per placeholder, today first (for published)", () => {
    const statements = [
      modifiedSinceStatement("2025-06-15 10:00:00", null, 500, asOf),
      modifiedSinceStatement(
        "2025-06-15 10:00:00",
        { modifiedLocal: "2025-06-15 10:05:00", rowKey: 42 },
        500,
        asOf,
      ),
      liveStatement(null, 500, asOf),
      liveStatement(42, 500, asOf),
      byUuidsStatement(["a", "b"], asOf),
    ];
    for (const s of statements) {
      expect(s.sql.split("?").length - 1).toBe(s.params.length);
      expect(s.params[0]).toBe(asOf.today);
    }
    for (const s of [liveDigestsStatement(null, 10), liveDigestsStatement(42, 10)])
      expect(s.sql.split("?").length - 1).toBe(s.params.length);
  });

  it("digest every column and label the mapper reads, and not today", () => {
    const inputs = [...DIGEST.matchAll(/QUOTE\(([^)]+)\)/g)].map((m) => m[1]);
    expect(inputs).toEqual([
      ...["v.uuid", "v.kop_publiek", "v.naam_frontend", "v.naam_intern", "v.slug", "v.teaser"],
      ...["v.taal", "v.praktijk_ref", "v.praktijk_naam", "v.praktijk_keuzelijst"],
      ...[
        "v.provincie_code",
        "prov.omschrijving",
        "v.regio",
        "v.functie_code",
        "func.omschrijving",
      ],
      ...["v.werktijd", "v.contract_type", "v.inhoud_intro", "v.inhoud_profiel", "v.inhoud_taken"],
      ...["v.inhoud_aanbod", "v.inhoud_contact", "v.afbeelding", "v.status", "v.zichtbaar"],
      ...["v.publicatiedatum", "v.aangemaakt_op", "v.gewijzigd_op", "v.zoekt_verpleegkundige"],
    ]);
    expect(DIGEST).not.toContain("?");
  });

  it("includes soft-deleted rows only in the modified-since read", () => {
    expect(modifiedSinceStatement("2025-06-15 10:00:00", null, 10, asOf).sql).not.toContain(
      "verwijderd = 0",
    );
    expect(liveStatement(null, 10, asOf).sql).toContain("verwijderd = 0");
    expect(byUuidsStatement(["a"], asOf).sql).toContain("verwijderd = 0");
  });

  it("resumes a modified-since page strictly after the last (time, row key) seen", () => {
    expect(
      modifiedSinceStatement(
        "2025-06-15 10:00:00",
        { modifiedLocal: "2025-06-15 10:05:00", rowKey: 42 },
        10,
        asOf,
      ).params,
    ).toEqual([asOf.today, "2025-06-15 10:05:00", "2025-06-15 10:05:00", 42, 10]);
  });

  it("read stamps over the same index range as modified-since, without the joins or content", () => {
    const after = { modifiedLocal: "2025-06-15 10:05:00", rowKey: 42 };
    const stamps = stampsSinceStatement("2025-06-15 10:00:00", after, 10);
    const rows = modifiedSinceStatement("2025-06-15 10:00:00", after, 10, asOf);
    expect(stamps.params).toEqual(rows.params.slice(1));
    expect(stamps.sql.split("?").length - 1).toBe(stamps.params.length);
    expect(stamps.sql).toMatch(/^SELECT d\.vacature_id, d\.uuid, d\.gewijzigd_op FROM/);
    expect(stamps.sql).not.toContain("JOIN");
  });
});
