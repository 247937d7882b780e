import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  applicationBody,
  countRows,
  person,
  startHarness,
  type Harness,
} from "./support/harness.ts";

const TIMEOUT_MS = 300;
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ vacancyTimeoutMs: TIMEOUT_MS });
});
afterAll(() => h.close());

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await work();
  return { result, ms: performance.now() - started };
}

describe("POST /v1/applications: the vacancies service over NATS", () => {
  it("asks the vacancies service about the vacancy in the body", async () => {
    const vacancy = h.newVacancy();
    await h.post("/v1/applications", applicationBody(vacancy, person()));
    expect(h.vacancies.asked.at(-1)).toBe(vacancy);
  });

  it("answers 503 SERVICE_UNAVAILABLE at once when no vacancies service is listening", async () => {
    await h.vacancies.stop();
    try {
      const { result, ms } = await timed(() =>
        h.post("/v1/applications", applicationBody(h.newVacancy(), person())),
      );
      expect(result.status).toBe(503);
      expect(result.body.error.code).toBe("SERVICE_UNAVAILABLE");
      expect(result.headers.get("retry-after")).toBe("5");
      expect(ms).toBeLessThan(TIMEOUT_MS + 500);
    } finally {
      await h.vacancies.start();
    }
  });

  it("answers 503 within the configured timeout when the vacancies service is too slow", async () => {
    h.vacancies.delayMs = TIMEOUT_MS * 4;
    try {
      const { result, ms } = await timed(() =>
        h.post("/v1/applications", applicationBody(h.newVacancy(), person())),
      );
      expect(result.status).toBe(503);
      expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
      expect(ms).toBeLessThan(TIMEOUT_MS + 500);
    } finally {
      h.vacancies.delayMs = 0;
    }
  });

  it("answers 503 when the vacancies service fails to answer the question", async () => {
    h.vacancies.fail = true;
    try {
      const res = await h.post("/v1/applications", applicationBody(h.newVacancy(), person()));
      expect(res.status).toBe(503);
    } finally {
      h.vacancies.fail = false;
    }
  });

  it("stores nothing and emits nothing while the vacancies service is unavailable", async () => {
    await h.vacancies.stop();
    const before = [await countRows(h.pool, "candidates"), await countRows(h.pool, "outbox")];
    try {
      await h.post("/v1/applications", applicationBody(h.newVacancy(), person()));
    } finally {
      await h.vacancies.start();
    }
    expect([await countRows(h.pool, "candidates"), await countRows(h.pool, "outbox")]).toEqual(
      before,
    );
  });

  it("works again as soon as the vacancies service is back", async () => {
    const res = await h.post("/v1/applications", applicationBody(h.newVacancy(), person()));
    expect(res.status).toBe(201);
  });
});
