import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtures, generateDataset, type VacatureRow } from "@svc/sandbox";
import type { TempDatabase } from "@svc/testing";
import type { Vacancy } from "../src/domain/vacancy-catalogue.ts";
import {
  seededLegacyDatabase,
  SEED,
  startVacancies,
  TODAY,
  walkAll,
  type Envelope,
  type RunningVacancies,
} from "./support/harness.ts";

// The vacancy fields one by one, against the sandbox fixtures (scale 0: fixtures only) in real
// MariaDB.
const V = fixtures.vacancies;
const P = fixtures.practices;
const X = fixtures.values;

let database: TempDatabase;
let run: RunningVacancies;
const byUuid = new Map<string, Vacancy>();

beforeAll(async () => {
  database = await seededLegacyDatabase(0);
  run = await startVacancies({ legacyUrl: database.url });
  for (const item of (await walkAll(run, "", 100)).items) byUuid.set(item.uuid, item);
});
afterAll(async () => {
  await run.close();
  await database.drop();
});

async function one(uuid: string): Promise<Vacancy> {
  const res = await run.get<Envelope<Vacancy>>(`/v1/vacancies/${uuid}`);
  expect(res.status).toBe(200);
  // The list and the single endpoint map the same row the same way.
  expect(byUuid.get(uuid)).toEqual(res.body.data);
  return res.body.data;
}

describe("GET /v1/vacancies/{uuid}", () => {
  it("returns an ordinary vacancy with every vacancy field", async () => {
    const v = await one(V.ordinary);
    expect(v).toMatchObject({
      uuid: V.ordinary,
      language: "nl",
      practice: {
        legacy_reference: P.primaryComplete,
        name: "Tandartspraktijk Vermeulen",
        type: "Primary",
      },
      location: {
        province: { code: "OVL", label: "Oost-Vlaanderen" },
        postal_code: null,
        city: null,
        country: null,
        latitude: null,
        longitude: null,
      },
      position: { code: "TA", label: "Tandarts" },
      employment: {
        time: { code: "Fulltime", value: "full_time" },
        contract: { code: "Werknemer", value: "employee" },
      },
      image: "uploads/vacatures/2024/05/vacature-1.jpg",
      status: { code: "1", value: "created" },
      visible: true,
      published: true,
      display_date: null,
      created_at: "2024-05-02T09:30:00+02:00",
      updated_at: "2024-05-14T10:12:00+02:00",
      valid_through: null,
      seeking_nurse_code: "0",
    });
    expect(v.title).toEqual(expect.any(String));
    expect(v.slug).toMatch(/^vacatures\//);
    expect(v.teaser).toEqual(expect.any(String));
  });

  it.each([
    ["titleFromPublicHeading", V.titleFromPublicHeading, "Tandarts gezocht – Gent centrum"],
    ["titleFromFrontendName (heading empty)", V.titleFromFrontendName, "Mondhygiënist Gent"],
    [
      "titleFromInternalName (heading NULL, frontend name empty)",
      V.titleFromInternalName,
      "TAS-2023-112 assistent Gent",
    ],
    ["titleMissing (all three empty or NULL)", V.titleMissing, null],
  ])("takes the title from the first non-empty source: %s", async (_name, uuid, title) => {
    expect((await one(uuid)).title).toBe(title);
  });

  it("keeps the slug's language prefix and passes a missing slug as null", async () => {
    expect((await one(V.languageFr)).slug).toMatch(/^postesvacants\/[a-z0-9-]+$/);
    expect((await one(V.titleFromPublicHeading)).slug).toMatch(/^vacatures\/[a-z0-9-]+$/);
    expect((await one(V.slugMissing)).slug).toBeNull();
  });

  it.each([
    [V.ordinary, "nl"],
    [V.languageFr, "fr"],
    [V.languageOther, null],
    [V.languageEmpty, null],
  ])("maps language %s to %s (only nl and fr survive)", async (uuid, language) => {
    expect((await one(uuid)).language).toBe(language);
  });

  it("reports the practice reference, the name snapshot and the choice list it came from", async () => {
    expect((await one(V.practiceSecondary)).practice).toEqual({
      legacy_reference: P.secondaryOpenEnded,
      name: "Mondzorgcentrum Coupure",
      type: "Secondary",
    });
    expect((await one(V.practicePrimary)).practice).toEqual({
      legacy_reference: P.primaryComplete,
      name: "Tandartspraktijk Vermeulen",
      type: "Primary",
    });
    expect((await one(V.practiceNone)).practice).toEqual({
      legacy_reference: null,
      name: null,
      type: null,
    });
    expect((await one(V.practiceDangling)).practice).toMatchObject({
      legacy_reference: X.danglingPracticeId,
      type: "Secondary",
    });
    expect((await one(V.practiceLegacyId)).practice.legacy_reference).toBe(P.legacyIdWithSlash);
    // A snapshot: picked from the secondary list, it stays Secondary once the id has a primary row.
    expect((await one(V.practiceTypeSnapshotStale)).practice).toMatchObject({
      legacy_reference: P.collisionPrimaryWins,
      type: "Secondary",
    });
    expect((await one(V.practiceNameSnapshotDiffers)).practice.name).toBe(
      "Tandartspraktijk Vermeulen-De Smet",
    );
  });

  it.each([
    ["provinceUnknown", V.provinceUnknown, { code: X.unknownProvinceCode, label: null }],
    ["provinceInactive", V.provinceInactive, { code: X.inactiveProvinceCode, label: "Brabant" }],
    ["provinceAbsent", V.provinceAbsent, { code: null, label: null }],
  ])("labels the province code from the reference list: %s", async (_name, uuid, province) => {
    expect((await one(uuid)).location.province).toEqual(province);
  });

  it.each([
    ["positionUnknown", V.positionUnknown, { code: X.unknownPositionCode, label: null }],
    [
      "positionInactive",
      V.positionInactive,
      { code: X.inactivePositionCode, label: "Stagiair tandarts" },
    ],
    ["positionAbsent", V.positionAbsent, { code: null, label: null }],
  ])("labels the position code from the reference list: %s", async (_name, uuid, position) => {
    expect((await one(uuid)).position).toEqual(position);
  });

  it.each([
    [V.employmentFulltime, { code: "Fulltime", value: "full_time" }],
    [V.employmentParttime, { code: "Parttime", value: "part_time" }],
    [V.employmentParttimeFulltime, { code: "ParttimeFulltime", value: "full_or_part_time" }],
    [V.employmentTimeUnknown, { code: X.unknownEmploymentTime, value: null }],
  ])("keeps the raw working time and normalises it (%s)", async (uuid, time) => {
    expect((await one(uuid)).employment.time).toEqual(time);
  });

  it.each([
    [V.contractWerknemer, { code: "Werknemer", value: "employee" }],
    [V.contractZelfstandig, { code: "Zelfstandig", value: "self_employed" }],
    [
      V.contractWerknemerZelfstandig,
      { code: "Werknemer - zelfstandig", value: "employee_or_self_employed" },
    ],
    [V.contractUnknown, { code: X.unknownContract, value: null }],
  ])("keeps the raw contract and normalises it (%s)", async (uuid, contract) => {
    expect((await one(uuid)).employment.contract).toEqual(contract);
  });

  it.each([
    [V.statusCreated, { code: "1", value: "created" }],
    [V.statusOpen, { code: "2", value: "open" }],
    [V.statusFilled, { code: "3", value: "filled" }],
  ])("gives the status as raw code and value (%s)", async (uuid, status) => {
    expect((await one(uuid)).status).toEqual(status);
  });

  it.each([
    ["invisible", V.invisible, false, null, false],
    ["invisibleWithPastDisplayDate", V.invisibleWithPastDisplayDate, false, "2025-06-05", false],
    ["displayDateAbsent", V.displayDateAbsent, true, null, true],
    ["displayDatePast", V.displayDatePast, true, "2025-06-14", true],
    ["displayDateToday", V.displayDateToday, true, TODAY, true],
    ["displayDateFuture", V.displayDateFuture, true, "2025-06-16", false],
  ])(
    "derives published from visible and the display date: %s",
    async (_name, uuid, visible, displayDate, published) => {
      expect(await one(uuid)).toMatchObject({ visible, display_date: displayDate, published });
    },
  );

  it("gives timestamps the Brussels offset of their own instant across the spring change", async () => {
    const v = await one(V.dstSpringForward);
    expect(v.created_at).toBe("2024-03-31T01:45:00+01:00");
    expect(v.updated_at).toBe("2024-03-31T03:15:00+02:00");
    expect(Date.parse(v.updated_at ?? "") - Date.parse(v.created_at ?? "")).toBe(30 * 60_000);
  });

  it("gives timestamps the Brussels offset of their own instant across the autumn change", async () => {
    const v = await one(V.dstFallBack);
    expect(v.created_at).toBe("2024-10-27T01:45:00+02:00");
    expect(v.updated_at).toBe("2024-10-27T03:15:00+01:00");
    expect(Date.parse(v.updated_at ?? "") - Date.parse(v.created_at ?? "")).toBe(150 * 60_000);
  });

  it("resolves the repeated autumn hour to its first (summer-time) instant", async () => {
    const v = await one(V.dstFallBackAmbiguous);
    expect(v.created_at).toBe("2024-10-26T18:00:00+02:00");
    expect(v.updated_at).toBe("2024-10-27T02:30:00+02:00");
  });

  it("uses the winter offset in winter and null for missing timestamps", async () => {
    expect(await one(V.updatedLongAgo)).toMatchObject({
      created_at: "2018-12-03T09:00:00+01:00",
      updated_at: "2019-01-15T08:00:00+01:00",
    });
    expect(await one(V.timestampsMissing)).toMatchObject({ created_at: null, updated_at: null });
  });

  it("passes the seeking-nurse code and the image reference through raw", async () => {
    expect((await one(V.seekingNurseCodeSet)).seeking_nurse_code).toBe("J");
    expect((await one(V.imageMissing)).image).toBeNull();
    expect((await one(V.imageAbsoluteUrl)).image).toBe(
      "https://cdn.example-praktijk.be/img/vacature%20tandarts.JPG",
    );
  });

  it("returns the five HTML fields and the free-text fields exactly as stored, pasted formatting included", async () => {
    const rows = new Map<string, VacatureRow>();
    for (const row of generateDataset({ seed: SEED, scale: 0, today: TODAY }).rows("tbl_vacature"))
      rows.set(row.uuid, row);
    const pasted = await one(V.pastedFormatting);
    expect(pasted.content.intro).toContain('class="MsoNormal"');
    for (const [uuid, v] of byUuid) {
      const row = rows.get(uuid);
      expect(v.content).toEqual({
        intro: row?.inhoud_intro,
        profile: row?.inhoud_profiel,
        tasks: row?.inhoud_taken,
        offer: row?.inhoud_aanbod,
        contact: row?.inhoud_contact,
      });
      expect({ teaser: v.teaser, region: v.location.region, slug: v.slug }).toEqual({
        teaser: row?.teaser,
        region: row?.regio,
        slug: row?.slug,
      });
    }
  });

  it("answers 404 NOT_FOUND for a soft-deleted vacancy, and the list never contains it", async () => {
    const res = await run.get<Envelope>(`/v1/vacancies/${V.softDeleted}`);
    expect(res.status).toBe(404);
    expect(res.body.error?.code).toBe("NOT_FOUND");
    expect(byUuid.has(V.softDeleted)).toBe(false);
    expect(byUuid.size).toBe(Object.keys(V).length - 1);
  });
});

describe("today is the Europe/Brussels calendar date", () => {
  async function publishedAt(instant: string, uuid: string): Promise<boolean> {
    const other = await startVacancies({ legacyUrl: database.url, now: Date.parse(instant) });
    try {
      const res = await other.get<Envelope<Vacancy>>(`/v1/vacancies/${uuid}`);
      return res.body.data.published;
    } finally {
      await other.close();
    }
  }

  it("publishes a vacancy displayed from today at 00:30 in Brussels, while it is still yesterday in UTC", async () => {
    expect(await publishedAt("2025-06-14T22:30:00Z", V.displayDateToday)).toBe(true);
    expect(await publishedAt("2025-06-14T21:59:59Z", V.displayDateToday)).toBe(false);
  });

  it("publishes a vacancy scheduled for tomorrow once tomorrow starts in Brussels", async () => {
    expect(await publishedAt("2025-06-15T21:59:59Z", V.displayDateFuture)).toBe(false);
    expect(await publishedAt("2025-06-15T22:00:00Z", V.displayDateFuture)).toBe(true);
  });
});
