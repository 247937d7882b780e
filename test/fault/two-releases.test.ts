/**
 * Two releases in one namespace: two dispatcher groups (two replicas each, real processes), each
 * with its own database and NATS namespace, its Lease named after the release
 * (LEADER_ELECTION_NAME) and its operator selecting the release's WebhookSubscriptions
 * (OPERATOR_LABEL_SELECTOR), as the chart configures them. Both run side by side; each reconciles
 * and delivers only its own subscriptions; the leader of one is SIGKILLed and the other goes on
 * leading, reconciling and delivering while the first fails over.
 *
 * The API server is FakeKubeApi of @svc/testing/kube, a fake: no kube-apiserver can run on these
 * machines. Each release talks to it with its own token, so its requests are told apart.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureStream, eventsStreamConfig, jetstreamManager } from "@svc/messaging";
import { createTestCa, type TestCa } from "@svc/testing";
import { FakeKubeApi, type Obj } from "@svc/testing/kube";
import { spawnDispatcher } from "../../services/webhooks/test/support/dispatcher-process.ts";
import {
  fakeResolver,
  startHarness,
  waitFor,
  type Harness,
} from "../../services/webhooks/test/support/harness.ts";
import { killHard } from "../../services/webhooks/test/support/private-nats.ts";
import { startReceiver, type Receiver } from "../../services/webhooks/test/support/receiver.ts";
import { SLACK_MS } from "./support/expectations.ts";

const CRD = fileURLToPath(
  new URL(
    "../../charts/integration-service/crds/webhooksubscriptions.integration.svc.io.yaml",
    import.meta.url,
  ),
);
const NAMESPACE = "integration";
const WHS = "integration.svc.io/v1alpha1/webhooksubscriptions";
const LEASES = "coordination.k8s.io/v1/leases";
const RELEASE_LABEL = "integration.svc.io/release";
/** A killed leader's Lease expires after its 15 s (docs/decisions/leader-election-bounds.md). */
const LEASE_TAKEOVER_MS = 17_400 + SLACK_MS;

type Release = {
  name: string;
  h: Harness;
  pods: Map<string, ChildProcess>;
  lease: string;
};

let api: FakeKubeApi;
let ca: TestCa;
let receiver: Receiver;
let dir: string;
const releases: Release[] = [];

function spawnPod(release: Release, pod: string): void {
  const child = spawnDispatcher({
    ...release.h.env,
    LOG_LEVEL: "warn",
    INTERNAL_PORT: "0",
    OPERATOR_ENABLED: "true",
    LEADER_ELECTION: "lease",
    LEADER_ELECTION_NAME: release.lease,
    OPERATOR_LABEL_SELECTOR: `${RELEASE_LABEL}=${release.name}`,
    POD_NAME: pod,
    POD_NAMESPACE: NAMESPACE,
    KUBECONFIG: join(dir, `${release.name}.kubeconfig`),
  });
  release.pods.set(pod, child);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "two-releases-"));
  api = await FakeKubeApi.start();
  const created = await fetch(`${api.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(parse(readFileSync(CRD, "utf8"))),
  });
  expect(created.status).toBe(201);
  ca = createTestCa();
  receiver = await startReceiver({ key: ca.serverKey, cert: ca.serverCert });
  for (const name of ["isvc-a", "isvc-b"]) {
    const h = await startHarness({ resolver: fakeResolver(), caFile: ca.caFile });
    await ensureStream(await jetstreamManager(h.nc), eventsStreamConfig(h.n));
    writeFileSync(join(dir, `${name}.kubeconfig`), api.kubeConfigYaml(NAMESPACE, name));
    releases.push({ name, h, pods: new Map(), lease: `${name}-dispatcher` });
  }
  for (const release of releases)
    for (const i of [0, 1]) spawnPod(release, `${release.lease}-${i}`);
}, 60_000);

afterAll(async () => {
  await Promise.all(releases.flatMap((r) => [...r.pods.values()].map((c) => killHard(c))));
  for (const r of releases) await r.h.close();
  await receiver?.close();
  await api?.close();
  ca?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const pathOf = (release: Release, resource: string) => `/${release.name}/${resource}`;

function declare(release: Release, resource: string): void {
  api.store.create(WHS, NAMESPACE, {
    apiVersion: "integration.svc.io/v1alpha1",
    kind: "WebhookSubscription",
    metadata: { name: resource, labels: { [RELEASE_LABEL]: release.name } },
    spec: {
      clientId: `cl_${release.name}`,
      url: receiver.url(pathOf(release, resource)),
      eventTypes: ["vacancy.created"],
      secretName: `${resource}-signing`,
    },
  });
}

/** Waits for Ready=True and hands the receiver the signing secret the operator wrote. */
async function readyWithSecret(release: Release, resource: string, timeoutMs: number) {
  const cr = await waitFor(
    `${resource} Ready`,
    () => {
      const found = api.store.find(WHS, NAMESPACE, resource);
      const ready = (found?.status?.conditions as Array<{ type: string; status: string }>)?.find(
        (c) => c.type === "Ready",
      );
      return ready?.status === "True" && found;
    },
    timeoutMs,
  );
  const secret = api.store.find("v1/secrets", NAMESPACE, `${resource}-signing`) as Obj;
  const value = Buffer.from((secret.data as { secret: string }).secret, "base64").toString();
  receiver.setSecrets(pathOf(release, resource), [value]);
  return cr;
}

async function delivered(release: Release, resource: string, timeoutMs = 15_000) {
  const event = await release.h.publishEvent("vacancy.created");
  const got = await waitFor(
    `${release.name}'s delivery to ${resource}`,
    () => receiver.received(pathOf(release, resource), event.event_uuid)[0],
    timeoutMs,
  );
  expect(got.verifiedWith).toHaveLength(1);
  return event.event_uuid;
}

const holderOf = (release: Release) =>
  api.store.find(LEASES, NAMESPACE, release.lease)?.spec?.holderIdentity as string | undefined;
const renewedAt = (release: Release) =>
  api.store.find(LEASES, NAMESPACE, release.lease)?.spec?.renewTime as string | undefined;

async function ownersIn(release: Release): Promise<string[]> {
  const { rows } = await release.h.pool.query<{ owner: string }>(
    "SELECT owner_client_id AS owner FROM webhooks.subscriptions ORDER BY 1",
  );
  return rows.map((r) => r.owner);
}

describe("two releases in one namespace", () => {
  it("lead, reconcile and deliver side by side; one leader's death leaves the other undisturbed", async () => {
    const [a, b] = releases as [Release, Release];
    for (const r of releases) declare(r, `${r.name}-feed`);
    // Four dispatchers start at once on a busy machine: allow them a minute and a half.
    await readyWithSecret(a, "isvc-a-feed", 90_000);
    await readyWithSecret(b, "isvc-b-feed", 30_000);
    const started = Date.now();

    // Each group holds its own Lease, named after its release, with one of its own pods.
    expect([...a.pods.keys()]).toContain(holderOf(a));
    expect([...b.pods.keys()]).toContain(holderOf(b));
    // Each reconciled only its own resource into its own store, and delivers only there.
    expect(await ownersIn(a)).toEqual(["cl_isvc-a"]);
    expect(await ownersIn(b)).toEqual(["cl_isvc-b"]);
    const aEvent = await delivered(a, "isvc-a-feed");
    const bEvent = await delivered(b, "isvc-b-feed");
    expect(receiver.received(pathOf(b, "isvc-b-feed"), aEvent)).toEqual([]);
    expect(receiver.received(pathOf(a, "isvc-a-feed"), bEvent)).toEqual([]);

    // SIGKILL a's leader: its Lease stays until it expires.
    const aLeader = holderOf(a)!;
    const bLeader = holderOf(b)!;
    const bRenewed = renewedAt(b);
    await killHard(a.pods.get(aLeader)!);
    const killedAt = Date.now();

    // Meanwhile b keeps its leader and renews, reconciles a new resource and delivers.
    declare(b, "isvc-b-second");
    await readyWithSecret(b, "isvc-b-second", 10_000);
    await delivered(b, "isvc-b-second", 10_000);
    expect(holderOf(b)).toBe(bLeader);
    // It renews every 2 s (jittered): within two periods and the slack.
    await waitFor("b to renew its Lease", () => renewedAt(b) !== bRenewed, 4_000 + SLACK_MS);
    expect(holderOf(b)).toBe(bLeader);
    // a's resource declared while a has no leader waits for a's next leader, not b's.
    declare(a, "isvc-a-second");

    const aNext = await waitFor(
      "a's other pod to take a's Lease",
      () => holderOf(a) !== aLeader && holderOf(a),
      LEASE_TAKEOVER_MS,
    );
    const takeoverMs = Date.now() - killedAt;
    expect(takeoverMs).toBeLessThanOrEqual(LEASE_TAKEOVER_MS);
    expect([...a.pods.keys()].filter((p) => p !== aLeader)).toEqual([aNext]);
    await readyWithSecret(a, "isvc-a-second", 15_000);
    await delivered(a, "isvc-a-second");
    expect(holderOf(b)).toBe(bLeader);
    expect(await ownersIn(a)).toEqual(["cl_isvc-a", "cl_isvc-a"]);
    expect(await ownersIn(b)).toEqual(["cl_isvc-b", "cl_isvc-b"]);

    // Nothing of a's touched b's Lease or resources, and the reverse.
    for (const [self, other] of [
      [a, b],
      [b, a],
    ] as const) {
      const mine = api.requests.filter((r) => r.token === self.name);
      expect(mine.filter((r) => r.resource === LEASES).map((r) => r.name ?? "")).not.toContain(
        other.lease,
      );
      const foreign = mine.filter(
        (r) => r.resource === WHS && r.name?.startsWith(other.name) === true,
      );
      expect(foreign).toEqual([]);
    }
    console.log(
      `two releases: a's Lease taken over ${takeoverMs} ms after its leader's SIGKILL; ${Date.now() - started} ms from both Ready to the end`,
    );
  }, 180_000);
});
