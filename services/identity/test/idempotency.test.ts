import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgIdempotencyStore } from "../src/store/pg-idempotency-store.ts";
import { identityDb } from "../src/store/db.ts";
import { idempotencyKeys } from "../src/store/schema.ts";
import {
  applicationBody,
  countRows,
  person,
  startHarness,
  type Harness,
} from "./support/harness.ts";

let h: Harness;
// A movable clock: tests step past the 24-hour retention without waiting for it.
let clockOffsetMs = 0;
beforeAll(async () => {
  h = await startHarness({ now: () => new Date(Date.now() + clockOffsetMs) });
});
afterAll(() => h.close());

const withKey = (key: string, clientId?: string) => ({
  headers: { "Idempotency-Key": key },
  ...(clientId ? { clientId } : {}),
});
const uniqueKey = () => `key-${crypto.randomUUID()}`;

describe("Idempotency-Key on POST /v1/applications", () => {
  it("replays the first response, status and body byte for byte, marked Idempotent-Replayed", async () => {
    const key = uniqueKey();
    const body = applicationBody(h.newVacancy(), person());
    const first = await h.post("/v1/applications", body, withKey(key));
    const again = await h.post("/v1/applications", body, withKey(key));
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(again.text).toBe(first.text);
  });

  it("treats the same fields in another order as the same request", async () => {
    const key = uniqueKey();
    const vacancy = h.newVacancy();
    const p = person();
    const first = await h.post(
      "/v1/applications",
      { vacancy_uuid: vacancy, consent: true, candidate: { email: p.email, phone: p.phone } },
      withKey(key),
    );
    const again = await h.post(
      "/v1/applications",
      { candidate: { phone: p.phone, email: p.email }, consent: true, vacancy_uuid: vacancy },
      withKey(key),
    );
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.text).toBe(first.text);
  });

  it("answers 422 naming the header when the key comes back with another body", async () => {
    const key = uniqueKey();
    const vacancy = h.newVacancy();
    await h.post("/v1/applications", applicationBody(vacancy, person()), withKey(key));
    const other = await h.post(
      "/v1/applications",
      applicationBody(vacancy, person()),
      withKey(key),
    );
    expect(other.status).toBe(422);
    expect(other.body.error).toMatchObject({
      code: "VALIDATION_ERROR",
      details: [
        { field: "Idempotency-Key", message: expect.stringContaining("different request") },
      ],
    });
  });

  it("keeps keys per client: another client's identical key is its own request", async () => {
    const key = uniqueKey();
    const body = applicationBody(h.newVacancy(), person());
    const mine = await h.post("/v1/applications", body, withKey(key, "client-a"));
    const theirs = await h.post("/v1/applications", body, withKey(key, "client-b"));
    expect(theirs.headers.get("idempotent-replayed")).toBeNull();
    // Same person, same vacancy: the second client's own execution finds the existing application.
    expect(theirs.status).toBe(200);
    expect(theirs.body.data.application_uuid).toBe(mine.body.data.application_uuid);
  });

  it("runs 20 concurrent requests with one key exactly once: one application, identical answers, 19 replays", async () => {
    const key = uniqueKey();
    // Unusable identifiers: without the key, every one of these requests would create its own
    // application.
    const body = applicationBody(h.newVacancy(), { email: "nobody", phone: "none" });
    const before = await countRows(h.pool, "applications");
    // A slow vacancies service keeps the first request running while the other 19 arrive.
    h.vacancies.delayMs = 200;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => h.post("/v1/applications", body, withKey(key))),
    ).finally(() => {
      h.vacancies.delayMs = 0;
    });
    expect(h.vacancies.asked.filter((uuid) => uuid === body.vacancy_uuid)).toHaveLength(1);
    expect(await countRows(h.pool, "applications")).toBe(before + 1);
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([201]));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers.filter((a) => a.headers.get("idempotent-replayed") === "true")).toHaveLength(19);
  });

  it("does not keep a request that failed validation: the key then works with a corrected body", async () => {
    const key = uniqueKey();
    const vacancy = h.newVacancy();
    const bad = await h.post(
      "/v1/applications",
      { vacancy_uuid: vacancy, candidate: {}, consent: true },
      withKey(key),
    );
    expect(bad.status).toBe(422);
    const good = await h.post("/v1/applications", applicationBody(vacancy, person()), withKey(key));
    expect(good.status).toBe(201);
    expect(good.headers.get("idempotent-replayed")).toBeNull();
  });

  it("does not keep a request for an unknown vacancy", async () => {
    const key = uniqueKey();
    const p = person();
    const unknown = await h.post(
      "/v1/applications",
      applicationBody(crypto.randomUUID(), p),
      withKey(key),
    );
    expect(unknown.status).toBe(422);
    const good = await h.post("/v1/applications", applicationBody(h.newVacancy(), p), withKey(key));
    expect(good.status).toBe(201);
  });

  it("does not keep a 503: the same key succeeds once the vacancies service is back", async () => {
    const key = uniqueKey();
    const body = applicationBody(h.newVacancy(), person());
    await h.vacancies.stop();
    try {
      const down = await h.post("/v1/applications", body, withKey(key));
      expect(down.status).toBe(503);
      expect(down.body.error.code).toBe("SERVICE_UNAVAILABLE");
    } finally {
      await h.vacancies.start();
    }
    const up = await h.post("/v1/applications", body, withKey(key));
    expect(up.status).toBe(201);
    expect(up.headers.get("idempotent-replayed")).toBeNull();
  });

  it.each([
    ["empty", ""],
    ["longer than 255 characters", "k".repeat(256)],
    ["not ASCII", "sleutel-\u00e9"],
  ])("answers 422 naming Idempotency-Key for a key that is %s", async (_what, key) => {
    const res = await h.post(
      "/v1/applications",
      applicationBody(h.newVacancy(), person()),
      withKey(key),
    );
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([
      { field: "Idempotency-Key", message: expect.any(String) },
    ]);
  });

  it("accepts a key of exactly 255 printable characters", async () => {
    const res = await h.post(
      "/v1/applications",
      applicationBody(h.newVacancy(), person()),
      withKey(`${crypto.randomUUID()}${"~".repeat(219)}`),
    );
    expect(res.status).toBe(201);
  });

  it("keeps a key for 24 hours, then forgets it, and pruning removes it", async () => {
    const key = uniqueKey();
    const vacancy = h.newVacancy();
    await h.post("/v1/applications", applicationBody(vacancy, person()), withKey(key));
    const stored = await h.pool.query<{ kept_ms: number }>(
      "SELECT extract(epoch FROM expires_at - created_at) * 1000 AS kept_ms FROM identity.idempotency_keys ORDER BY created_at DESC LIMIT 1",
    );
    expect(Number(stored.rows[0]?.kept_ms)).toBeGreaterThanOrEqual(24 * 3_600_000);
    try {
      clockOffsetMs = 24 * 3_600_000 - 60_000;
      const stillKept = await h.post(
        "/v1/applications",
        applicationBody(vacancy, person()),
        withKey(key),
      );
      expect(stillKept.status).toBe(422);
      clockOffsetMs = 24 * 3_600_000 + 1_000;
      const pruned = await new PgIdempotencyStore(identityDb(h.pool), idempotencyKeys).pruneExpired(
        new Date(Date.now() + clockOffsetMs),
      );
      expect(pruned).toBeGreaterThan(0);
      const reused = await h.post(
        "/v1/applications",
        applicationBody(h.newVacancy(), person()),
        withKey(key),
      );
      expect(reused.status).toBe(201);
      expect(reused.headers.get("idempotent-replayed")).toBeNull();
    } finally {
      clockOffsetMs = 0;
    }
  });

  it("stores neither the key nor the request, only their SHA-256", async () => {
    const key = `visible-key-${crypto.randomUUID()}`;
    await h.post("/v1/applications", applicationBody(h.newVacancy(), person()), withKey(key));
    const rows = await h.pool.query("SELECT * FROM identity.idempotency_keys");
    expect(JSON.stringify(rows.rows)).not.toContain(key);
  });
});
