import { afterAll, beforeAll } from "vitest";
import { platformContract } from "@svc/testing";
import { startAuth, type AuthUnderTest } from "./support/harness.ts";

let auth: AuthUnderTest;

beforeAll(async () => {
  auth = await startAuth();
});
afterAll(() => auth.close());

platformContract("auth", () => auth.app);
