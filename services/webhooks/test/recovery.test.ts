import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildEvent } from "@svc/events";
import { createTestCa, type TestCa } from "@svc/testing";
import { startReceiver, type Receiver } from "./support/receiver.ts";
import {
  fakeResolver,
  PUBLIC_BASE_URL,
  sleep,
  startHarness,
  waitFor,
  type Harness,
} from "./support/harness.ts";

/**
 * Bulk recovery (POST /v1/webhooks/{id}/recover) against real PostgreSQL, NATS, the dispatcher
 * and an HTTPS receiver: 500 failed and dead deliveries in the window come back once each, no
 * faster than the per-subscription cap, and a repeated call queues nothing twice.
 */
const OWNER = "client-recovery";
const CAP = 4;
const MINUTE = 60_000;
let ca: TestCa;
let receiver: Receiver;
let h: Harness;

beforeAll(async () => {
  ca = createTestCa();
  receiver = await startReceiver({ key: ca.serverKey, cert: ca.serverCert });
  h = await startHarness({ resolver: fakeResolver(), caFile: ca.caFile });
  await h.startDispatcher({
    WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION: String(CAP),
    WEBHOOK_DELIVERY_CONCURRENCY: "64",
    // Messages beyond the cap go back to the stream for at most this long (the default, 60 s,
    // would stretch the test on a loaded machine without changing what it checks).
    WEBHOOK_SUBSCRIPTION_MAX_DEFER_MS: "1000",
    // A message held longer than the ack wait is handed out again (the crash recovery, which
    // may POST twice); on a loaded machine 5 s can pass while one waits its turn. Not what this
    // test is about, so the ack wait is long.
    WEBHOOK_DELIVERY_ACK_WAIT_MS: "60000",
  });
});
afterAll(async () => {
  await h?.close();
  await receiver?.close();
  ca?.dispose();
});

let paths = 0;
async function subscribe(owner = OWNER): Promise<{ id: string; path: string }> {
  const path = `/recover/${++paths}`;
  // Slow enough that the cap, not the receiver, bounds how many POSTs are open at once.
  receiver.setBehaviour(path, () => ({ status: 204, delayMs: 15 }));
  const res = await h.api(owner, "POST", "/v1/webhooks", {
    url: receiver.url(path),
    event_types: ["vacancy.updated"],
  });
  expect(res.status).toBe(201);
  receiver.setSecrets(path, [res.body.data.secret]);
  return { id: res.body.data.webhook_uuid as string, path };
}

type Seed = { status: "succeeded" | "failed" | "dead"; createdAt: Date };

/**
 * Deliveries as the dispatcher leaves them after an outage (one event each, a real payload),
 * written in one statement; returns their ids.
 */
async function seed(subscriptionId: string, seeds: Seed[]): Promise<string[]> {
  const ids = seeds.map(() => randomUUID());
  const events = seeds.map(() =>
    buildEvent({ type: "vacancy.updated", entityId: randomUUID(), publicBaseUrl: PUBLIC_BASE_URL }),
  );
  await h.pool.query(
    `WITH input AS (
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::timestamptz[])
         AS i(id, event_uuid, body, status, created_at)),
     e AS (
       INSERT INTO webhooks.events (event_uuid, event_type, body, received_at)
       SELECT event_uuid, 'vacancy.updated', body, created_at FROM input)
     INSERT INTO webhooks.deliveries (id, subscription_id, event_uuid, event_type, status, failure_reason,
       round, round_attempts, attempt_count, last_status_code, last_attempt_at, queued_at, created_at, updated_at)
     SELECT id, $6, event_uuid, 'vacancy.updated', status,
       CASE status WHEN 'dead' THEN 'attempts_exhausted' WHEN 'failed' THEN 'http_status' END,
       1, CASE status WHEN 'dead' THEN 6 ELSE 1 END, CASE status WHEN 'dead' THEN 6 ELSE 1 END,
       CASE status WHEN 'succeeded' THEN 204 WHEN 'failed' THEN 410 ELSE 503 END,
       created_at, created_at, created_at, created_at
     FROM input`,
    [
      ids,
      events.map((e) => e.event_uuid),
      events.map((e) => JSON.stringify(e)),
      seeds.map((s) => s.status),
      seeds.map((s) => s.createdAt),
      subscriptionId,
    ],
  );
  return ids;
}

async function statusCounts(subscriptionId: string, ids: string[]) {
  const { rows } = await h.pool.query<{ status: string; round: number; n: string }>(
    `SELECT status, round, count(*) AS n FROM webhooks.deliveries
     WHERE subscription_id = $1 AND id = ANY($2::uuid[]) GROUP BY status, round ORDER BY status, round`,
    [subscriptionId, ids],
  );
  return rows.map((r) => ({ status: r.status, round: r.round, n: Number(r.n) }));
}

const recover = (id: string, body: unknown, owner = OWNER) =>
  h.api(owner, "POST", `/v1/webhooks/${id}/recover`, body);

describe("POST /v1/webhooks/{webhook_uuid}/recover", () => {
  it("redelivers each of 500 failed and dead deliveries in the window once, never more than the per-subscription cap at a time; a repeated call queues nothing", async () => {
    const target = await subscribe();
    const neighbour = await subscribe();
    const now = Date.now();
    const since = new Date(now - 60 * MINUTE);
    const until = new Date(now - 10 * MINUTE);
    const inWindow = (i: number, n: number) =>
      new Date(since.getTime() + Math.floor((i * (until.getTime() - since.getTime())) / n));
    // In the window: 450 dead and 50 failed (the first exactly at `since`: inclusive).
    const wanted = await seed(target.id, [
      ...Array.from({ length: 450 }, (_, i) => ({
        status: "dead" as const,
        createdAt: inWindow(i, 450),
      })),
      ...Array.from({ length: 50 }, (_, i) => ({
        status: "failed" as const,
        createdAt: inWindow(i, 50),
      })),
    ]);
    // Left alone: succeeded ones in the window, dead ones before it and at `until` (exclusive).
    const succeeded = await seed(
      target.id,
      Array.from({ length: 20 }, (_, i) => ({ status: "succeeded", createdAt: inWindow(i, 20) })),
    );
    const outside = await seed(target.id, [
      ...Array.from({ length: 30 }, (_, i) => ({
        status: "dead" as const,
        createdAt: new Date(since.getTime() - 1 - i * 1_000),
      })),
      ...Array.from({ length: 30 }, (_, i) => ({
        status: "dead" as const,
        createdAt: new Date(until.getTime() + i * 1_000),
      })),
    ]);
    // Another subscription's dead deliveries in the same window.
    const others = await seed(
      neighbour.id,
      Array.from({ length: 50 }, (_, i) => ({ status: "dead", createdAt: inWindow(i, 50) })),
    );

    const window = { since: since.toISOString(), until: until.toISOString() };
    const first = await recover(target.id, window);
    expect(first.status, first.text).toBe(202);
    expect(first.body.success).toBe(true);
    expect(first.body.data).toEqual({
      webhook_uuid: target.id,
      since: since.toISOString().replace("Z", "+00:00"),
      until: until.toISOString().replace("Z", "+00:00"),
      queued: 500,
    });
    // Again while they are pending (most not yet attempted): nothing is queued twice.
    const second = await recover(target.id, window);
    expect(second.status).toBe(202);
    expect(second.body.data.queued).toBe(0);

    await waitFor(
      "the 500 recovered deliveries to succeed",
      async () =>
        (await statusCounts(target.id, wanted)).some(
          (c) => c.status === "succeeded" && c.n === 500,
        ),
      150_000,
      200,
    );
    await sleep(1_000); // room for a duplicate POST, if any were coming
    const posts = receiver.received(target.path);
    expect(posts).toHaveLength(500);
    expect(new Set(posts.map((p) => p.deliveryId))).toEqual(new Set(wanted));
    expect(receiver.maxConcurrent(target.path)).toBeLessThanOrEqual(CAP);
    // The cap really was what held them back: it was reached.
    expect(receiver.maxConcurrent(target.path)).toBe(CAP);
    // Each came back as a second round, after six (dead) or one (failed) attempts before.
    expect(await statusCounts(target.id, wanted)).toEqual([
      { status: "succeeded", round: 2, n: 500 },
    ]);
    expect(await statusCounts(target.id, succeeded)).toEqual([
      { status: "succeeded", round: 1, n: 20 },
    ]);
    expect(await statusCounts(target.id, outside)).toEqual([{ status: "dead", round: 1, n: 60 }]);
    expect(await statusCounts(neighbour.id, others)).toEqual([{ status: "dead", round: 1, n: 50 }]);
    expect(receiver.received(neighbour.path)).toHaveLength(0);

    // Now they succeeded: a third call finds nothing to recover.
    const third = await recover(target.id, window);
    expect(third.body.data.queued).toBe(0);
    // Without `until` the window ends now, and takes the 30 after the old `until`.
    const rest = await recover(target.id, { since: since.toISOString() });
    expect(rest.status).toBe(202);
    expect(rest.body.data.queued).toBe(30);
    expect(Date.parse(rest.body.data.until)).toBeGreaterThanOrEqual(now);
  }, 200_000);

  it("answers 422 naming the field for a missing, malformed or out-of-range window", async () => {
    const { id } = await subscribe();
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    const cases: Array<[unknown, string, RegExp]> = [
      [{}, "since", /./],
      [{ since: "yesterday" }, "since", /date-time with offset/],
      [{ since: "2026-11-27" }, "since", /not a date/],
      [{ since: "2026-11-27T08:00:00" }, "since", /offset/],
      [{ since: "2026-02-30T08:00:00Z" }, "since", /real calendar date/],
      [{ since: 1_795_766_813 }, "since", /string/],
      [{ since: iso(now - 31 * 86_400_000) }, "since", /retention period \(the last 30 days\)/],
      [{ since: iso(now + MINUTE) }, "since", /in the past/],
      [{ since: iso(now - MINUTE), until: iso(now - 2 * MINUTE) }, "until", /later than since/],
      [{ since: iso(now - MINUTE), until: iso(now - MINUTE) }, "until", /later than since/],
      [{ since: iso(now - MINUTE), status: "dead" }, "status", /not a known field/],
    ];
    for (const [body, field, message] of cases) {
      const res = await recover(id, body);
      const why = `${JSON.stringify(body)}: ${res.text}`;
      expect(res.status, why).toBe(422);
      expect(res.body.success, why).toBe(false);
      expect(res.body.error.code, why).toBe("VALIDATION_ERROR");
      expect(res.body.error.details, why).toContainEqual({
        field,
        message: expect.stringMatching(message),
      });
    }
  });

  it("is 404 for another client's subscription, 409 while disabled, 403 without webhooks:write", async () => {
    const { id } = await subscribe();
    const body = { since: new Date(Date.now() - MINUTE).toISOString() };
    const foreign = await recover(id, body, "client-someone-else");
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe("NOT_FOUND");
    const readOnly = await h.api(
      OWNER,
      "POST",
      `/v1/webhooks/${id}/recover`,
      body,
      "webhooks:read",
    );
    expect(readOnly.status).toBe(403);
    expect(readOnly.body.error.code).toBe("INSUFFICIENT_SCOPE");
    await h.api(OWNER, "PATCH", `/v1/webhooks/${id}`, { enabled: false });
    const disabled = await recover(id, body);
    expect(disabled.status).toBe(409);
    expect(disabled.body.error.code).toBe("CONFLICT");
    expect(disabled.body.error.message).toMatch(/disabled/);
  });
});
