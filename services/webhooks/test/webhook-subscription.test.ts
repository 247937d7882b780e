import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SUBSCRIPTION_FINALIZER } from "../src/workers/operator/types.ts";
import { sleep, waitFor } from "@svc/testing/kube";
import { Harness, NS, SECRETS, WHS, exampleSpec } from "./support/subscription-harness.ts";

let h: Harness;

beforeEach(async () => {
  h = await Harness.start();
});

afterEach(async () => {
  await h.close();
});

describe("WebhookSubscription reconciler", () => {
  it("creates the subscription for the declared client, its signing Secret, Ready=True and an event", async () => {
    const created = h.create("ats-vacancy-feed");
    const cr = await h.waitReady("ats-vacancy-feed", "True", "Reconciled");

    const call = h.port.ensureCalls[0];
    expect(call?.ref).toEqual({
      namespace: NS,
      name: "ats-vacancy-feed",
      uid: created.metadata.uid,
    });
    expect(call?.owner).toBe("ats-connector");
    expect(call?.spec).toEqual({
      url: exampleSpec.url,
      eventTypes: exampleSpec.eventTypes,
      enabled: true,
    });
    expect(call?.options).toEqual({ needSecret: true });

    const subscription = h.port.byId(cr.status?.subscriptionId ?? "");
    expect(subscription?.owner).toBe("ats-connector");
    expect(cr.status?.observedGeneration).toBe(1);
    expect(cr.metadata.finalizers).toEqual([SUBSCRIPTION_FINALIZER]);

    const secret = h.secret("ats-vacancy-feed-signing");
    expect(secret?.type).toBe("Opaque");
    expect(secret?.metadata.ownerReferences).toEqual([
      {
        apiVersion: "integration.svc.io/v1alpha1",
        kind: "WebhookSubscription",
        name: "ats-vacancy-feed",
        uid: created.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(h.secretValue("ats-vacancy-feed-signing")).toBe(subscription?.secret);

    await waitFor("Created event", () =>
      h.events("ats-vacancy-feed").some((e) => e.type === "Normal" && e.reason === "Created"),
    );
  });

  it("settles: its own status write does not create, rotate or announce anything again", async () => {
    h.create("feed");
    await h.waitReady("feed", "True", "Reconciled");
    await sleep(300);
    const secretRv = h.secret("ats-vacancy-feed-signing")?.metadata.resourceVersion;
    const statusWrites = h.api.requests.filter((r) => r.subresource === "status").length;
    await sleep(300);
    expect(h.port.subscriptions.size).toBe(1);
    expect(h.port.ensureCalls.every((c, i) => i === 0 || !c.options.needSecret)).toBe(true);
    expect(h.secret("ats-vacancy-feed-signing")?.metadata.resourceVersion).toBe(secretRv);
    expect(h.api.requests.filter((r) => r.subresource === "status")).toHaveLength(statusWrites);
    expect(h.events("feed")).toHaveLength(1);
  });

  it("applies a spec change: ensure again with the new spec, observedGeneration follows, secret kept", async () => {
    h.create("feed");
    const first = await h.waitReady("feed", "True", "Reconciled");
    const secretBefore = h.secretValue("ats-vacancy-feed-signing");
    const transitionBefore = h.ready("feed")?.lastTransitionTime;

    h.updateSpec("feed", {
      url: "https://hooks.example.com/v2",
      eventTypes: ["practice.updated"],
      enabled: false,
    });
    const cr = await waitFor(
      "generation 2 observed",
      () => h.cr("feed")?.status?.observedGeneration === 2 && h.cr("feed"),
    );

    expect(cr.status?.subscriptionId).toBe(first.status?.subscriptionId);
    expect(h.port.ensureCalls.at(-1)?.spec).toEqual({
      url: "https://hooks.example.com/v2",
      eventTypes: ["practice.updated"],
      enabled: false,
    });
    expect(h.port.byId(cr.status?.subscriptionId ?? "")?.spec.enabled).toBe(false);
    expect(h.ready("feed")).toMatchObject({
      status: "True",
      reason: "Reconciled",
      observedGeneration: 2,
    });
    expect(h.ready("feed")?.lastTransitionTime).toBe(transitionBefore);
    expect(h.secretValue("ats-vacancy-feed-signing")).toBe(secretBefore);
    await waitFor("Updated event", () => h.events("feed").some((e) => e.reason === "Updated"));
  });

  it("removes the subscription before the resource goes: finalizer, port.remove, then deletion", async () => {
    h.create("feed");
    const cr = await h.waitReady("feed", "True", "Reconciled");
    const id = cr.status?.subscriptionId as string;

    const marked = h.api.store.delete(WHS, NS, "feed");
    expect(marked.metadata.deletionTimestamp).toBeDefined(); // held by the finalizer

    await waitFor("resource gone", () => h.cr("feed") === undefined);
    expect(h.port.removeCalls).toEqual([id]);
    expect(h.port.subscriptions.size).toBe(0);
    expect(h.events("feed").some((e) => e.reason === "Deleted")).toBe(true);
    // The Secret is left to the garbage collector, through its owner reference.
    expect(h.secret("ats-vacancy-feed-signing")).toBeUndefined();
    expect(
      h.api.requests.filter((r) => r.method === "DELETE" && r.resource === "v1/secrets"),
    ).toEqual([]);
  });

  it("keeps the finalizer while the webhooks service cannot remove the subscription", async () => {
    h.create("feed");
    await h.waitReady("feed", "True", "Reconciled");
    h.port.down = true;
    h.api.store.delete(WHS, NS, "feed");
    await waitFor("removal attempts", () => h.port.removeCalls.length >= 2);
    expect(h.cr("feed")?.metadata.finalizers).toEqual([SUBSCRIPTION_FINALIZER]);
    h.port.down = false;
    await waitFor("resource gone", () => h.cr("feed") === undefined);
    expect(h.port.subscriptions.size).toBe(0);
  });

  it("removes a subscription that status never recorded (crash between create and status write)", async () => {
    h.api.fault({ method: "PUT", path: /webhooksubscriptions\/feed\/status$/, status: 500 });
    h.create("feed");
    await waitFor("subscription created", () => h.port.subscriptions.size === 1);
    h.api.store.delete(WHS, NS, "feed");
    await waitFor("resource gone", () => h.cr("feed") === undefined);
    expect(h.port.subscriptions.size).toBe(0);
  });

  it("keeps reconciling new resources after a dropped watch and a 410 Gone", async () => {
    h.create("one");
    await h.waitReady("one", "True", "Reconciled");
    h.api.fault({ path: /webhooksubscriptions$/, watch: true, delayMs: 150, times: 1 });
    h.api.dropWatches();
    h.create("two", { secretName: "two-signing" });
    h.api.store.compact();
    await h.waitReady("two", "True", "Reconciled");
    h.api.dropWatches();
    h.create("three", { secretName: "three-signing" });
    await h.waitReady("three", "True", "Reconciled");
    expect(
      h.api.store
        .list(SECRETS, NS)
        .map((s) => s.metadata.name)
        .sort(),
    ).toEqual(["ats-vacancy-feed-signing", "three-signing", "two-signing"]);
  });
});
