/**
 * The contract's practice field rules, proved with the fixture practices of the sandbox data set
 * (scale 0: the fixtures alone) in a real MariaDB, through HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addDays, fixtures } from "@svc/sandbox";
import type { TempDatabase } from "@svc/testing";
import type { Practice } from "../src/domain/practice.ts";
import { legacyKeysIn, practiceProblems } from "./support/conformance.ts";
import { seedLegacy, startPractices, TODAY, type PracticesApp } from "./support/harness.ts";

const P = fixtures.practices;
const YESTERDAY = addDays(TODAY, -1);
let legacy: TempDatabase;
let svc: PracticesApp;

beforeAll(async () => {
  legacy = await seedLegacy(0);
  svc = await startPractices({ legacyUrl: legacy.url });
});
afterAll(async () => {
  await svc?.close();
  await legacy?.drop();
});

async function practice(id: string): Promise<Practice> {
  const res = await svc.get<Practice>(`/v1/practices/${encodeURIComponent(id)}`);
  expect(res.status, `GET ${id}`).toBe(200);
  return res.body.data;
}

async function everyPractice(): Promise<Practice[]> {
  const res = await svc.get<Practice[]>("/v1/practices?per_page=100");
  expect(res.status).toBe(200);
  return res.body.data;
}

describe("a primary-system practice", () => {
  it("returns every field of a complete practice from its primary row, CRM row and postal-code area", async () => {
    expect(await practice(P.primaryComplete)).toEqual({
      practice_id: P.primaryComplete,
      name: "Tandartspraktijk Vermeulen",
      alias: "TP Vermeulen",
      active: true,
      visible: true,
      language: "nl",
      organisation_type: "Groepspraktijk",
      period: { start_date: "2015-01-01", stop_date: "2999-12-31" },
      identifiers: { vat: "BE0412.345.678" },
      address: {
        street: "Kortrijksesteenweg 112",
        postal_code: "9000",
        city: "Gent",
        country: "BE",
        province: "Oost-Vlaanderen",
        latitude: 51.0543,
        longitude: 3.7174,
        geo_precision: "postal_code",
      },
      contact: { email: "info@example-praktijk.be", phone: "09 222 33 44" },
      presentation: {
        logo: "logos/praktijk-2.png",
        region_text: "<p>Regio <strong>Gent</strong> en omstreken</p>",
        contact_text: "<p>Bel ons op 09 222 33 44<br>of mail naar info@example-praktijk.be</p>",
      },
      coach: { reference: "MDW0007" },
      external_refs: { crm_id: P.primaryComplete, tdm_ids: ["TDM100002"] },
      warnings: [],
    });
  });

  it("wins over the CRM record with the same id: active and language from the primary row, name from the CRM", async () => {
    const p = await practice(P.collisionPrimaryWins);
    // The CRM row alone would be a stopped, French practice.
    expect(p).toMatchObject({
      active: true,
      visible: true,
      language: "nl",
      name: "Tandartsencentrum Zuid",
      period: { stop_date: YESTERDAY },
    });
    expect(p.presentation.logo).not.toBeNull();
    expect(p.external_refs.tdm_ids).toEqual(["TDM100001"]);
    expect(
      (await everyPractice()).filter((x) => x.practice_id === P.collisionPrimaryWins),
    ).toHaveLength(1);
  });

  it("warns source_record_missing without a CRM row and leaves every CRM-fed field null", async () => {
    const p = await practice(P.primaryWithoutCrmRow);
    expect(p.warnings).toEqual(["source_record_missing"]);
    expect(p.name).toBe("Mondzorg Oud-Berchem");
    expect(p).toMatchObject({
      alias: null,
      organisation_type: null,
      identifiers: { vat: null },
      contact: { email: null, phone: null },
      period: { start_date: null, stop_date: null },
    });
    expect(Object.values(p.address).every((v) => v === null)).toBe(true);
    expect(p.active).toBe(true);
  });

  it("warns multiple_active_rows when two rows are active and visible, and stays one practice", async () => {
    expect((await practice(P.multipleActiveRows)).warnings).toEqual(["multiple_active_rows"]);
    expect(
      (await everyPractice()).filter((x) => x.practice_id === P.multipleActiveRows),
    ).toHaveLength(1);
  });

  it("takes the active row when one row is active and another is not, without a warning", async () => {
    expect(await practice(P.oneActiveOneInactiveRow)).toMatchObject({
      active: true,
      visible: true,
      warnings: [],
    });
  });

  it("is inactive when its row is not active, and inactive and invisible when not visible", async () => {
    expect(await practice(P.primaryInactive)).toMatchObject({ active: false, visible: true });
    expect(await practice(P.primaryInvisible)).toMatchObject({ active: false, visible: false });
  });

  it("falls back to the primary copy of the name when the CRM name is missing", async () => {
    expect((await practice(P.nameFromPrimaryCopy)).name).toBe("Dental Care Sint-Pieters");
  });

  it.each([
    ["languageFr", "fr"],
    ["languageOther", null],
    ["languageEmpty", null],
    ["languageMissing", null],
  ] as const)("maps the language of %s to %s", async (fixture, language) => {
    expect((await practice(P[fixture])).language).toBe(language);
  });

  it("has no coordinates and no geo_precision without a postal code or with one outside the area table", async () => {
    for (const id of [P.missingPostalCode, P.postalCodeNotInAreaTable]) {
      expect((await practice(id)).address).toMatchObject({
        latitude: null,
        longitude: null,
        geo_precision: null,
      });
    }
    expect((await practice(P.postalCodeNotInAreaTable)).address).toMatchObject({
      postal_code: "4811 AB",
      country: "Nederland",
    });
  });

  it("passes country, VAT and province through as the source holds them", async () => {
    expect((await practice(P.countryNotIso)).address.country).toBe("België");
    expect((await practice(P.countryMissing)).address.country).toBeNull();
    expect((await practice(P.missingVat)).identifiers.vat).toBeNull();
    expect((await practice(P.provinceTextMissing)).address.province).toBeNull();
  });

  it("lists every TDM link, distinct and sorted, and none when there are none", async () => {
    expect((await practice(P.tdmLinksMany)).external_refs.tdm_ids).toEqual([
      "TDM100019",
      "TDM100020",
      "TDM100021",
    ]);
    expect((await practice(P.tdmLinksNone)).external_refs.tdm_ids).toEqual([]);
  });

  it("returns null presentation and coach when the primary row has none", async () => {
    expect(await practice(P.presentationEmpty)).toMatchObject({
      presentation: { logo: null, region_text: null, contact_text: null },
      coach: { reference: null },
    });
  });
});

describe("ids that need URL encoding", () => {
  it.each([
    ["/v1/practices/ACC%2F2009%2F117", P.legacyIdWithSlash],
    ["/v1/practices/OUD%200042", P.legacyIdWithSpace],
    ["/v1/practices/004711", P.legacyIdNumeric],
  ])("reads %s as practice %s, crm_id equal to practice_id", async (path, id) => {
    const res = await svc.get<Practice>(path);
    expect(res.status).toBe(200);
    expect(res.body.data.practice_id).toBe(id);
    expect(res.body.data.external_refs.crm_id).toBe(id);
  });

  it("keeps the TDM link of the slash id and names it from the primary copy", async () => {
    expect(await practice(P.legacyIdWithSlash)).toMatchObject({
      name: "Tandartsenassociatie Kortrijk",
      external_refs: { tdm_ids: ["TDM000117"] },
      warnings: ["source_record_missing"],
    });
  });

  it("does not treat an unencoded slash as part of the id, nor match an id padded with a space", async () => {
    expect((await svc.get("/v1/practices/ACC/2009/117")).status).toBe(404);
    expect((await svc.get("/v1/practices/OUD%200042%20")).status).toBe(404);
    expect((await svc.get("/v1/practices/acc%2F2009%2F117")).status).toBe(404);
  });

  it("treats a traversal-looking id as an id that does not exist", async () => {
    const res = await svc.get("/v1/practices/..%2F..%2Fmeta%2Fpractices");
    expect(res.status).toBe(404);
    expect(res.body.error?.code).toBe("NOT_FOUND");
  });
});

describe("a secondary-source practice", () => {
  it("returns its CRM record, visible, with no presentation, coach, TDM links or warnings", async () => {
    const p = await practice(P.secondaryOpenEnded);
    expect(p).toMatchObject({
      name: "Mondzorgcentrum Coupure",
      active: true,
      visible: true,
      language: "nl",
      period: { start_date: "2019-09-01", stop_date: "2999-12-31" },
      address: {
        postal_code: "9000",
        latitude: 51.0543,
        longitude: 3.7174,
        geo_precision: "postal_code",
      },
      presentation: { logo: null, region_text: null, contact_text: null },
      coach: { reference: null },
      external_refs: { crm_id: P.secondaryOpenEnded, tdm_ids: [] },
      warnings: [],
    });
  });

  it.each([
    ["secondaryOpenEnded", true],
    ["secondaryStopped", false],
    ["secondaryFutureStart", false],
    ["secondaryStartsToday", true],
    ["secondaryStopsToday", true],
    ["secondaryPeriodMissing", true],
  ] as const)("derives active for %s from today and the period: %s", async (fixture, active) => {
    expect((await practice(P[fixture])).active).toBe(active);
  });

  it("passes the stop dates through unchanged", async () => {
    expect((await practice(P.secondaryOpenEnded)).period.stop_date).toBe("2999-12-31");
    expect((await practice(P.secondaryStopsToday)).period.stop_date).toBe(TODAY);
    expect((await practice(P.secondaryPeriodMissing)).period).toEqual({
      start_date: null,
      stop_date: null,
    });
  });

  it("maps its CRM language: fr stays, en becomes null", async () => {
    expect((await practice(P.secondaryLanguageFr)).language).toBe("fr");
    expect((await practice(P.secondaryLanguageOther)).language).toBeNull();
  });
});

describe("today is the primary system's calendar date", () => {
  it("counts 00:30 in Brussels as the new day although UTC is still on the previous one", async () => {
    const justAfterMidnight = Date.parse(`${YESTERDAY}T22:30:00Z`);
    const lateYesterday = Date.parse(`${YESTERDAY}T21:30:00Z`);
    const after = await startPractices({
      legacyUrl: legacy.url,
      now: () => justAfterMidnight,
      issuer: svc.issuer,
    });
    const before = await startPractices({
      legacyUrl: legacy.url,
      now: () => lateYesterday,
      issuer: svc.issuer,
    });
    try {
      const read = async (app: PracticesApp, id: string) =>
        (await app.get<Practice>(`/v1/practices/${id}`)).body.data.active;
      expect(await read(after, P.secondaryStartsToday)).toBe(true);
      expect(await read(before, P.secondaryStartsToday)).toBe(false);
      expect(await read(before, P.secondaryStopped)).toBe(true);
    } finally {
      await after.close();
      await before.close();
    }
  });
});

describe("response shape", () => {
  it("every practice conforms to the catalogue and carries no legacy name as a key", async () => {
    const list = await svc.get<Practice[]>("/v1/practices?per_page=100");
    expect(list.body.data.length).toBeGreaterThan(30);
    for (const p of list.body.data) expect(practiceProblems(p), p.practice_id).toEqual([]);
    expect(legacyKeysIn(list.body)).toEqual([]);
    const one = await svc.get(`/v1/practices/${P.primaryComplete}`);
    expect(practiceProblems(one.body.data)).toEqual([]);
    expect(legacyKeysIn(one.body)).toEqual([]);
  });

  it("answers a single practice and a list in the envelope", async () => {
    const one = await svc.get(`/v1/practices/${P.primaryComplete}`);
    expect(one.body).toMatchObject({ success: true, meta: { api_version: "v1" } });
    expect(one.body.meta.pagination).toBeUndefined();
    const list = await svc.get("/v1/practices");
    expect(list.body.meta.pagination).toMatchObject({ page: 1, per_page: 25 });
  });
});
