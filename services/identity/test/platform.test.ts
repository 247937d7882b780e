import { afterAll, beforeAll } from "vitest";
import { platformContract, type StartedApp } from "@svc/testing";
import { startHarness, type Harness } from "./support/harness.ts";

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());

platformContract(
  "identity",
  () =>
    ({
      baseUrl: harness.baseUrl,
      port: Number(new URL(harness.baseUrl).port),
      close: () => harness.close(),
    }) satisfies StartedApp,
);
