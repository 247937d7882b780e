import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ReconcileLoop } from "../src/reconcile-loop.ts";
import type { Reconcile, ReconcileLoopOptions } from "../src/reconcile-loop.ts";
import { FakeKubeApi, recordingLogger, sleep, waitFor } from "@svc/testing/kube";

const NS = "integration";
// Any namespaced custom resource will do; this one is shaped like the WebhookSubscription CRD.
const WHS = "integration.svc.io/v1alpha1/webhooksubscriptions";
const KIND = {
  group: "integration.svc.io",
  version: "v1alpha1",
  plural: "webhooksubscriptions",
  namespace: NS,
};

// A fake API server over real HTTP: no kube-apiserver can run on these machines.
let api: FakeKubeApi;
let stop: AbortController;
let running: Promise<void> | undefined;

beforeEach(async () => {
  api = await FakeKubeApi.start({
    resources: [
      {
        id: WHS,
        apiVersion: "integration.svc.io/v1alpha1",
        kind: "WebhookSubscription",
        statusSubresource: true,
        generation: true,
      },
    ],
  });
  stop = new AbortController();
  running = undefined;
});

afterEach(async () => {
  stop.abort();
  await running;
  await api.close();
});

function create(name: string, spec: Record<string, unknown> = { n: 1 }) {
  return api.store.create(WHS, NS, {
    apiVersion: "integration.svc.io/v1alpha1",
    kind: "WebhookSubscription",
    metadata: { name },
    spec,
  });
}

function start(reconcile: Reconcile, overrides: Partial<ReconcileLoopOptions> = {}) {
  const calls: string[] = [];
  const loop = new ReconcileLoop({
    name: "test",
    kubeConfig: api.kubeConfig(),
    resource: KIND,
    logger: recordingLogger(),
    retryMinMs: 20,
    retryMaxMs: 200,
    watchBackoffMinMs: 20,
    watchBackoffMaxMs: 100,
    reconcile: async (request, signal) => {
      calls.push(request.key);
      await reconcile(request, signal);
    },
    ...overrides,
  });
  running = loop.run(stop.signal);
  return { calls, loop };
}

const lists = () =>
  api.requests.filter(
    (r) =>
      r.resource === WHS &&
      r.method === "GET" &&
      r.query.watch !== "true" &&
      !r.path.endsWith("/a"),
  );
const watches = () => api.requests.filter((r) => r.resource === WHS && r.query.watch === "true");

describe("ReconcileLoop", () => {
  it("reconciles every listed object, then each object that appears", async () => {
    create("a");
    create("b");
    const { calls } = start(async () => {});
    await waitFor(
      "a and b",
      () => calls.includes("integration/a") && calls.includes("integration/b"),
    );
    create("c");
    await waitFor("c", () => calls.includes("integration/c"));
  });

  it("runs a key at most once more however many changes arrive while it is reconciled", async () => {
    create("a");
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { calls } = start(async () => gate, { workers: 2 });
    await waitFor("first run", () => calls.length === 1);
    for (let i = 2; i < 6; i++) {
      const current = api.store.get(WHS, NS, "a");
      api.store.update(WHS, NS, "a", { ...current, spec: { n: i } });
    }
    await sleep(100);
    expect(calls).toEqual(["integration/a"]); // never twice at once, despite two workers
    release();
    await waitFor("second run", () => calls.length === 2);
    await sleep(100);
    expect(calls).toEqual(["integration/a", "integration/a"]);
  });

  it("retries a failing key with backoff until it succeeds, without holding up others", async () => {
    create("flaky");
    create("fine");
    let failures = 0;
    const { calls } = start(async (request) => {
      if (request.name === "flaky" && failures < 3) {
        failures += 1;
        throw new Error("backend down");
      }
    });
    await waitFor("fine reconciled", () => calls.includes("integration/fine"));
    await waitFor(
      "flaky succeeded",
      () => calls.filter((k) => k === "integration/flaky").length === 4,
      3_000,
    );
    await sleep(250);
    expect(calls.filter((k) => k === "integration/flaky")).toHaveLength(4);
  });

  it("resumes a dropped watch from the last resourceVersion without relisting", async () => {
    create("a");
    const { calls } = start(async () => {});
    await waitFor("a", () => calls.includes("integration/a"));
    await waitFor("watching", () => api.openWatches === 1);
    const lastRv = api.store.get(WHS, NS, "a").metadata.resourceVersion;
    api.dropWatches();
    await waitFor("watch resumed", () => watches().length === 2);
    expect(watches()[1]?.query.resourceVersion).toBe(lastRv);
    create("b");
    await waitFor("b", () => calls.includes("integration/b"));
    expect(lists()).toHaveLength(1);
  });

  it("relists after 410 Gone and still sees what changed while it was away", async () => {
    create("a");
    create("doomed");
    const { calls } = start(async () => {});
    await waitFor("watching", () => api.openWatches === 1 && calls.includes("integration/doomed"));
    // The next watch is slow to start; meanwhile objects change and history is compacted.
    api.fault({ path: /webhooksubscriptions$/, watch: true, delayMs: 150, times: 1 });
    api.dropWatches();
    create("b");
    api.store.delete(WHS, NS, "doomed");
    api.store.compact();
    const before = calls.filter((k) => k === "integration/doomed").length;
    await waitFor("b after relist", () => calls.includes("integration/b"));
    expect(lists()).toHaveLength(2);
    // The vanished object is queued too, so its reconcile can notice it is gone.
    await waitFor(
      "doomed again",
      () => calls.filter((k) => k === "integration/doomed").length > before,
    );
    create("c");
    await waitFor("c on the new watch", () => calls.includes("integration/c"));
  });

  it("relists when the watch request itself answers 410", async () => {
    create("a");
    const { calls } = start(async () => {});
    await waitFor("watching", () => api.openWatches === 1 && calls.length > 0);
    api.fault({ path: /webhooksubscriptions$/, watch: true, status: 410, times: 1 });
    api.dropWatches();
    await waitFor("relisted", () => lists().length === 2);
    create("b");
    await waitFor("b", () => calls.includes("integration/b"));
  });

  it("backs off and keeps retrying while the watch fails with 500s", async () => {
    create("a");
    const { calls } = start(async () => {});
    await waitFor("watching", () => api.openWatches === 1 && calls.length > 0);
    api.fault({ path: /webhooksubscriptions$/, watch: true, status: 500, times: 3 });
    api.dropWatches();
    create("b");
    await waitFor("b", () => calls.includes("integration/b"), 3_000);
    expect(watches().filter((r) => r.status === 500)).toHaveLength(3);
  });

  it("retries the initial list until the API server answers", async () => {
    create("a");
    api.fault({
      method: "GET",
      path: /webhooksubscriptions$/,
      watch: false,
      status: 503,
      times: 2,
    });
    const { calls } = start(async () => {});
    await waitFor("a", () => calls.includes("integration/a"), 3_000);
    expect(lists().map((r) => r.status)).toEqual([503, 503, 200]);
  });

  it("queues every known key again on resync", async () => {
    create("a");
    const { calls } = start(async () => {}, { resyncMs: 100 });
    await waitFor(
      "three passes over a",
      () => calls.filter((k) => k === "integration/a").length >= 3,
      2_000,
    );
  });
});

describe("ReconcileLoop secondary watches (Owns)", () => {
  const SECRETS = "v1/secrets";
  const secret = (name: string, owner: string | undefined, labels = { owned: "yes" }) =>
    api.store.create(SECRETS, NS, {
      metadata: { name, labels, ...(owner && { annotations: { owner } }) },
      data: { k: "dg==" },
    });
  const watches = {
    watches: [
      {
        resource: { group: "", version: "v1", plural: "secrets", namespace: NS },
        labelSelector: "owned=yes",
        keysFor: (o: { metadata?: { annotations?: Record<string, string> } }) =>
          o.metadata?.annotations?.owner ? [`${NS}/${o.metadata.annotations.owner}`] : [],
      },
    ],
  };

  it("reconciles the owner of a Secret that is listed, changed or deleted", async () => {
    create("a");
    secret("a-secret", "a");
    const { calls } = start(async () => {}, watches);
    // Once for the resource, once for its Secret in the initial lists.
    await waitFor("two passes", () => calls.filter((k) => k === `${NS}/a`).length >= 2, 3_000);
    await sleep(100);
    const before = calls.length;
    api.store.delete(SECRETS, NS, "a-secret");
    await waitFor("pass after delete", () => calls.length > before, 3_000);
    expect(calls.slice(before)).toEqual([`${NS}/a`]);
  });

  it("lists and watches only the selected Secrets, and never asks for an unowned one", async () => {
    create("a");
    const { calls } = start(async () => {}, watches);
    await waitFor("a", () => calls.includes(`${NS}/a`), 3_000);
    secret("other", "b", { owned: "no" });
    secret("orphan", undefined);
    await sleep(300);
    expect(calls).toEqual([`${NS}/a`]);
    const secretRequests = api.requests.filter((r) => r.resource === SECRETS);
    expect(secretRequests.length).toBeGreaterThanOrEqual(2);
    for (const r of secretRequests) {
      expect(r.method).toBe("GET");
      expect(r.query.labelSelector).toBe("owned=yes");
    }
  });
});

describe("ReconcileLoop metrics hooks", () => {
  it("reports each reconcile's result and time, queue adds and retries, and the queue's state", async () => {
    const seen: string[] = [];
    let state: (() => { depth: number; active: number; workers: number }) | undefined;
    const metrics = {
      reconciled: (c: string, result: string, seconds: number) =>
        void seen.push(`${c} ${result} ${seconds >= 0.05 ? "slow" : "fast"}`),
      queueAdded: (q: string) => void seen.push(`${q} add`),
      queueRetried: (q: string) => void seen.push(`${q} retry`),
      observe: (_c: string, s: typeof state) => void (state = s),
      leading: () => {},
    };
    create("a");
    let fail = true;
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const { calls } = start(
      async () => {
        if (fail) {
          fail = false;
          throw new Error("first pass fails");
        }
        await sleep(60);
        await gate;
      },
      { metrics },
    );
    await waitFor("second pass running", () => calls.length === 2, 3_000);
    expect(state?.()).toEqual({ depth: 0, active: 1, workers: 2 });
    release();
    await waitFor("the success", () => seen.some((s) => s.includes("success")));
    expect(seen).toEqual([
      "test add",
      "test error fast",
      "test retry",
      "test add",
      "test success slow",
    ]);
    expect(state?.()).toEqual({ depth: 0, active: 0, workers: 2 });
  });
});
