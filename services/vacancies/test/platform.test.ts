import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { platformContract, type TempDatabase } from "@svc/testing";
import { loadConfig } from "../src/config.ts";
import { seededLegacyDatabase, startVacancies, type RunningVacancies } from "./support/harness.ts";

let run: RunningVacancies;
let database: TempDatabase;

beforeAll(async () => {
  database = await seededLegacyDatabase(0);
  run = await startVacancies({ legacyUrl: database.url });
});
afterAll(async () => {
  await run.close();
  await database.drop();
});

platformContract("vacancies", () => run.app);

describe("vacancies configuration", () => {
  it("judges publication in Europe/Brussels unless TIME_ZONE says otherwise", () => {
    expect(loadConfig({}).TIME_ZONE).toBe("Europe/Brussels");
    expect(loadConfig({ TIME_ZONE: "America/New_York" }).TIME_ZONE).toBe("America/New_York");
  });

  it("refuses to start with a TIME_ZONE the runtime does not know, naming the key", () => {
    expect(() => loadConfig({ TIME_ZONE: "Europe/Gent" })).toThrow(/TIME_ZONE/);
  });
});
