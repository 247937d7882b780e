import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RetentionStore } from "../src/domain/ports.ts";
import { purgeExpired } from "../src/workers/retention/retention-job.ts";
import { PgRetentionStore } from "../src/store/pg-retention-store.ts";
import { startReceiver, type Receiver } from "./support/receiver.ts";
import { createTestCa, type TestCa } from "@svc/testing";
import { fakeResolver, startHarness, waitFor, type Harness } from "./support/harness.ts";

const DAY = 86_400_000;
const RETENTION = { retentionMs: 30 * DAY, eventsRetentionMs: 30 * DAY, batchSize: 500 };
let h: Harness;
let ca: TestCa;
let receiver: Receiver;
let store: PgRetentionStore;

beforeAll(async () => {
  ca = createTestCa();
  receiver = await startReceiver({ key: ca.serverKey, cert: ca.serverCert });
  h = await startHarness({ resolver: fakeResolver(), caFile: ca.caFile });
  store = new PgRetentionStore(h.pool);
});
afterAll(async () => {
  await h?.close();
  await receiver?.close();
  ca?.dispose();
});

const daysAgo = (days: number) => new Date(Date.now() - days * DAY);
let subscriptions = 0;

async function subscription(owner: string): Promise<string> {
  const res = await h.api(owner, "POST", "/v1/webhooks", {
    url: `https://127.0.0.1:9/retention/${++subscriptions}`,
    event_types: ["vacancy.updated"],
  });
  expect(res.status).toBe(201);
  return res.body.data.webhook_uuid as string;
}

async function event(receivedDaysAgo: number): Promise<string> {
  const id = randomUUID();
  await h.pool.query(
    "INSERT INTO webhooks.events (event_uuid, event_type, body, received_at) VALUES ($1, 'vacancy.updated', '{}', $2)",
    [id, daysAgo(receivedDaysAgo)],
  );
  return id;
}

type Fixture = {
  status: "pending" | "succeeded" | "failed" | "dead";
  finishedDaysAgo: number;
  attempts?: number;
  eventUuid?: string;
};

/** A delivery as the dispatcher leaves it: `finishedDaysAgo` is its last change (updated_at). */
async function delivery(
  subscriptionId: string,
  f: Fixture,
): Promise<{ id: string; eventUuid: string }> {
  const eventUuid = f.eventUuid ?? (await event(f.finishedDaysAgo + 1));
  const id = randomUUID();
  const attempts = f.attempts ?? (f.status === "dead" ? 6 : 1);
  const failure = {
    pending: null,
    succeeded: null,
    failed: "http_status",
    dead: "attempts_exhausted",
  }[f.status];
  await h.pool.query(
    `INSERT INTO webhooks.deliveries (id, subscription_id, event_uuid, event_type, status, failure_reason, round, round_attempts, attempt_count,
       last_attempt_at, next_attempt_at, queued_at, created_at, updated_at)
     VALUES ($1, $2, $3, 'vacancy.updated', $4, $5, 1, $6, $6, $7, $8, $9, $9, $7)`,
    [
      id,
      subscriptionId,
      eventUuid,
      f.status,
      failure,
      attempts,
      daysAgo(f.finishedDaysAgo),
      f.status === "pending" ? new Date() : null,
      daysAgo(f.finishedDaysAgo + 1),
    ],
  );
  for (let n = 1; n <= attempts; n++) {
    await h.pool.query(
      `INSERT INTO webhooks.delivery_attempts (delivery_id, number, round, attempted_at, duration_ms, status_code, outcome)
       VALUES ($1, $2, 1, $3, 5, 503, $4)`,
      [
        id,
        n,
        daysAgo(f.finishedDaysAgo),
        n === attempts && f.status !== "pending" ? f.status : "retrying",
      ],
    );
  }
  return { id, eventUuid };
}

const count = async (sql: string, values: unknown[]) =>
  Number((await h.pool.query<{ n: string }>(sql, values)).rows[0]!.n);
const deliveryExists = async (id: string) =>
  (await count("SELECT count(*) AS n FROM webhooks.deliveries WHERE id = $1", [id])) === 1;
const attemptsOf = (id: string) =>
  count("SELECT count(*) AS n FROM webhooks.delivery_attempts WHERE delivery_id = $1", [id]);
const eventExists = async (id: string) =>
  (await count("SELECT count(*) AS n FROM webhooks.events WHERE event_uuid = $1", [id])) === 1;

describe("the retention pass", () => {
  it("deletes finished deliveries older than the retention with their attempts, and keeps recent and pending ones", async () => {
    const owner = "client-retention-1";
    const sub = await subscription(owner);
    const oldSucceeded = await delivery(sub, {
      status: "succeeded",
      finishedDaysAgo: 40,
      attempts: 2,
    });
    const oldFailed = await delivery(sub, { status: "failed", finishedDaysAgo: 31 });
    const oldDead = await delivery(sub, { status: "dead", finishedDaysAgo: 90 });
    const recentSucceeded = await delivery(sub, { status: "succeeded", finishedDaysAgo: 1 });
    const recentDead = await delivery(sub, { status: "dead", finishedDaysAgo: 29 });
    // Pending however old: retrying (attempts made), or never attempted.
    const oldRetrying = await delivery(sub, {
      status: "pending",
      finishedDaysAgo: 45,
      attempts: 3,
    });
    const oldUntried = await delivery(sub, { status: "pending", finishedDaysAgo: 60, attempts: 0 });
    expect(await attemptsOf(oldSucceeded.id)).toBe(2);

    const run = await purgeExpired(store, RETENTION, new Date());

    for (const gone of [oldSucceeded, oldFailed, oldDead]) {
      expect(await deliveryExists(gone.id)).toBe(false);
      expect(await attemptsOf(gone.id)).toBe(0);
      expect(await eventExists(gone.eventUuid)).toBe(false);
    }
    for (const kept of [recentSucceeded, recentDead, oldRetrying, oldUntried]) {
      expect(await deliveryExists(kept.id)).toBe(true);
      expect(await eventExists(kept.eventUuid)).toBe(true);
    }
    expect(await attemptsOf(oldRetrying.id)).toBe(3);
    expect(await attemptsOf(recentDead.id)).toBe(6);
    expect(run.deliveries).toBe(3);
  });

  it("deletes old events no delivery references and keeps those still referenced or recent", async () => {
    const sub = await subscription("client-retention-2");
    const oldOrphan = await event(35); // no subscription wanted it
    const recentOrphan = await event(2);
    const shared = await event(50); // one delivery gone, one still pending
    await delivery(sub, { status: "succeeded", finishedDaysAgo: 40, eventUuid: shared });
    const sub2 = await subscription("client-retention-2");
    const stillPending = await delivery(sub2, {
      status: "pending",
      finishedDaysAgo: 40,
      eventUuid: shared,
    });

    await purgeExpired(store, RETENTION, new Date());

    expect(await eventExists(oldOrphan)).toBe(false);
    expect(await eventExists(recentOrphan)).toBe(true);
    expect(await eventExists(shared)).toBe(true);
    expect(await deliveryExists(stillPending.id)).toBe(true);
  });

  it("works in statements of at most the batch size", async () => {
    const sub = await subscription("client-retention-3");
    const made = [];
    for (let i = 0; i < 25; i++)
      made.push(
        await delivery(sub, { status: "succeeded", finishedDaysAgo: 100 + i, attempts: 2 }),
      );
    const ofThis = () =>
      count("SELECT count(*) AS n FROM webhooks.deliveries WHERE subscription_id = $1", [sub]);
    const cutoff = daysAgo(30);

    // One statement deletes exactly the batch size, the oldest first.
    expect(await store.purgeFinishedDeliveries(cutoff, 10)).toBe(10);
    expect(await ofThis()).toBe(15);
    expect(await deliveryExists(made[24]!.id)).toBe(false); // 124 days: among the oldest
    expect(await deliveryExists(made[0]!.id)).toBe(true); // 100 days: among the youngest

    // A whole pass, watched statement by statement at the database.
    const sizes: number[] = [];
    const watched: RetentionStore = {
      purgeFinishedDeliveries: async (c, limit) => {
        const before = await ofThis();
        const n = await store.purgeFinishedDeliveries(c, limit);
        sizes.push(before - (await ofThis()));
        return n;
      },
      purgeEndedPortalSessions: (c, limit) => store.purgeEndedPortalSessions(c, limit),
      purgeUnreferencedEvents: (c, limit, after) => store.purgeUnreferencedEvents(c, limit, after),
    };
    const run = await purgeExpired(watched, { ...RETENTION, batchSize: 4 }, new Date());
    expect(await ofThis()).toBe(0);
    expect(sizes.every((n) => n <= 4)).toBe(true);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(15);
    expect(run.statements).toBeGreaterThanOrEqual(Math.ceil(15 / 4) + Math.ceil(25 / 4));
    for (const d of made) expect(await eventExists(d.eventUuid)).toBe(false);
  });

  it("walks past old events that are still referenced instead of stopping at them", async () => {
    const sub = await subscription("client-retention-4");
    // Six old events at the front of the walk, all still referenced by pending deliveries ...
    for (let i = 0; i < 6; i++)
      await delivery(sub, { status: "pending", finishedDaysAgo: 300 + i });
    // ... and behind them old unreferenced ones.
    const orphans = [];
    for (let i = 0; i < 5; i++) orphans.push(await event(200 + i));
    await purgeExpired(store, { ...RETENTION, batchSize: 3 }, new Date());
    for (const e of orphans) expect(await eventExists(e)).toBe(false);
  });

  it("skips a delivery a redelivery is changing at that moment, and it stays pending", async () => {
    const sub = await subscription("client-retention-5");
    const d = await delivery(sub, { status: "failed", finishedDaysAgo: 40 });
    const client = await h.pool.connect();
    try {
      await client.query("BEGIN");
      await client.query("SELECT 1 FROM webhooks.deliveries WHERE id = $1 FOR UPDATE", [d.id]);
      await purgeExpired(store, RETENTION, new Date());
      expect(await deliveryExists(d.id)).toBe(true);
      await client.query(
        "UPDATE webhooks.deliveries SET status = 'pending', round = round + 1, updated_at = now() WHERE id = $1",
        [d.id],
      );
      await client.query("COMMIT");
    } finally {
      client.release();
    }
    await purgeExpired(store, RETENTION, new Date());
    expect(await deliveryExists(d.id)).toBe(true);
  });

  it("deletes each row once when two replicas run at the same time", async () => {
    const sub = await subscription("client-retention-6");
    for (let i = 0; i < 40; i++) await delivery(sub, { status: "dead", finishedDaysAgo: 60 + i });
    const runs = await Promise.all([
      purgeExpired(store, { ...RETENTION, batchSize: 5 }, new Date()),
      purgeExpired(store, { ...RETENTION, batchSize: 5 }, new Date()),
    ]);
    expect(runs[0]!.deliveries + runs[1]!.deliveries).toBe(40);
    expect(
      await count("SELECT count(*) AS n FROM webhooks.deliveries WHERE subscription_id = $1", [
        sub,
      ]),
    ).toBe(0);
  });

  it("deletes portal sessions that ended longer ago than the retention, and keeps the others", async () => {
    const session = async (endedDaysAgo: number) => {
      const id = randomUUID();
      await h.pool.query(
        `INSERT INTO webhooks.portal_sessions (id, client_id, read_only, scopes, token_hash, created_at, expires_at)
         VALUES ($1, 'client-retention-portal', false, '{webhooks:read}', 'h', $2, $2)`,
        [id, daysAgo(endedDaysAgo)],
      );
      return id;
    };
    const old = [await session(40), await session(31)];
    const recent = [await session(29), await session(-0.01)];
    const run = await purgeExpired(store, { ...RETENTION, batchSize: 1 }, new Date());
    expect(run.portalSessions).toBeGreaterThanOrEqual(2);
    const { rows } = await h.pool.query<{ id: string }>(
      "SELECT id FROM webhooks.portal_sessions WHERE client_id = 'client-retention-portal'",
    );
    expect(rows.map((r) => r.id).sort()).toEqual([...recent].sort());
    expect(old.every((id) => !rows.some((r) => r.id === id))).toBe(true);
  });

  it("keeps events for the events feed's retention, not the deliveries', and prunes them after it", async () => {
    const sub = await subscription("client-retention-feed");
    const orphan10 = await event(10);
    const orphan3 = await event(3);
    // Its delivery finished long enough ago for the deliveries' retention (2 days) to take it.
    const delivered10 = await delivery(sub, { status: "succeeded", finishedDaysAgo: 9 });
    const feedWeek = { ...RETENTION, retentionMs: 2 * DAY, eventsRetentionMs: 7 * DAY };

    await purgeExpired(store, feedWeek, new Date());

    expect(await deliveryExists(delivered10.id)).toBe(false);
    expect(await eventExists(orphan10)).toBe(false);
    expect(await eventExists(delivered10.eventUuid)).toBe(false);
    expect(await eventExists(orphan3)).toBe(true);

    // A week of feed with deliveries kept a month: an unreferenced event still goes after a week.
    const orphan8 = await event(8);
    await purgeExpired(store, { ...feedWeek, retentionMs: 30 * DAY }, new Date());
    expect(await eventExists(orphan8)).toBe(false);
    expect(await eventExists(orphan3)).toBe(true);
  });
});

describe("the API after retention", () => {
  it("no longer lists or reads purged deliveries, and still redelivers a failed one inside the window", async () => {
    const owner = "client-retention-api";
    const sub = await subscription(owner);
    const purged = await delivery(sub, { status: "dead", finishedDaysAgo: 31 });
    const inWindow = await delivery(sub, { status: "failed", finishedDaysAgo: 29 });
    const listed = async () =>
      (await h.api(owner, "GET", `/v1/webhooks/${sub}/deliveries?per_page=100`)).body.data.map(
        (d: { delivery_uuid: string }) => d.delivery_uuid,
      );
    expect(await listed()).toEqual(expect.arrayContaining([purged.id, inWindow.id]));

    await purgeExpired(store, RETENTION, new Date());

    expect(await listed()).toEqual([inWindow.id]);
    const list = await h.api(owner, "GET", `/v1/webhooks/${sub}/deliveries`);
    expect(list.body.meta.pagination.total).toBe(1);
    expect((await h.api(owner, "GET", `/v1/webhooks/${sub}/deliveries/${purged.id}`)).status).toBe(
      404,
    );
    expect(
      (await h.api(owner, "POST", `/v1/webhooks/${sub}/deliveries/${purged.id}/redeliver`)).status,
    ).toBe(404);
    const redelivered = await h.api(
      owner,
      "POST",
      `/v1/webhooks/${sub}/deliveries/${inWindow.id}/redeliver`,
    );
    expect(redelivered.status).toBe(202);
    expect(redelivered.body.data.status).toBe("pending");
    // A new round restarts the clock: even a pass as if 29 more days had gone by keeps it.
    await purgeExpired(store, RETENTION, new Date(Date.now() + 29 * DAY));
    expect(await deliveryExists(inWindow.id)).toBe(true);
  });
});

// Last: a running dispatcher deletes rows behind the other tests' backs.
describe("the dispatcher", () => {
  it("runs retention by itself: aged deliveries it made go, fresh ones stay", async () => {
    const owner = "client-retention-live";
    const path = "/retention/live";
    const res = await h.api(owner, "POST", "/v1/webhooks", {
      url: receiver.url(path),
      event_types: ["vacancy.created"],
    });
    expect(res.status).toBe(201);
    receiver.setSecrets(path, [res.body.data.secret]);
    const sub = res.body.data.webhook_uuid as string;
    await h.startDispatcher({
      WEBHOOK_RETENTION_SWEEP_MS: "1000",
      WEBHOOK_RETENTION_BATCH_SIZE: "2",
    });
    const [aged, fresh] = [
      await h.publishEvent("vacancy.created"),
      await h.publishEvent("vacancy.created"),
    ];
    const succeeded = async () =>
      (await h.api(owner, "GET", `/v1/webhooks/${sub}/deliveries?status=succeeded`)).body
        .data as Array<{ delivery_uuid: string; event_uuid: string }>;
    const both = await waitFor("both deliveries to succeed", async () =>
      (await succeeded()).length === 2 ? succeeded() : undefined,
    );
    const agedId = both.find((d) => d.event_uuid === aged.event_uuid)!.delivery_uuid;
    expect(await attemptsOf(agedId)).toBe(1);

    await h.pool.query(
      "UPDATE webhooks.deliveries SET updated_at = updated_at - interval '31 days' WHERE id = $1",
      [agedId],
    );
    await h.pool.query(
      "UPDATE webhooks.events SET received_at = received_at - interval '31 days' WHERE event_uuid = $1",
      [aged.event_uuid],
    );

    await waitFor(
      "the aged delivery to be deleted",
      async () => !(await deliveryExists(agedId)),
      15_000,
      200,
    );
    expect(await attemptsOf(agedId)).toBe(0);
    // Its event goes in a later statement of the same pass (deliveries first, then the events they
    // freed).
    await waitFor(
      "the aged event to be deleted",
      async () => !(await eventExists(aged.event_uuid)),
      15_000,
      200,
    );
    expect((await succeeded()).map((d) => d.event_uuid)).toEqual([fresh.event_uuid]);
  });
});
