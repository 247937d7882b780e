import { afterAll, beforeAll } from "vitest";
import { platformContract } from "@svc/testing";
import { fakeResolver, startHarness, type Harness } from "./support/harness.ts";

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ resolver: fakeResolver() });
});
afterAll(() => h.close());

platformContract("webhooks", () => h.app);
