/**
 * A dispatcher killed (SIGKILL) while slow subscribers hold its POSTs: its in-flight deliveries
 * are taken over by the next dispatcher within the deliveries consumer's ack wait (the default,
 * 10 s), although each of those POSTs ran longer than the ack wait before the kill (the consumer
 * marks a running attempt's message in progress). Every event is delivered; the POSTs the killed
 * dispatcher never saw answered are sent again, with the same X-SVC-Event-Id and body, and
 * counted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildEvent, type EventPayload } from "@svc/events";
import {
  ensureStream,
  eventsStreamConfig,
  jetstream,
  jetstreamManager,
  publish,
} from "@svc/messaging";
import { createTestCa, type TestCa } from "@svc/testing";
import { spawnDispatcher } from "../../services/webhooks/test/support/dispatcher-process.ts";
import { killHard } from "../../services/webhooks/test/support/private-nats.ts";
import {
  startReceiver,
  type Received,
  type Receiver,
} from "../../services/webhooks/test/support/receiver.ts";
import {
  allDeliveriesSucceeded,
  fakeResolver,
  PUBLIC_BASE_URL,
  sleep,
  startHarness,
  waitFor,
  type Harness,
} from "../../services/webhooks/test/support/harness.ts";

const EVENTS = 16;
const PATHS = ["/slow/a", "/slow/b"];
const EXPECTED = EVENTS * PATHS.length;
/** The takeover bound: the deliveries consumer's default ack wait (10 s) plus a busy machine. */
const TAKEOVER_BOUND_MS = 15_000;
/**
 * Half the events are held 5-8 s, half 15-20 s. The kill comes once every short POST has been
 * answered (and at least 12 s, more than the ack wait, after the first POST), while the long ones
 * are still held by the subscriber.
 */
const holdFor = (i: number) => (i % 2 === 0 ? 5_000 + (i % 8) * 400 : 15_000 + (i % 6) * 1_000);
const KILL_AFTER_FIRST_POST_MS = 12_000;
/** A POST answered this close to the kill could go either way; the kill time avoids any. */
const MARGIN_MS = 1_000;
const LONGEST_HOLD_MS = 20_000;

let ca: TestCa;
let receiver: Receiver;
let h: Harness;
const children: Array<ReturnType<typeof spawnDispatcher>> = [];

beforeAll(async () => {
  ca = createTestCa();
  receiver = await startReceiver({ key: ca.serverKey, cert: ca.serverCert });
  h = await startHarness({ resolver: fakeResolver(), caFile: ca.caFile });
  await ensureStream(await jetstreamManager(h.nc), eventsStreamConfig(h.n));
});
afterAll(async () => {
  await Promise.all(children.map((c) => killHard(c)));
  await h?.close();
  await receiver?.close();
  ca?.dispose();
});

describe("a dispatcher killed while subscribers hold its POSTs", () => {
  it("has its in-flight deliveries taken over within the ack wait; every event is delivered, duplicates carry the same X-SVC-Event-Id and body", async () => {
    const events: EventPayload[] = Array.from({ length: EVENTS }, (_, i) =>
      buildEvent({ type: "vacancy.updated", entityId: `t${i}`, publicBaseUrl: PUBLIC_BASE_URL }),
    );
    const hold = new Map(events.map((e, i) => [e.event_uuid, holdFor(i)]));
    for (const path of PATHS) {
      // A subscriber that processes each new event slowly, and (as the contract asks) answers a
      // duplicate of one it already took with 2xx at once.
      receiver.setBehaviour(path, (_n, eventId) => ({ status: 200, delayMs: hold.get(eventId) }));
      const res = await h.api("client-takeover", "POST", "/v1/webhooks", {
        url: receiver.url(path),
        event_types: ["vacancy.updated"],
      });
      expect(res.status).toBe(201);
      receiver.setSecrets(path, [res.body.data.secret]);
    }
    // The attempt timeout outlasts the longest hold; the ack wait is the default.
    const env = {
      ...h.env,
      LOG_LEVEL: "warn",
      INTERNAL_PORT: "0",
      WEBHOOK_ATTEMPT_TIMEOUT_MS: "30000",
    };
    const ours = () => receiver.received().filter((r) => PATHS.includes(r.path));
    const first = spawnDispatcher(env);
    children.push(first);

    const js = jetstream(h.nc);
    await Promise.all(
      events.map((e) => publish(js, h.n.eventSubject(e.event_type), e, { msgId: e.event_uuid })),
    );
    await waitFor(
      `all ${EXPECTED} first POSTs (dispatcher output: ${first.output().slice(-1_000)})`,
      () => ours().length >= EXPECTED,
      30_000,
      20,
    );
    const firstPosts = ours();
    const answeredAt = (r: Received) => r.at + hold.get(r.eventId)!;
    const firstPostAt = Math.min(...firstPosts.map((r) => r.at));
    const shortDone = Math.max(
      ...firstPosts.filter((r) => hold.get(r.eventId)! < 10_000).map(answeredAt),
    );
    await sleep(
      Math.max(shortDone + MARGIN_MS, firstPostAt + KILL_AFTER_FIRST_POST_MS) - Date.now(),
    );
    // Every long POST has been running longer than the ack wait: none was sent twice meanwhile.
    const beforeKill = ours();
    expect(beforeKill).toHaveLength(EXPECTED);

    await killHard(first);
    const killedAt = Date.now();
    // Which POSTs the subscriber was still holding when the dispatcher died.
    const heldAtKill = firstPosts
      .filter((r) => answeredAt(r) > killedAt)
      .map((r) => `${r.path}|${r.eventId}`);
    expect(
      firstPosts.filter((r) => Math.abs(answeredAt(r) - killedAt) < MARGIN_MS),
      "a POST answered around the kill (the first POSTs came too far apart)",
    ).toEqual([]);
    const second = spawnDispatcher(env);
    children.push(second);

    const retaken = () => ours().filter((r) => r.at >= killedAt);
    const mustRetake = heldAtKill.length;
    await waitFor(
      `the ${mustRetake} deliveries held at the kill to be sent again (output: ${second.output().slice(-1_000)})`,
      () => retaken().length >= mustRetake,
      TAKEOVER_BOUND_MS + 10_000,
      20,
    );
    const takeoverMs = Math.max(...retaken().map((r) => r.at)) - killedAt;
    await waitFor(
      "every delivery record to be succeeded",
      () => allDeliveriesSucceeded(h.pool, EXPECTED),
      TAKEOVER_BOUND_MS + LONGEST_HOLD_MS,
      100,
    );
    const allDoneMs = Date.now() - killedAt;
    // A little longer, so a late extra copy would be seen too.
    await sleep(1_000);

    const byDelivery = new Map<string, Received[]>();
    for (const r of ours())
      byDelivery.set(`${r.path}|${r.eventId}`, [
        ...(byDelivery.get(`${r.path}|${r.eventId}`) ?? []),
        r,
      ]);
    const duplicated = [...byDelivery].filter(([, posts]) => posts.length > 1);
    const posts = ours().length;
    console.info(
      [
        `in-flight takeover: ${EXPECTED} deliveries (${EVENTS} events x ${PATHS.length} subscriptions), held 5-20 s each; SIGKILL ${killedAt - firstPostAt} ms after the first POST with ${mustRetake} POSTs still held`,
        `takeover: every held delivery sent again ${takeoverMs} ms after the kill (bound ${TAKEOVER_BOUND_MS} ms); every record succeeded ${allDoneMs} ms after it`,
        `POSTs received: ${posts} = ${EXPECTED} deliveries + ${posts - EXPECTED} duplicates; duplicated deliveries: ${duplicated.length}`,
        ...duplicated.map(
          ([key, p]) =>
            `  ${key} x${p.length} (delivery ${p[0]!.deliveryId}, gap ${p[1]!.at - p[0]!.at} ms)`,
        ),
      ].join("\n"),
    );

    expect(takeoverMs).toBeLessThanOrEqual(TAKEOVER_BOUND_MS);
    expect(allDoneMs).toBeLessThanOrEqual(TAKEOVER_BOUND_MS + LONGEST_HOLD_MS);
    // Every event reached every subscriber, signed.
    expect(byDelivery.size).toBe(EXPECTED);
    expect(ours().filter((r) => r.verifiedWith.length === 0 || !r.timestampOk)).toEqual([]);
    // Exactly the deliveries whose POST was held at the kill were sent twice, the others once.
    expect(mustRetake).toBe(EXPECTED / 2);
    expect(duplicated.map(([key]) => key).sort()).toEqual(heldAtKill.sort());
    expect(duplicated.every(([, p]) => p.length === 2)).toBe(true);
    // A duplicate is the same delivery: same event id (the grouping key), delivery id and body.
    for (const [, [a, b]] of duplicated) {
      expect(b!.deliveryId).toBe(a!.deliveryId);
      expect(b!.body).toBe(a!.body);
      expect(JSON.parse(b!.body).event_uuid).toBe(b!.eventId);
    }
    // One recorded attempt per delivery: the killed dispatcher's unanswered POSTs left none.
    const { rows } = await h.pool.query(
      "SELECT count(*)::int AS n FROM webhooks.delivery_attempts",
    );
    expect(rows[0].n).toBe(EXPECTED);

    const exited = new Promise<number | null>((resolve) => second.once("exit", resolve));
    second.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 120_000);
});
