import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type pg from "pg";
import { buildEvent, type EventType } from "@svc/events";
import {
  fakeResolver,
  PUBLIC_BASE_URL,
  startHarness,
  waitFor,
  type ApiBody,
  type Harness,
} from "./support/harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ resolver: fakeResolver() });
});
afterAll(async () => {
  await h?.close();
});

const DAY = 86_400_000;
const EVERY_KIND =
  "webhooks:read vacancies:read practices:read candidates:read applications:read recruitment-cases:read";

/** Reads the feed as `scope` (every kind by default). */
const feed = (path: string, scope = EVERY_KIND, client = "feed-reader") =>
  h.api<ApiBody>(client, "GET", path, undefined, scope);

/** An event row as the fan-out writes it (its own transaction unless `client` is given). */
async function insertEvent(
  type: EventType,
  options: { receivedAt?: Date; client?: pg.PoolClient } = {},
): Promise<string> {
  const event = buildEvent({ type, entityId: randomUUID(), publicBaseUrl: PUBLIC_BASE_URL });
  await (options.client ?? h.pool).query(
    "INSERT INTO webhooks.events (event_uuid, event_type, body, received_at) VALUES ($1, $2, $3, $4)",
    [event.event_uuid, type, JSON.stringify(event), options.receivedAt ?? new Date()],
  );
  return event.event_uuid;
}

/**
 * A reader following the cursor from `first`. The feed holds events back while any older
 * transaction of the PostgreSQL cluster runs (other test files share it), so presence is awaited.
 */
function follower(first: string, scope = EVERY_KIND) {
  const seen: string[] = [];
  let path = first;
  /** Reads until caught up. */
  const poll = async (): Promise<string[]> => {
    for (;;) {
      const res = await feed(path, scope);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      seen.push(...res.body.data.map((e: { event_uuid: string }) => e.event_uuid));
      const pagination = res.body.meta.pagination;
      path = `/v1/events?cursor=${pagination.next_cursor}&per_page=${pagination.per_page}`;
      if (!pagination.has_more) return seen;
    }
  };
  /** Polls until every id in `ids` was seen. */
  const until = (ids: string[]) =>
    waitFor(`${ids.length} events in the feed`, async () => {
      await poll();
      return ids.every((id) => seen.includes(id)) ? seen : undefined;
    });
  return { seen, poll, until };
}

describe("the events feed", () => {
  it("lists every event the dispatcher received, subscribed to or not, with the exact delivered body; pings are not in it", async () => {
    await h.startDispatcher();
    const sub = await h.api("feed-owner", "POST", "/v1/webhooks", {
      url: "https://127.0.0.1:9/feed",
      event_types: ["vacancy.created"],
    });
    expect(sub.status).toBe(201);
    const subscribed = await h.publishEvent("vacancy.created");
    const unsubscribed = await h.publishEvent("practice.deleted");
    const ping = await h.api(
      "feed-owner",
      "POST",
      `/v1/webhooks/${sub.body.data.webhook_uuid}/test`,
    );
    expect(ping.status).toBe(202);

    const listed = await waitFor("both events in the feed", async () => {
      const res = await feed("/v1/events?type=vacancy.created,practice.deleted&per_page=100");
      const ids = res.body.data.map((e: { event_uuid: string }) => e.event_uuid);
      return ids.includes(subscribed.event_uuid) && ids.includes(unsubscribed.event_uuid)
        ? res.body.data
        : undefined;
    });
    const item = listed.find((e: { event_uuid: string }) => e.event_uuid === subscribed.event_uuid);
    expect(item.event_type).toBe("vacancy.created");
    expect(item.payload).toEqual(subscribed);
    // The signed body is the stored text; the payload serialised compactly is that text.
    const stored = await h.pool.query<{ body: string }>(
      "SELECT body FROM webhooks.events WHERE event_uuid = $1",
      [subscribed.event_uuid],
    );
    expect(JSON.stringify(item.payload)).toBe(stored.rows[0]!.body);

    const all = await follower("/v1/events?per_page=100").until([unsubscribed.event_uuid]);
    expect(all).not.toContain(ping.body.data.event_uuid);
    const one = await feed(`/v1/events/${ping.body.data.event_uuid}`);
    expect(one.status).toBe(404);
    expect(
      await h.pool.query("SELECT 1 FROM webhooks.events WHERE event_type = 'system.ping'"),
    ).toHaveProperty("rowCount", 1);
  });

  it("shows each kind only to a token with the scope that reads its entity", async () => {
    const vacancy = await insertEvent("vacancy.updated");
    const practice = await insertEvent("practice.updated");
    const vacanciesOnly = "webhooks:read vacancies:read";

    const seen = await follower("/v1/events?per_page=100", vacanciesOnly).until([vacancy]);
    expect(seen).not.toContain(practice);
    expect((await feed(`/v1/events/${vacancy}`, vacanciesOnly)).status).toBe(200);
    expect((await feed(`/v1/events/${practice}`, vacanciesOnly)).status).toBe(404);
    expect((await feed(`/v1/events/${practice}`)).body.data.event_type).toBe("practice.updated");

    const asked = await feed("/v1/events?type=practice.updated", vacanciesOnly);
    expect(asked.status).toBe(403);
    expect(asked.body.error.code).toBe("INSUFFICIENT_SCOPE");
    expect(asked.headers.get("www-authenticate")).toContain('scope="practices:read"');
    const noFeed = await feed("/v1/events", "vacancies:read");
    expect(noFeed.status).toBe(403);
    expect(noFeed.headers.get("www-authenticate")).toContain('scope="webhooks:read"');
  });

  it("shows a webhooks:read-only token the types its own subscriptions select, and nothing else", async () => {
    const narrow = "webhooks:read";
    // No subscription and no kind's scope: an empty feed, not an error.
    const nothing = await feed("/v1/events", narrow, "feed-subscriber");
    expect(nothing.status).toBe(200);
    expect(nothing.body.data).toEqual([]);
    expect(nothing.body.meta.pagination.has_more).toBe(false);

    const sub = await h.api("feed-subscriber", "POST", "/v1/webhooks", {
      url: "https://127.0.0.1:9/feed-subscriber",
      event_types: ["practice.deleted"],
    });
    expect(sub.status).toBe(201);
    const subscribed = await insertEvent("practice.deleted");
    // Recorded before the windows the other tests filter this type by.
    const other = await insertEvent("recruitment_case.created", {
      receivedAt: new Date(Date.now() - 2 * 3_600_000),
    });
    const seen = await waitFor("the subscribed type in the feed", async () => {
      const res = await feed("/v1/events?per_page=100", narrow, "feed-subscriber");
      expect(res.status).toBe(200);
      const ids = res.body.data.map((e: { event_uuid: string }) => e.event_uuid);
      return ids.includes(subscribed) ? res.body.data : undefined;
    });
    expect(new Set(seen.map((e: { event_type: string }) => e.event_type))).toEqual(
      new Set(["practice.deleted"]),
    );
    expect((await feed(`/v1/events/${subscribed}`, narrow, "feed-subscriber")).status).toBe(200);
    expect((await feed(`/v1/events/${other}`, narrow, "feed-subscriber")).status).toBe(404);
    const asked = await feed("/v1/events?type=recruitment_case.created", narrow, "feed-subscriber");
    expect(asked.status).toBe(403);
    expect(asked.headers.get("www-authenticate")).toContain('scope="recruitment-cases:read"');
    // Another client's subscriptions show it nothing.
    const stranger = await feed("/v1/events?per_page=100", narrow, "feed-stranger");
    expect(stranger.status).toBe(200);
    expect(stranger.body.data).toEqual([]);
    expect((await feed(`/v1/events/${subscribed}`, narrow, "feed-stranger")).status).toBe(404);
  });

  it("filters by type and by the time the event was recorded, and keeps the filters in the cursor", async () => {
    const base = Date.now() - 3 * 60_000;
    const at = (minutes: number) => new Date(base + minutes * 60_000);
    const early = await insertEvent("candidate.created", { receivedAt: at(0) });
    const middle = await insertEvent("candidate.created", { receivedAt: at(1) });
    const otherType = await insertEvent("application.created", { receivedAt: at(1) });
    const late = await insertEvent("candidate.created", { receivedAt: at(2) });
    // All four readable first (another filter than the ones asserted, so no total is counted
    // while the feed still holds them back).
    await follower("/v1/events?type=candidate.created,application.created").until([
      early,
      middle,
      otherType,
      late,
    ]);

    const since = encodeURIComponent(at(1).toISOString());
    const before = encodeURIComponent(at(2).toISOString());
    const first = await feed(
      `/v1/events?type=candidate.created&created_since=${since}&created_before=${before}&per_page=1`,
    );
    expect(first.status).toBe(200);
    expect(first.body.data.map((e: { event_uuid: string }) => e.event_uuid)).toEqual([middle]);
    expect(first.body.meta.pagination).toMatchObject({ page: 1, per_page: 1, total: 1 });

    const inWindow = await follower(
      `/v1/events?type=candidate.created,application.created&created_since=${since}&per_page=1`,
    ).until([middle, otherType, late]);
    expect(inWindow.sort()).toEqual([middle, otherType, late].sort());
    expect(inWindow).not.toContain(early);

    const cursor = first.body.meta.pagination.next_cursor;
    const mixed = await feed(`/v1/events?cursor=${cursor}&type=candidate.created`);
    expect(mixed.status).toBe(422);
    expect(mixed.body.error.details[0].field).toBe("cursor");
  });

  it("pages carry the contract's pagination with a next cursor; page counts the walk", async () => {
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await insertEvent("recruitment_case.created"));
    await follower("/v1/events?type=recruitment_case.created").until(ids);
    // Another filter than the wait's: its total is counted now, with all five readable.
    const since = encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString());
    const first = await feed(
      `/v1/events?type=recruitment_case.created&created_since=${since}&per_page=2`,
    );
    expect(first.body.meta.pagination).toMatchObject({
      page: 1,
      per_page: 2,
      total: 5,
      total_pages: 3,
      has_more: true,
    });
    const second = await feed(
      `/v1/events?cursor=${first.body.meta.pagination.next_cursor}&per_page=2`,
    );
    expect(second.body.meta.pagination).toMatchObject({ page: 2, has_more: true });
    const third = await feed(
      `/v1/events?cursor=${second.body.meta.pagination.next_cursor}&per_page=2`,
    );
    expect(third.body.meta.pagination).toMatchObject({ page: 3, has_more: false });
    const read = [...first.body.data, ...second.body.data, ...third.body.data].map(
      (e: { event_uuid: string }) => e.event_uuid,
    );
    expect(read).toEqual(ids);

    // Caught up: the same cursor again is empty, then shows what arrived since.
    const caughtUp = third.body.meta.pagination.next_cursor;
    const empty = await feed(`/v1/events?cursor=${caughtUp}&per_page=2`);
    expect(empty.body.data).toEqual([]);
    const sixth = await insertEvent("recruitment_case.created");
    const after = await follower(
      `/v1/events?cursor=${empty.body.meta.pagination.next_cursor}`,
    ).until([sixth]);
    expect(after).toEqual([sixth]);
  });

  it("holds back an event committed after a later one, so a reader following the cursor never skips it", async () => {
    const client = await h.pool.connect();
    try {
      await client.query("BEGIN");
      const slow = await insertEvent("vacancy.deleted", { client }); // its transaction began first
      const fast = await insertEvent("vacancy.deleted");
      const before = await feed("/v1/events?type=vacancy.deleted&per_page=100");
      expect(before.body.data).toEqual([]);
      const cursor = before.body.meta.pagination.next_cursor;
      await client.query("COMMIT");
      const seen = await follower(`/v1/events?cursor=${cursor}&per_page=1`).until([slow, fast]);
      expect(seen).toEqual([slow, fast]);
    } finally {
      client.release();
    }
  });

  it("a reader following the cursor during concurrent writers of varying transaction length sees every event exactly once", async () => {
    const written: string[] = [];
    let writing = true;
    const writer = async (n: number) => {
      for (let i = 0; i < 40; i++) {
        const client = await h.pool.connect();
        try {
          await client.query("BEGIN");
          written.push(await insertEvent("practice.created", { client }));
          if ((i + n) % 3 === 0) await new Promise((r) => setTimeout(r, 5 + ((i * n) % 20)));
          await client.query("COMMIT");
        } finally {
          client.release();
        }
      }
    };
    const reader = follower("/v1/events?type=practice.created&per_page=7");
    const reading = (async () => {
      while (writing) await reader.poll();
    })();
    await Promise.all(Array.from({ length: 6 }, (_, n) => writer(n)));
    writing = false;
    await reading;
    const seen = await reader.until(written);
    await reader.poll();
    expect(seen.length).toBe(written.length);
    expect(new Set(seen)).toEqual(new Set(written));
  });

  it("leaves out events past the retention window", async () => {
    const old = await insertEvent("application.created", {
      receivedAt: new Date(Date.now() - 31 * DAY),
    });
    const recent = await insertEvent("application.created", {
      receivedAt: new Date(Date.now() - 29 * DAY),
    });
    const seen = await follower("/v1/events?type=application.created&per_page=100").until([recent]);
    expect(seen).not.toContain(old);
    expect((await feed(`/v1/events/${old}`)).status).toBe(404);
  });

  it("answers bad input with 422, another method with 405", async () => {
    const bad = [
      "/v1/events?type=nope",
      "/v1/events?type=system.ping",
      "/v1/events?cursor=abc",
      `/v1/events?cursor=${Buffer.from('{"v":1,"x":"1 OR 1=1"}').toString("base64url")}`,
      "/v1/events?created_since=yesterday",
      "/v1/events?per_page=101",
      "/v1/events?unknown=1",
      "/v1/events/not-a-uuid",
    ];
    for (const path of bad) {
      const res = await feed(path);
      expect(res.status, path).toBe(422);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
    }
    const post = await h.api("feed-reader", "POST", "/v1/events", {}, EVERY_KIND);
    expect(post.status).toBe(405);
  });
});
