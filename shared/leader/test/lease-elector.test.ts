import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { microTimeOf } from "@svc/k8s";
import { LeadershipLostError } from "../src/leader.ts";
import type { Fence } from "../src/leader.ts";
import { LeaseElector } from "../src/lease-elector.ts";
import type { LeaseElectorOptions } from "../src/lease-elector.ts";
import { FakeKubeApi, recordingLogger, sleep, waitFor } from "@svc/testing/kube";

const NS = "integration";
const LEASES = "coordination.k8s.io/v1/leases";
const SIX_DIGITS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

// A fake API server over real HTTP: no kube-apiserver can run on these machines.
let api: FakeKubeApi;
const running: Array<{ stop: AbortController; done: Promise<void> }> = [];

beforeEach(async () => {
  api = await FakeKubeApi.start();
});

afterEach(async () => {
  for (const r of running.splice(0)) r.stop.abort();
  await Promise.all(running.map((r) => r.done));
  await api.close();
});

function elector(identity: string, overrides: Partial<LeaseElectorOptions> = {}): LeaseElector {
  // Short but realistic ratios: lease 1 s, give up after 600 ms without renewal, retry every
  // 100 ms.
  return new LeaseElector({
    kubeConfig: api.kubeConfig(),
    namespace: NS,
    name: "dispatcher",
    identity,
    logger: recordingLogger(),
    leaseDurationSeconds: 1,
    renewDeadlineMs: 600,
    retryPeriodMs: 100,
    ...overrides,
  });
}

type Term = { signal: AbortSignal; fence: Fence; startedAt: number; endedAt?: number };

/** Campaigns with a task that holds on until its signal aborts, recording each term. */
function campaign(e: LeaseElector): { terms: Term[]; stop: AbortController; done: Promise<void> } {
  const terms: Term[] = [];
  const stop = new AbortController();
  const done = e.run(async (signal, fence) => {
    const term: Term = { signal, fence, startedAt: Date.now() };
    terms.push(term);
    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    term.endedAt = Date.now();
  }, stop.signal);
  const handle = { terms, stop, done };
  running.push(handle);
  return handle;
}

function lease() {
  return api.store.find(LEASES, NS, "dispatcher");
}

function seedLease(spec: Record<string, unknown>) {
  api.store.create(LEASES, NS, {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: { name: "dispatcher" },
    spec,
  });
}

describe("LeaseElector", () => {
  it("lets exactly one of two competing candidates lead, and keeps it that way", async () => {
    const a = elector("pod-a");
    const b = elector("pod-b");
    const ca = campaign(a);
    const cb = campaign(b);
    let maxLeaders = 0;
    let maxActive = 0;
    const until = Date.now() + 1_500;
    while (Date.now() < until) {
      maxLeaders = Math.max(maxLeaders, Number(a.isLeader()) + Number(b.isLeader()));
      maxActive = Math.max(
        maxActive,
        [...ca.terms, ...cb.terms].filter((t) => t.endedAt === undefined).length,
      );
      await sleep(5);
    }
    expect(maxLeaders).toBe(1);
    expect(maxActive).toBe(1);
    expect(Number(a.isLeader()) + Number(b.isLeader())).toBe(1);
    const leader = a.isLeader() ? "pod-a" : "pod-b";
    expect(lease()?.spec?.holderIdentity).toBe(leader);
    // The leader kept renewing well past one lease duration, so the follower never took over.
    expect(ca.terms.length + cb.terms.length).toBe(1);
  });

  it("answers a concurrent create with 409 to the loser, who backs off", async () => {
    // Both candidates read "no lease" before either creates it.
    api.fault({ method: "GET", path: /leases\/dispatcher$/, delayMs: 80, times: 2 });
    const a = elector("pod-a");
    const b = elector("pod-b");
    campaign(a);
    campaign(b);
    await waitFor("a leader", () => a.isLeader() || b.isLeader());
    const creates = api.requests.filter((r) => r.method === "POST" && r.resource === LEASES);
    expect(creates.map((r) => r.status).sort()).toEqual([201, 409]);
    await sleep(300);
    expect(Number(a.isLeader()) + Number(b.isLeader())).toBe(1);
  });

  it("answers a concurrent takeover of an expired lease with 409 to the loser", async () => {
    seedLease({
      holderIdentity: "gone-pod",
      leaseDurationSeconds: 1,
      renewTime: microTimeOf(Date.now() - 10_000),
      leaseTransitions: 2,
    });
    api.fault({ method: "GET", path: /leases\/dispatcher$/, delayMs: 80, times: 2 });
    const a = elector("pod-a");
    const b = elector("pod-b");
    campaign(a);
    campaign(b);
    await waitFor("a leader", () => a.isLeader() || b.isLeader());
    const takeovers = api.requests
      .filter((r) => r.method === "PUT" && r.resource === LEASES)
      .slice(0, 2);
    expect(takeovers.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(lease()?.spec?.leaseTransitions).toBe(3);
  });

  it("takes over an expired lease with leaseTransitions + 1 and six-digit MicroTimes", async () => {
    seedLease({
      holderIdentity: "old-pod",
      leaseDurationSeconds: 1,
      acquireTime: "2026-01-01T00:00:00.000001Z",
      renewTime: microTimeOf(Date.now() - 5_000),
      leaseTransitions: 3,
    });
    const a = elector("pod-a");
    campaign(a);
    await waitFor("pod-a leads", () => a.isLeader());
    const spec = lease()?.spec as Record<string, unknown>;
    expect(spec.holderIdentity).toBe("pod-a");
    expect(spec.leaseTransitions).toBe(4);
    expect(spec.leaseDurationSeconds).toBe(1);
    expect(spec.acquireTime).toMatch(SIX_DIGITS);
    expect(spec.acquireTime).not.toBe("2026-01-01T00:00:00.000001Z");
    expect(spec.renewTime).toMatch(SIX_DIGITS);
    // Every Lease write passed the fake's RFC3339Micro check (it answers 400 otherwise).
    expect(api.requests.filter((r) => r.resource === LEASES && r.status === 400)).toEqual([]);
  });

  it("leaves a lease held by a live peer alone", async () => {
    seedLease({
      holderIdentity: "peer",
      leaseDurationSeconds: 30,
      renewTime: microTimeOf(Date.now()),
      leaseTransitions: 0,
    });
    const a = elector("pod-a");
    campaign(a);
    await sleep(500);
    expect(a.isLeader()).toBe(false);
    expect(api.requests.filter((r) => r.resource === LEASES && r.method !== "GET")).toEqual([]);
    expect(lease()?.spec?.holderIdentity).toBe("peer");
  });

  it("hands over promptly when the leader stops: release clears the holder, the peer takes it", async () => {
    const a = elector("pod-a");
    const ca = campaign(a);
    await waitFor("pod-a leads", () => a.isLeader());
    const b = elector("pod-b");
    campaign(b);
    await sleep(250);
    expect(b.isLeader()).toBe(false);
    const stoppedAt = Date.now();
    ca.stop.abort();
    await ca.done;
    expect(ca.terms[0]?.signal.aborted).toBe(true);
    const released = api.store.history
      .filter((c) => c.resource === LEASES && c.type === "MODIFIED")
      .at(-1);
    expect(released?.object.spec?.holderIdentity).toBeUndefined();
    await waitFor("pod-b leads", () => b.isLeader());
    // Well under the 1 s lease duration: the peer did not wait for expiry.
    expect(Date.now() - stoppedAt).toBeLessThan(600);
    expect(lease()?.spec?.holderIdentity).toBe("pod-b");
    expect(lease()?.spec?.leaseTransitions).toBe(1);
  });

  it("still releases when stopped mid-renewal (the cut-short renewal landed and moved resourceVersion)", async () => {
    const a = elector("pod-a");
    const ca = campaign(a);
    await waitFor("pod-a leads", () => a.isLeader());
    const b = elector("pod-b");
    campaign(b);
    const puts = () =>
      api.requests.filter((r) => r.method === "PUT" && r.resource === LEASES).length;
    const before = puts();
    const renewedRv = () => Number(lease()?.metadata.resourceVersion);
    const rvBefore = renewedRv();
    api.fault({ method: "PUT", path: /leases\/dispatcher$/, respondAfterMs: 2_000, times: 1 });
    await waitFor(
      "a renewal applied but not yet answered",
      () => puts() > before && renewedRv() > rvBefore,
    );
    const stoppedAt = Date.now();
    ca.stop.abort();
    await ca.done;
    await waitFor("pod-b leads", () => b.isLeader());
    expect(Date.now() - stoppedAt).toBeLessThan(700);
    expect(
      api.requests.some((r) => r.method === "PUT" && r.resource === LEASES && r.status === 409),
    ).toBe(true);
  });

  it("keeps the fence open while renewals succeed", async () => {
    const a = elector("pod-a");
    const ca = campaign(a);
    await waitFor("pod-a leads", () => a.isLeader());
    const fence = ca.terms[0]?.fence as Fence;
    const until = Date.now() + 1_500; // longer than the lease: only renewals keep it open
    while (Date.now() < until) {
      await expect(fence(undefined as never)).resolves.toBeUndefined();
      await sleep(50);
    }
  });

  it("aborts the task and closes the fence when renewals fail with 500s", async () => {
    const a = elector("pod-a");
    const ca = campaign(a);
    await waitFor("pod-a leads", () => a.isLeader());
    const term = ca.terms[0] as Term;
    const failingSince = Date.now();
    api.fault({ method: "PUT", path: /leases\/dispatcher$/, status: 500 });
    await waitFor("the task's signal aborts", () => term.signal.aborted, 3_000);
    expect(Date.now() - failingSince).toBeLessThan(600 + 300);
    expect(term.signal.reason).toBeInstanceOf(LeadershipLostError);
    expect(a.isLeader()).toBe(false);
    await expect(term.fence(undefined as never)).rejects.toBeInstanceOf(LeadershipLostError);
  });

  it("aborts at the renew deadline when the API server stops answering", async () => {
    const a = elector("pod-a");
    const ca = campaign(a);
    await waitFor("pod-a leads", () => a.isLeader());
    const term = ca.terms[0] as Term;
    const pausedSince = Date.now();
    api.fault({ method: "PUT", path: /leases\/dispatcher$/, hang: true });
    await waitFor("the task's signal aborts", () => term.signal.aborted, 3_000);
    expect(Date.now() - pausedSince).toBeLessThan(600 + 300);
    await expect(term.fence(undefined as never)).rejects.toThrow(LeadershipLostError);
  });

  it("closes the fence on its own once the last renewal is too old, even before the loop notices", async () => {
    let clock = Date.now();
    const a = elector("pod-a", { now: () => clock, fenceMarginMs: 300 });
    const ca = campaign(a);
    await waitFor("pod-a leads", () => a.isLeader());
    const fence = ca.terms[0]?.fence as Fence;
    await expect(fence(undefined as never)).resolves.toBeUndefined();
    clock += 750; // leaseDuration (1000) − margin (300) = 700 ms since the last renewal
    await expect(fence(undefined as never)).rejects.toThrow(/last renewed/);
  });

  it("loses leadership at once when a renewal finds the lease taken by a peer", async () => {
    const a = elector("pod-a");
    const ca = campaign(a);
    await waitFor("pod-a leads", () => a.isLeader());
    const current = lease();
    if (!current) throw new Error("no lease");
    api.store.update(LEASES, NS, "dispatcher", {
      ...current,
      spec: { ...current.spec, holderIdentity: "usurper", renewTime: microTimeOf(Date.now()) },
    });
    await waitFor("pod-a steps down", () => ca.terms[0]?.signal.aborted, 1_000);
    expect(String((ca.terms[0]?.signal.reason as Error).message)).toMatch(/usurper/);
    expect(lease()?.spec?.holderIdentity).toBe("usurper");
  });

  it("refuses settings where a peer could take over before the leader gives up", () => {
    expect(() => elector("pod-a", { renewDeadlineMs: 1_000 })).toThrow(/renewDeadlineMs/);
    expect(() => elector("pod-a", { retryPeriodMs: 700 })).toThrow(/retryPeriodMs/);
    expect(() => elector("")).toThrow(/identity/);
  });
});
