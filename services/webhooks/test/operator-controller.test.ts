// The operator as a controller-runtime-grade controller: it watches the signing Secrets it owns
// (a deleted or emptied one is back within seconds, long before any resync), can keep them in a
// namespace of their own, exposes controller-runtime's metrics on the process's Prometheus text,
// and records an Event for each change of its Ready condition. Against the fake API server
// (@svc/testing/kube, real HTTP on loopback): no kube-apiserver can run on these machines.
import { afterEach, describe, expect, it } from "vitest";
import { controllerMetrics } from "@svc/k8s";
import { createMetrics } from "@svc/telemetry";
import { sleep, waitFor } from "@svc/testing/kube";
import { leaderReporting } from "../src/workers/operator/start-operator.ts";
import { OWNER_ANNOTATION, OWNER_UID_ANNOTATION } from "../src/workers/operator/types.ts";
import { Harness, NS, SECRETS, WHS } from "./support/subscription-harness.ts";

const SECRET = "ats-vacancy-feed-signing";
const TEN_MINUTES = 600_000;

let h: Harness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("the signing Secret watch", () => {
  it("puts a deleted signing Secret back within seconds, with no resync due for ten minutes", async () => {
    h = await Harness.start({ resyncMs: TEN_MINUTES });
    h.create("feed");
    const cr = await h.waitReady("feed", "True", "Reconciled");
    await sleep(300); // the passes its own writes cause are over: only the watch can react now
    const first = h.secretValue(SECRET);

    const deletedAt = Date.now();
    h.api.store.delete(SECRETS, NS, SECRET);
    const restored = await waitFor("secret restored", () => h?.secretValue(SECRET), 3_000);
    const seconds = (Date.now() - deletedAt) / 1000;

    expect(seconds).toBeLessThan(3);
    expect(restored).not.toBe(first);
    expect(restored).toBe(h.port.byId(cr.status?.subscriptionId ?? "")?.secret);
    // One watch on Secrets, selected by the label every signing Secret carries.
    const watches = h.api.requests.filter(
      (r) => r.resource === SECRETS && r.query.watch === "true",
    );
    expect(watches.length).toBeGreaterThan(0);
    expect(watches[0]?.query.labelSelector).toBe(
      "app.kubernetes.io/managed-by=integration-service-dispatcher",
    );
  });

  it("rewrites an emptied signing Secret at once, and ignores Secrets it does not own", async () => {
    h = await Harness.start({ resyncMs: TEN_MINUTES });
    h.create("feed");
    await h.waitReady("feed", "True", "Reconciled");
    await sleep(300); // the passes its own writes cause are over: only the watch can react now
    const secret = h.secret(SECRET)!;
    h.api.store.update(SECRETS, NS, SECRET, { ...secret, data: {} });
    await waitFor("secret rewritten", () => h?.secretValue(SECRET), 3_000);
    await sleep(300); // the echo of its own write settles

    const calls = h.port.ensureCalls.length;
    h.api.store.create(SECRETS, NS, {
      metadata: { name: "unrelated", labels: { "app.kubernetes.io/managed-by": "someone" } },
      data: { x: "eA==" },
    });
    await sleep(300);
    expect(h.port.ensureCalls.length).toBe(calls);
  });
});

describe("signing Secrets in a namespace of their own", () => {
  const SECRET_NS = "integration-webhook-secrets";

  it("writes them there with owner annotations (no owner reference), and deletes them with the resource", async () => {
    h = await Harness.start({ resyncMs: TEN_MINUTES, secretNamespace: SECRET_NS });
    const created = h.create("feed");
    await h.waitReady("feed", "True", "Reconciled");
    expect(h.api.store.find(SECRETS, NS, SECRET)).toBeUndefined();
    const secret = h.secret(SECRET);
    expect(secret?.metadata.ownerReferences).toBeUndefined();
    expect(secret?.metadata.annotations).toEqual({
      [OWNER_ANNOTATION]: `${NS}/feed`,
      [OWNER_UID_ANNOTATION]: created.metadata.uid,
    });
    await sleep(300); // the passes its own writes cause are over: only the watch can react now

    h.api.store.delete(SECRETS, SECRET_NS, SECRET);
    await waitFor("secret restored", () => h?.secretValue(SECRET), 3_000);

    h.api.store.delete(WHS, NS, "feed");
    await waitFor("resource gone", () => h?.cr("feed") === undefined);
    expect(h.secret(SECRET)).toBeUndefined();
  });

  it("leaves a namesake it did not make alone (SecretConflict), even when the resource goes", async () => {
    h = await Harness.start({ resyncMs: TEN_MINUTES, secretNamespace: SECRET_NS });
    const foreign = h.api.store.create(SECRETS, SECRET_NS, {
      metadata: { name: SECRET, annotations: { [OWNER_ANNOTATION]: `${NS}/feed` } },
      data: { secret: "bm90IG91cnM=" },
    });
    h.create("feed");
    await h.waitReady("feed", "False", "SecretConflict");
    h.api.store.delete(WHS, NS, "feed");
    await waitFor("resource gone", () => h?.cr("feed") === undefined);
    expect(h.secret(SECRET)).toEqual(foreign);
  });
});

describe("controller metrics", () => {
  it("serves controller-runtime's reconcile, workqueue and leader metrics on the Prometheus text", async () => {
    const metrics = createMetrics({
      serviceName: "webhooks-dispatcher",
      serviceVersion: "test",
      environment: "test",
      otlp: false,
    });
    const controller = controllerMetrics(metrics.meter);
    h = await Harness.start({ resyncMs: TEN_MINUTES, metrics: controller });
    const task = leaderReporting(controller, "webhooks-dispatcher", {
      name: "idle",
      run: (signal) =>
        new Promise<void>((r) => signal.addEventListener("abort", () => r(), { once: true })),
    });
    /** The sample of `series` ("name{a=\"x\",...}"): its labels, in order, then any others. */
    const value = (text: string, series: string) => {
      const [name, labels = ""] = series.replace(/}$/, "").split("{");
      const line = text
        .split("\n")
        .find((l) => l.startsWith(`${name}{${labels}`) || l.startsWith(`${name} `));
      return Number(line?.split(" ").at(-1) ?? Number.NaN);
    };
    const C = 'controller="webhooksubscription"';

    expect(
      value(await metrics.scrape(), 'leader_election_master_status{name="webhooks-dispatcher"}'),
    ).toBe(0);
    const stop = new AbortController();
    const running = task.run(stop.signal, undefined as never);
    expect(
      value(await metrics.scrape(), 'leader_election_master_status{name="webhooks-dispatcher"}'),
    ).toBe(1);

    h.port.down = true;
    h.create("feed");
    await h.waitReady("feed", "False", "BackendUnavailable");
    await waitFor("two failed passes", () => (h?.port.ensureCalls.length ?? 0) >= 2);
    h.port.down = false;
    await h.waitReady("feed", "True", "Reconciled");
    await sleep(100);

    const text = await metrics.scrape();
    expect(value(text, `controller_runtime_reconcile_errors_total{${C}}`)).toBeGreaterThanOrEqual(
      2,
    );
    expect(
      value(text, `controller_runtime_reconcile_total{${C},result="error"}`),
    ).toBeGreaterThanOrEqual(2);
    expect(
      value(text, `controller_runtime_reconcile_total{${C},result="success"}`),
    ).toBeGreaterThanOrEqual(1);
    expect(
      value(text, `controller_runtime_reconcile_time_seconds_count{${C}}`),
    ).toBeGreaterThanOrEqual(3);
    expect(value(text, `workqueue_depth{name="webhooksubscription",${C}}`)).toBe(0);
    expect(
      value(text, `workqueue_adds_total{name="webhooksubscription",${C}}`),
    ).toBeGreaterThanOrEqual(3);
    expect(
      value(text, `workqueue_retries_total{name="webhooksubscription",${C}}`),
    ).toBeGreaterThanOrEqual(2);
    expect(value(text, `controller_runtime_max_concurrent_reconciles{${C}}`)).toBe(2);
    expect(text).toContain("# TYPE controller_runtime_reconcile_time_seconds histogram");

    stop.abort();
    await running;
    expect(
      value(await metrics.scrape(), 'leader_election_master_status{name="webhooks-dispatcher"}'),
    ).toBe(0);
    await metrics.shutdown();
  });
});

describe("Events", () => {
  it("records one Event for each change of the Ready condition, and none while it holds", async () => {
    h = await Harness.start({ resyncMs: 100 });
    h.create("feed");
    await h.waitReady("feed", "True", "Reconciled");
    h.updateSpec("feed", { url: "https://10.0.0.1/hook" });
    await h.waitReady("feed", "False", "InvalidURL");
    h.updateSpec("feed", { clientId: "nobody" });
    await h.waitReady("feed", "False", "UnknownClient");
    h.updateSpec("feed", { clientId: "ats-connector", url: "https://hooks.example.com/x" });
    await h.waitReady("feed", "True", "Reconciled");
    await sleep(400); // resyncs: the condition holds, so nothing more

    expect(h.events("feed").map((e) => `${e.type} ${e.reason}`)).toEqual([
      "Normal Created",
      "Warning InvalidURL",
      "Warning UnknownClient",
      "Normal Updated",
    ]);
  });
});
