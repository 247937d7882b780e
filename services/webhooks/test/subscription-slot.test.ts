import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReceiver, type Receiver } from "./support/receiver.ts";
import { createTestCa, type TestCa } from "@svc/testing";
import { fakeResolver, sleep, startHarness, waitFor, type Harness } from "./support/harness.ts";

/**
 * The per-subscription in-flight cap bounds POSTs to the subscriber, not the bookkeeping after
 * them: a slow commit of one attempt's record must not hold back the subscriber's next POST.
 */
let ca: TestCa;
let receiver: Receiver;
let h: Harness;

beforeAll(async () => {
  ca = createTestCa();
  receiver = await startReceiver({ key: ca.serverKey, cert: ca.serverCert });
  h = await startHarness({ resolver: fakeResolver(), caFile: ca.caFile });
  await h.startDispatcher({
    WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION: "1",
    WEBHOOK_RETENTION_DAYS: "0",
  });
});
afterAll(async () => {
  await h?.close();
  await receiver?.close();
  ca?.dispose();
});

describe("the per-subscription slot", () => {
  it("is free for the next POST while the previous attempt's record is still being written", async () => {
    const path = "/slot";
    receiver.setBehaviour(path, () => ({ status: 204, delayMs: 50 }));
    const res = await h.api("client-slot", "POST", "/v1/webhooks", {
      url: receiver.url(path),
      event_types: ["vacancy.updated"],
    });
    expect(res.status).toBe(201);
    receiver.setSecrets(path, [res.body.data.secret]);
    const sub = res.body.data.webhook_uuid as string;

    // Every attempt record (its delivery_attempts row) now waits for this transaction; reads do
    // not.
    const blocker = await h.pool.connect();
    try {
      await blocker.query("BEGIN");
      await blocker.query("LOCK TABLE webhooks.delivery_attempts IN EXCLUSIVE MODE");
      const events = [
        await h.publishEvent("vacancy.updated"),
        await h.publishEvent("vacancy.updated"),
        await h.publishEvent("vacancy.updated"),
      ];
      await waitFor(
        "all three POSTs while their records are blocked",
        () => receiver.received(path).length >= 3,
        10_000,
        25,
      );
      expect(new Set(receiver.received(path).map((r) => r.eventId))).toEqual(
        new Set(events.map((e) => e.event_uuid)),
      );
      // Still one POST at a time: the cap itself holds.
      expect(receiver.maxConcurrent(path)).toBe(1);
      await sleep(100);
      const recorded = await h.api(
        "client-slot",
        "GET",
        `/v1/webhooks/${sub}/deliveries?status=succeeded`,
      );
      expect(recorded.body.data).toHaveLength(0);
      await blocker.query("COMMIT");
    } finally {
      blocker.release();
    }
    await waitFor(
      "the three records",
      async () =>
        (await h.api("client-slot", "GET", `/v1/webhooks/${sub}/deliveries?status=succeeded`)).body
          .data.length === 3,
      10_000,
      100,
    );
  });
});
