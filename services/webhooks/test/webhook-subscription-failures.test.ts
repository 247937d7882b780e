import { afterEach, describe, expect, it } from "vitest";
import { sleep, waitFor } from "@svc/testing/kube";
import { Harness, NS, SECRETS } from "./support/subscription-harness.ts";

let h: Harness;

afterEach(async () => {
  await h.close();
});

describe("WebhookSubscription reconciler, when things go wrong", () => {
  it("reports InvalidURL from the webhooks service as Ready=False, writes no Secret and does not retry", async () => {
    h = await Harness.start();
    h.create("internal", { url: "https://10.0.0.7/hook" });
    const cr = await h.waitReady("internal", "False", "InvalidURL");
    expect(h.ready("internal")?.message).toMatch(/private/);
    expect(cr.status?.subscriptionId).toBeUndefined();
    expect(h.secret("ats-vacancy-feed-signing")).toBeUndefined();
    await waitFor("warning event", () =>
      h.events("internal").some((e) => e.type === "Warning" && e.reason === "InvalidURL"),
    );
    // Its own status write comes back as a watch event: one more idempotent pass, then nothing
    // (permanent until the spec changes: no backoff loop). Quiet for 600 ms, however slow the
    // machine, and at most those two passes.
    let calls = -1;
    let since = Date.now();
    await waitFor(
      "the reconciler to go quiet",
      () => {
        if (h.port.ensureCalls.length !== calls)
          [calls, since] = [h.port.ensureCalls.length, Date.now()];
        return Date.now() - since >= 600;
      },
      10_000,
    );
    expect(calls).toBeLessThanOrEqual(2);
    expect(h.events("internal")).toHaveLength(1);
  });

  it("reports an unknown client as UnknownClient, and recovers when the spec is fixed", async () => {
    h = await Harness.start();
    h.create("feed", { clientId: "nobody" });
    await h.waitReady("feed", "False", "UnknownClient");
    const failedSince = h.ready("feed")?.lastTransitionTime;
    h.updateSpec("feed", { url: "https://127.0.0.1/x" });
    await h.waitReady("feed", "False", "UnknownClient");
    expect(h.ready("feed")?.lastTransitionTime).toBe(failedSince);
    h.updateSpec("feed", { clientId: "crm-connector", url: "https://hooks.example.com/crm" });
    const cr = await h.waitReady("feed", "True", "Reconciled");
    expect(h.port.byId(cr.status?.subscriptionId ?? "")?.owner).toBe("crm-connector");
    expect(cr.status?.observedGeneration).toBe(3);
  });

  it("never touches a Secret it does not own: SecretConflict, and no subscription is created", async () => {
    h = await Harness.start({ resyncMs: 200 });
    const foreign = h.api.store.create(SECRETS, NS, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "ats-vacancy-feed-signing" },
      data: { secret: Buffer.from("someone-elses").toString("base64") },
    });
    h.create("feed");
    await h.waitReady("feed", "False", "SecretConflict");
    await sleep(300); // a few resyncs
    expect(h.secret("ats-vacancy-feed-signing")).toEqual(foreign);
    expect(h.port.ensureCalls).toEqual([]);
    expect(h.events("feed").filter((e) => e.reason === "SecretConflict")).toHaveLength(1);

    // Once the conflicting Secret is gone, the next resync creates ours.
    h.api.store.delete(SECRETS, NS, "ats-vacancy-feed-signing");
    await h.waitReady("feed", "True", "Reconciled");
    expect(h.secretValue("ats-vacancy-feed-signing")).toMatch(/^whsec_/);
  });

  it("reports BackendUnavailable and retries with backoff until the webhooks service answers", async () => {
    h = await Harness.start();
    h.port.down = true;
    h.create("feed");
    await h.waitReady("feed", "False", "BackendUnavailable");
    await waitFor("retries", () => h.port.ensureCalls.length >= 3);
    expect(h.events("feed").filter((e) => e.reason === "BackendUnavailable")).toHaveLength(1);
    h.port.down = false;
    await h.waitReady("feed", "True", "Reconciled");
    expect(h.secretValue("ats-vacancy-feed-signing")).toBe(
      h.port.byId(h.cr("feed")?.status?.subscriptionId ?? "")?.secret,
    );
  });

  it("asks for a rotated secret when its Secret was deleted, and writes it back", async () => {
    h = await Harness.start({ resyncMs: 200 });
    h.create("feed");
    const cr = await h.waitReady("feed", "True", "Reconciled");
    const first = h.secretValue("ats-vacancy-feed-signing");
    const callsBefore = h.port.ensureCalls.length;
    h.api.store.delete(SECRETS, NS, "ats-vacancy-feed-signing");
    await waitFor("secret restored", () => h.secretValue("ats-vacancy-feed-signing"));
    const second = h.secretValue("ats-vacancy-feed-signing");
    expect(second).not.toBe(first);
    expect(second).toBe(h.port.byId(cr.status?.subscriptionId ?? "")?.secret);
    // Reconciles after the restore (the watch sees the write, resyncs) need no secret: the one
    // that restored it did.
    const after = h.port.ensureCalls.slice(callsBefore);
    expect(after.some((c) => c.options.needSecret === true)).toBe(true);
    await waitFor("rotation event", () =>
      h.events("feed").some((e) => e.reason === "SecretRotated"),
    );
  });

  it("survives a 409 on its status write (someone else wrote first) by retrying", async () => {
    h = await Harness.start();
    h.api.fault({
      method: "PUT",
      path: /webhooksubscriptions\/feed\/status$/,
      status: 409,
      times: 2,
    });
    h.create("feed");
    await h.waitReady("feed", "True", "Reconciled");
    expect(h.port.subscriptions.size).toBe(1);
    expect(
      h.api.requests.filter((r) => r.subresource === "status" && r.status === 409),
    ).toHaveLength(2);
  });

  it("never writes a signing secret to logs or events", async () => {
    h = await Harness.start({ resyncMs: 100 });
    h.port.down = true;
    h.create("feed");
    await h.waitReady("feed", "False", "BackendUnavailable");
    h.port.down = false;
    h.api.fault({ method: "POST", path: /secrets$/, status: 500, times: 1 });
    await h.waitReady("feed", "True", "Reconciled");
    h.api.store.delete(SECRETS, NS, "ats-vacancy-feed-signing");
    await waitFor("secret restored", () => h.secretValue("ats-vacancy-feed-signing"));
    const secrets = [...h.port.subscriptions.values()].map((s) => s.secret);
    const everything =
      JSON.stringify(h.logger.entries) + JSON.stringify(h.api.store.list("v1/events", NS));
    for (const secret of secrets) {
      expect(everything).not.toContain(secret);
      expect(everything).not.toContain(Buffer.from(secret).toString("base64"));
    }
    expect(h.logger.entries.some((l) => l.msg === "reconcile failed; will retry")).toBe(true);
  });
});
