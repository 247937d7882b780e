import { describe, expect, it } from "vitest";
import { ENTRYPOINT_CODES, entrypointCodeOf } from "./entrypoints.ts";

describe("entrypointCodeOf", () => {
  it.each([
    ["website", "website"],
    ["Vacature-pagina", "vacancy_page"],
    ["VACATURE PAGINA", "vacancy_page"],
    ["postes vacants", "vacancy_page"],
    ["Candidature spontanée", "spontaneous"],
    ["via via", "referral"],
    ["https://be.indeed.com/viewjob?jk=abc", "indeed"],
    ["www.linkedin.com/jobs/view/1", "linkedin"],
    ["fb", "facebook"],
    ["Le Forem", "forem"],
    ["actiris.brussels", "actiris"],
    ["Google Jobs", "google_jobs"],
  ])("maps %j to %s", (raw, code) => {
    expect(entrypointCodeOf(raw)).toBe(code);
  });

  it.each([null, "", "   ", "tiktok", "https://example.com/x", "not a url ::"])(
    "gives null for %j",
    (raw) => {
      expect(entrypointCodeOf(raw)).toBeNull();
    },
  );

  it("only ever answers a code from its table", () => {
    for (const raw of ["website", "indeed", "vdab.be"])
      expect(ENTRYPOINT_CODES).toContain(entrypointCodeOf(raw));
  });
});
