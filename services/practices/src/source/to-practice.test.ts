import { describe, expect, it } from "vitest";
import { toPractice, withinPeriod, type PracticeRow } from "./to-practice.ts";

const TODAY = "2025-06-15";

function primaryRow(overrides: Partial<PracticeRow> = {}): PracticeRow {
  return {
    bron: "primary",
    practice_id: "P-1",
    praktijk_naam: "Primary copy",
    actief: 1,
    zichtbaar: 1,
    praktijk_taal: "nl",
    logo: "logos/1.png",
    regio_tekst: "<p>r</p>",
    contact_tekst: "<p>c</p>",
    coach_mdw_ref: "MDW0001",
    actieve_rijen: 1,
    tdm_refs: '["TDM2","TDM1","TDM2"]',
    crm_id: "P-1",
    crm_naam: "CRM name",
    alias: "Alias",
    organisatie_type: "",
    btw_nummer: null,
    straat: "Straat 1",
    postcode: "9000",
    gemeente: "Gent",
    provincie: "Oost-Vlaanderen",
    land: "be",
    email: "a@b",
    telefoon: "09",
    crm_taal: "fr",
    periode_start: "2015-01-01",
    periode_stop: "2999-12-31",
    breedtegraad: 51.0543,
    lengtegraad: 3.7174,
    ...overrides,
  };
}

function secondaryRow(overrides: Partial<PracticeRow> = {}): PracticeRow {
  return primaryRow({
    bron: "secondary",
    praktijk_naam: null,
    actief: null,
    zichtbaar: null,
    praktijk_taal: null,
    logo: null,
    regio_tekst: null,
    contact_tekst: null,
    coach_mdw_ref: null,
    actieve_rijen: 0,
    tdm_refs: null,
    ...overrides,
  });
}

describe("toPractice: a primary-system practice", () => {
  it("takes the name from the CRM, else the primary copy, else null", () => {
    expect(toPractice(primaryRow(), TODAY).name).toBe("CRM name");
    expect(toPractice(primaryRow({ crm_naam: "" }), TODAY).name).toBe("Primary copy");
    expect(toPractice(primaryRow({ crm_naam: null, praktijk_naam: "" }), TODAY).name).toBeNull();
  });

  it("is active only when active and visible, whatever the CRM period says", () => {
    expect(toPractice(primaryRow({ periode_stop: "2000-01-01" }), TODAY).active).toBe(true);
    expect(toPractice(primaryRow({ actief: 0 }), TODAY)).toMatchObject({
      active: false,
      visible: true,
    });
    expect(toPractice(primaryRow({ zichtbaar: 0 }), TODAY)).toMatchObject({
      active: false,
      visible: false,
    });
  });

  it("takes the language of the primary row, exactly nl or fr", () => {
    expect(toPractice(primaryRow(), TODAY).language).toBe("nl");
    for (const raw of ["NL", "nl-BE", "de", "", null, " nl"])
      expect(
        toPractice(primaryRow({ praktijk_taal: raw }), TODAY).language,
        String(raw),
      ).toBeNull();
  });

  it("lists TDM ids distinct and sorted, from JSON text or an already parsed array", () => {
    expect(toPractice(primaryRow(), TODAY).external_refs).toEqual({
      crm_id: "P-1",
      tdm_ids: ["TDM1", "TDM2"],
    });
    expect(toPractice(primaryRow({ tdm_refs: ["B", "A"] }), TODAY).external_refs.tdm_ids).toEqual([
      "A",
      "B",
    ]);
    expect(toPractice(primaryRow({ tdm_refs: "[null]" }), TODAY).external_refs.tdm_ids).toEqual([]);
  });

  it("warns in the catalogue's order and passes free text through unchanged", () => {
    const p = toPractice(primaryRow({ actieve_rijen: "2", crm_id: null }), TODAY);
    expect(p.warnings).toEqual(["multiple_active_rows", "source_record_missing"]);
    const q = toPractice(primaryRow(), TODAY);
    expect(q).toMatchObject({
      organisation_type: "",
      address: { country: "be" },
      identifiers: { vat: null },
    });
  });

  it("has coordinates of the postal-code area, or none at all", () => {
    expect(toPractice(primaryRow(), TODAY).address).toMatchObject({
      latitude: 51.0543,
      longitude: 3.7174,
      geo_precision: "postal_code",
    });
    expect(
      toPractice(primaryRow({ breedtegraad: "50.5", lengtegraad: "4.25" }), TODAY).address,
    ).toMatchObject({ latitude: 50.5, longitude: 4.25 });
    expect(
      toPractice(primaryRow({ breedtegraad: null, lengtegraad: null }), TODAY).address,
    ).toMatchObject({ latitude: null, longitude: null, geo_precision: null });
  });
});

describe("toPractice: a secondary-source practice", () => {
  it("is visible, takes its language from the CRM, and has no presentation, coach, TDM or warnings", () => {
    expect(toPractice(secondaryRow({ tdm_refs: '["X"]', actieve_rijen: 3 }), TODAY)).toMatchObject({
      visible: true,
      language: "fr",
      presentation: { logo: null, region_text: null, contact_text: null },
      coach: { reference: null },
      external_refs: { tdm_ids: [] },
      warnings: [],
    });
  });

  it("derives active from the period with inclusive bounds", () => {
    const active = (start: string | null, stop: string | null) =>
      toPractice(secondaryRow({ periode_start: start, periode_stop: stop }), TODAY).active;
    expect(active("2015-01-01", "2999-12-31")).toBe(true);
    expect(active(TODAY, "2999-12-31")).toBe(true);
    expect(active("2015-01-01", TODAY)).toBe(true);
    expect(active("2025-06-16", "2999-12-31")).toBe(false);
    expect(active("2015-01-01", "2025-06-14")).toBe(false);
    expect(active(null, null)).toBe(true);
  });

  it("treats MySQL's zero date as no date", () => {
    const p = toPractice(
      secondaryRow({ periode_start: "0000-00-00", periode_stop: "0000-00-00" }),
      TODAY,
    );
    expect(p.period).toEqual({ start_date: null, stop_date: null });
    expect(p.active).toBe(true);
  });
});

describe("withinPeriod", () => {
  it("passes 2999-12-31 as an ordinary far date", () => {
    expect(withinPeriod("2999-12-31", null, TODAY)).toBe(false);
    expect(withinPeriod(null, "2999-12-31", TODAY)).toBe(true);
  });
});
