import { describe, expect, it } from "vitest";
import { setCondition } from "../src/workers/operator/conditions.ts";
import { eventFor, nextStatus, sameStatus } from "../src/workers/operator/status.ts";
import type { SyncOutcome } from "../src/workers/operator/sync-subscription.ts";
import type { WebhookSubscription } from "../src/workers/operator/types.ts";

const t0 = new Date("2026-11-22T03:00:00.000Z");
const t1 = new Date("2026-11-22T03:05:00.000Z");

function cr(generation: number, status?: WebhookSubscription["status"]): WebhookSubscription {
  return {
    apiVersion: "integration.svc.io/v1alpha1",
    kind: "WebhookSubscription",
    metadata: { name: "feed", namespace: "integration", uid: "u1", generation },
    spec: {
      clientId: "ats-connector",
      url: "https://hooks.example.com/x",
      eventTypes: ["vacancy.created"],
      secretName: "s",
    },
    ...(status && { status }),
  };
}

const ok: SyncOutcome = {
  ready: true,
  reason: "Reconciled",
  message: "subscription sub-1 matches the spec",
  subscriptionId: "sub-1",
};
const badUrl: SyncOutcome = { ready: false, reason: "InvalidURL", message: "private address" };

describe("Ready condition and status", () => {
  it("moves lastTransitionTime only when the status changes", () => {
    const first = setCondition(
      undefined,
      { type: "Ready", status: "False", reason: "InvalidURL", message: "a" },
      t0,
    );
    const sameStatusOtherReason = setCondition(
      first,
      { type: "Ready", status: "False", reason: "UnknownClient", message: "b" },
      t1,
    );
    expect(sameStatusOtherReason[0]).toMatchObject({
      reason: "UnknownClient",
      message: "b",
      lastTransitionTime: "2026-11-22T03:00:00Z",
    });
    const flipped = setCondition(
      sameStatusOtherReason,
      { type: "Ready", status: "True", reason: "Reconciled", message: "c" },
      t1,
    );
    expect(flipped[0]?.lastTransitionTime).toBe("2026-11-22T03:05:00Z");
  });

  it("keeps other condition types as they are", () => {
    const other = {
      type: "Synced",
      status: "True" as const,
      reason: "X",
      message: "",
      lastTransitionTime: "2026-01-01T00:00:00Z",
    };
    const result = setCondition(
      [other],
      { type: "Ready", status: "True", reason: "Reconciled", message: "" },
      t0,
    );
    expect(result).toEqual([other, expect.objectContaining({ type: "Ready" })]);
  });

  it("records the generation it describes, keeping the subscription id through failures", () => {
    const status = nextStatus(
      cr(4, { subscriptionId: "sub-1", observedGeneration: 3 }),
      badUrl,
      t0,
    );
    expect(status).toMatchObject({
      subscriptionId: "sub-1",
      observedGeneration: 4,
      conditions: [{ type: "Ready", status: "False", reason: "InvalidURL", observedGeneration: 4 }],
    });
  });

  it("treats a status that would not change as the same (so it is not written)", () => {
    const status = nextStatus(cr(1), ok, t0);
    expect(sameStatus(status, nextStatus(cr(1, status), ok, t1))).toBe(true);
    expect(sameStatus(status, nextStatus(cr(2, status), ok, t1))).toBe(false);
    expect(sameStatus(undefined, status)).toBe(false);
  });
});

describe("events for a pass", () => {
  it("announces creation, spec changes and rotations; stays quiet when nothing happened", () => {
    expect(eventFor(cr(1), ok)).toMatchObject({ type: "Normal", reason: "Created" });
    const reconciled = nextStatus(cr(1), ok, t0);
    expect(eventFor(cr(1, reconciled), ok)).toBeUndefined();
    expect(eventFor(cr(2, reconciled), ok)).toMatchObject({ type: "Normal", reason: "Updated" });
    expect(eventFor(cr(1, reconciled), { ...ok, secretWritten: "updated" })).toMatchObject({
      reason: "SecretRotated",
    });
  });

  it("warns once per distinct failure, again after a new generation", () => {
    expect(eventFor(cr(1), badUrl)).toMatchObject({ type: "Warning", reason: "InvalidURL" });
    const failed = nextStatus(cr(1), badUrl, t0);
    expect(eventFor(cr(1, failed), badUrl)).toBeUndefined();
    expect(eventFor(cr(1, failed), { ...badUrl, reason: "BackendUnavailable" })).toMatchObject({
      reason: "BackendUnavailable",
    });
    expect(eventFor(cr(2, failed), badUrl)).toMatchObject({ reason: "InvalidURL" });
  });
});
