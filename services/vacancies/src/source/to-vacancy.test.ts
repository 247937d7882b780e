import { describe, expect, it } from "vitest";
import { conformanceProblems } from "@svc/catalogue";
import { VACANCY_FIELDS, VACANCY_OBSERVED_VALUES } from "../domain/vacancy-catalogue.ts";
import { zonedIso } from "./local-time.ts";
import { canonicalHash } from "@svc/events";
import {
  statusCodeOf,
  toReferenceEntry,
  toVacancy,
  VACANCY_MAPPING_VERSION,
  type VacancyRow,
} from "./to-vacancy.ts";

const toIso = zonedIso("Europe/Brussels");

function row(overrides: Partial<VacancyRow> = {}): VacancyRow {
  return {
    uuid: "3f2b8c1e-7d4a-4e2b-9c51-0a6d2e8f4b17",
    kop_publiek: "Tandarts gezocht",
    naam_frontend: "Tandarts Gent",
    naam_intern: "TA-1",
    slug: "vacatures/tandarts-gezocht-1",
    teaser: "Kom erbij",
    taal: "nl",
    praktijk_ref: "PR-1",
    praktijk_naam: "Praktijk",
    praktijk_keuzelijst: "praktijk",
    provincie_code: "OVL",
    provincie_omschrijving: "Oost-Vlaanderen",
    regio: "<p>Gent</p>",
    functie_code: "TA",
    functie_omschrijving: "Tandarts",
    werktijd: "Fulltime",
    contract_type: "Werknemer",
    inhoud_intro: "<p>a</p>",
    inhoud_profiel: "<p>b</p>",
    inhoud_taken: "<p>c</p>",
    inhoud_aanbod: "<p>d</p>",
    inhoud_contact: "<p>e</p>",
    afbeelding: "x.jpg",
    status: 1,
    zichtbaar: 1,
    publicatiedatum: null,
    aangemaakt_op: "2024-05-02 09:30:00",
    gewijzigd_op: "2024-12-02 09:30:00",
    zoekt_verpleegkundige: "0",
    gepubliceerd: 1,
    ...overrides,
  };
}

const map = (overrides: Partial<VacancyRow> = {}) => toVacancy(row(overrides), toIso);

describe("toVacancy", () => {
  it("maps these rows as VACANCY_MAPPING_VERSION names", () => {
    // Failing here means toVacancy maps a row differently: change detection would keep hashes of
    // the old mapping for rows whose source digest did not change. Bump VACANCY_MAPPING_VERSION,
    // then pin the new hash.
    const rows = [
      row(),
      row({ taal: "FR", status: 3, praktijk_keuzelijst: "groepspraktijk", werktijd: "Deeltijds" }),
      row({ publicatiedatum: "2025-01-01", gepubliceerd: 0, zichtbaar: 0, kop_publiek: null }),
      row({ aangemaakt_op: "0000-00-00 00:00:00", gewijzigd_op: "2024-03-31 02:30:00" }),
    ];
    const hashes = rows.map((r) => canonicalHash(toVacancy(r, toIso)).toString("hex"));
    expect({ version: VACANCY_MAPPING_VERSION, of: canonicalHash(hashes).toString("hex") }).toEqual(
      {
        version: 1,
        of: "e1f205b19df924ce4f618d3969e54e1ea5bbb4780cbbc0ea9a30a7b9b13ce669",
      },
    );
  });

  it("produces exactly the catalogue's shape, also when every column is NULL", () => {
    expect(conformanceProblems(VACANCY_FIELDS, map())).toEqual([]);
    const empty = Object.fromEntries(
      Object.keys(row()).map((k) => [k, null]),
    ) as unknown as VacancyRow;
    const v = toVacancy({ ...empty, uuid: "u", zichtbaar: 0, gepubliceerd: 0 }, toIso);
    expect(conformanceProblems(VACANCY_FIELDS, v)).toEqual([]);
    expect(v).toMatchObject({
      title: null,
      language: null,
      visible: false,
      published: false,
      created_at: null,
      status: { code: null, value: null },
    });
  });

  it.each([
    [{ kop_publiek: "Kop" }, "Kop"],
    [{ kop_publiek: "", naam_frontend: "Frontend" }, "Frontend"],
    [{ kop_publiek: null, naam_frontend: "", naam_intern: "Intern" }, "Intern"],
    [{ kop_publiek: "   ", naam_frontend: null, naam_intern: "Intern" }, "Intern"],
    [{ kop_publiek: null, naam_frontend: null, naam_intern: "" }, null],
  ])("takes the first non-empty title source (%o → %s)", (overrides, title) => {
    expect(map(overrides).title).toBe(title);
  });

  it.each([
    ["nl", "nl"],
    ["fr", "fr"],
    ["NL", null],
    ["nl-BE", null],
    ["de", null],
    ["", null],
    [null, null],
  ])("maps language %s to %s", (taal, language) => {
    expect(map({ taal }).language).toBe(language);
  });

  it.each([
    ["praktijk", "Primary"],
    ["crm", "Secondary"],
    ["CRM", null],
    [null, null],
  ])("maps the practice choice list %s to type %s", (raw, type) => {
    expect(map({ praktijk_keuzelijst: raw }).practice.type).toBe(type);
  });

  it("never finds a normalised value on Object.prototype", () => {
    expect(
      map({ werktijd: "constructor", contract_type: "toString", praktijk_keuzelijst: "__proto__" }),
    ).toMatchObject({
      employment: {
        time: { code: "constructor", value: null },
        contract: { code: "toString", value: null },
      },
      practice: { type: null },
    });
  });

  it("maps every status code, and keeps an unknown one raw", () => {
    expect([1, 2, 3, 7].map((status) => map({ status }).status)).toEqual([
      { code: "1", value: "created" },
      { code: "2", value: "open" },
      { code: "3", value: "filled" },
      { code: "7", value: null },
    ]);
    expect(statusCodeOf("open")).toBe(2);
  });

  it("agrees with every observed raw value the metadata documents", () => {
    const paths = {
      "employment.time.code": "werktijd",
      "employment.contract.code": "contract_type",
    } as const;
    for (const [path, column] of Object.entries(paths)) {
      for (const observed of VACANCY_OBSERVED_VALUES[path] ?? []) {
        const v = map({ [column]: observed.value });
        const value = path.startsWith("employment.time")
          ? v.employment.time.value
          : v.employment.contract.value;
        expect(observed.note, `${path} ${observed.value}`).toContain(
          value === null ? "value null" : `value ${value}`,
        );
      }
    }
    for (const observed of VACANCY_OBSERVED_VALUES["status.code"] ?? [])
      expect(observed.note).toContain(
        `value ${map({ status: Number(observed.value) }).status.value}`,
      );
  });

  it("converts Brussels wall-clock DATETIMEs with the offset of their own instant", () => {
    expect(
      map({ aangemaakt_op: "2024-03-31 01:45:00", gewijzigd_op: "2024-03-31 03:15:00" }),
    ).toMatchObject({
      created_at: "2024-03-31T01:45:00+01:00",
      updated_at: "2024-03-31T03:15:00+02:00",
    });
    expect(map({ gewijzigd_op: "2024-10-27 02:30:00" }).updated_at).toBe(
      "2024-10-27T02:30:00+02:00",
    );
    expect(map({ gewijzigd_op: "0000-00-00 00:00:00" }).updated_at).toBeNull();
  });

  it("passes the display date through and treats the zero date as none", () => {
    expect(map({ publicatiedatum: "2025-06-16" }).display_date).toBe("2025-06-16");
    expect(map({ publicatiedatum: "0000-00-00" }).display_date).toBeNull();
  });

  it("reads visible and published as flags", () => {
    expect(map({ zichtbaar: 0, gepubliceerd: 0 })).toMatchObject({
      visible: false,
      published: false,
    });
    expect(map({ zichtbaar: 1, gepubliceerd: 1 })).toMatchObject({
      visible: true,
      published: true,
    });
  });

  it("leaves HTML, codes and free text untouched, and the reserved fields null", () => {
    const intro = '<p class="MsoNormal"><span style="font-family:Calibri">Hallo</span></p>';
    const v = map({
      inhoud_intro: intro,
      zoekt_verpleegkundige: "",
      provincie_code: "ZLD",
      provincie_omschrijving: null,
    });
    expect(v.content.intro).toBe(intro);
    expect(v.seeking_nurse_code).toBe("");
    expect(v.location).toEqual({
      province: { code: "ZLD", label: null },
      region: "<p>Gent</p>",
      postal_code: null,
      city: null,
      country: null,
      latitude: null,
      longitude: null,
    });
    expect(v.valid_through).toBeNull();
  });
});

describe("toReferenceEntry", () => {
  it("turns the active flag into a boolean", () => {
    expect(toReferenceEntry({ code: "STAG", label: "Stagiair tandarts", actief: 0 })).toEqual({
      code: "STAG",
      label: "Stagiair tandarts",
      active: false,
    });
    expect(toReferenceEntry({ code: "TA", label: "Tandarts", actief: 1 })).toEqual({
      code: "TA",
      label: "Tandarts",
      active: true,
    });
  });
});
