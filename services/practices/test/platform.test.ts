import { afterAll, beforeAll } from "vitest";
import { platformContract } from "@svc/testing";
import { startPractices, type PracticesApp } from "./support/harness.ts";
import { loadConfig } from "../src/config.ts";

let svc: PracticesApp;

beforeAll(async () => {
  // Platform endpoints never touch the legacy database; the configured default address is enough.
  svc = await startPractices({ legacyUrl: loadConfig({}).LEGACY_DATABASE_URL });
});
afterAll(async () => {
  await svc.close();
});

platformContract("practices", () => svc.app);
