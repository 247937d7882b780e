/**
 * The whole system on a three-node NATS JetStream cluster with every stream and bucket at three
 * replicas (NATS_REPLICAS=3), under load: applications created and legacy vacancy rows changed,
 * a webhook subscription counting event ids. Mid-burst the server leading the events stream is
 * SIGKILLed and stays down; the other two keep the quorum, and at the end every committed
 * application and legacy change has reached the receiver and every delivery record succeeded.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectNats, drainNats, jetstreamManager, names } from "@svc/messaging";
import {
  createTestCa,
  startPrivateMariaDb,
  startPrivateNatsCluster,
  startPrivatePostgres,
  type PrivateNatsCluster,
  type TestCa,
} from "@svc/testing";
import { startReceiver, type Receiver } from "../../services/webhooks/test/support/receiver.ts";
import { apiRequest, fetchToken } from "./support/api-client.ts";
import { sleep, waitUntil } from "./support/checks.ts";
import { deliveryReport, type DeliveryReport } from "./support/delivery-report.ts";
import { STACK_ENV } from "./support/expectations.ts";
import {
  launchStack,
  LEGACY_DATABASE,
  NATS_NAMESPACE,
  type Backends,
  type FaultStack,
  cleanUp,
} from "./support/fault-stack.ts";
import { Recorder } from "./support/load.ts";
import {
  startApplicationProducer,
  startLegacyChanges,
  type ApplicationProducer,
  type LegacyChanger,
  type VacancyRef,
} from "./support/producers.ts";

const SUBSCRIBED = ["application.created", "vacancy.updated"];
const BURST_MS = 24_000;
const KILL_AFTER_MS = 8_000;

let cluster: PrivateNatsCluster;
let backends: Backends;
let stack: FaultStack;
let ca: TestCa;
let receiver: Receiver;
let db: pg.Pool;
let token = "";
let applications: ApplicationProducer | undefined;
let changes: LegacyChanger | undefined;
let delivered: DeliveryReport | undefined;
const lines: string[] = [];
const runId = randomBytes(3).toString("hex");

const api = <T>(method: string, path: string, body?: unknown) =>
  apiRequest<T>(stack.baseUrl, token, method, path, body);

/** Which node leads a stream, and how many replicas it has, as the cluster reports it. */
async function streamPlacement(stream: string) {
  const nc = await connectNats({
    servers: cluster.urls,
    name: "nats-cluster-test",
    logger: { info: () => {}, warn: () => {}, error: () => {} },
  });
  try {
    const info = await (await jetstreamManager(nc)).streams.info(stream);
    return {
      replicas: info.config.num_replicas,
      leader: info.cluster?.leader ?? "",
      current: (info.cluster?.replicas ?? []).filter((r) => r.current).length,
    };
  } finally {
    await drainNats(nc, { timeoutMs: 1_000 });
  }
}

beforeAll(async () => {
  const [pgServer, mariadb, natsCluster] = await Promise.all([
    startPrivatePostgres(),
    startPrivateMariaDb(),
    startPrivateNatsCluster(3),
  ]);
  cluster = natsCluster;
  backends = {
    pg: pgServer,
    mariadb,
    nats: cluster.nodes[0]!,
    pgUrl: pgServer.urlFor("integration"),
    legacyUrl: mariadb.urlFor(LEGACY_DATABASE),
    cleanup: async () => {
      await Promise.allSettled([pgServer.cleanup(), mariadb.cleanup(), cluster.dispose()]);
    },
  };
  ca = createTestCa();
  receiver = await startReceiver({ key: ca.serverKey, cert: ca.serverCert });
  stack = await launchStack(backends, {
    ...STACK_ENV,
    WEBHOOK_EXTRA_CA_FILE: ca.caFile,
    NATS_URL: cluster.urls.join(","),
    NATS_REPLICAS: "3",
  });
  db = new pg.Pool({ connectionString: backends.pgUrl, max: 2, connectionTimeoutMillis: 2_000 });
  db.on("error", () => undefined);
  token = await fetchToken(stack.baseUrl, stack.demoClient);
  const sub = await api<{ data: { secret: string } }>("POST", "/v1/webhooks", {
    url: receiver.url("/cluster"),
    event_types: SUBSCRIBED,
  });
  if (sub.status !== 201) throw new Error(`subscription: ${sub.status}`);
  receiver.setSecrets("/cluster", [sub.body.data.secret]);
  await waitUntil(
    "the vacancy detector's baseline",
    async () =>
      (
        await db
          .query("SELECT 1 FROM vacancies.change_cursor WHERE source = 'vacancies'")
          .catch(() => ({ rowCount: 0 }))
      ).rowCount === 1,
    60_000,
  );
}, 240_000);

afterAll(async () => {
  await cleanUp("nats cluster", [
    async () => applications?.stop(0),
    async () => changes?.stop(),
    async () => db?.end(),
    async () => stack?.stop(),
    async () => receiver?.close(),
    async () => backends?.cleanup(),
    async () => ca?.dispose(),
  ]);
  console.info(["nats cluster fault test", ...lines, ...(delivered?.lines ?? [])].join("\n"));
}, 120_000);

describe("a three-node NATS cluster with three replicas", () => {
  it(
    "loses no event or delivery when the events stream's leader is killed mid-burst",
    { timeout: 240_000 },
    async () => {
      const events = names(NATS_NAMESPACE).eventsStream;
      const deliveries = names(NATS_NAMESPACE).deliveriesStream;
      for (const stream of [events, deliveries, `KV_${names(NATS_NAMESPACE).revocationsBucket}`])
        expect((await streamPlacement(stream)).replicas, stream).toBe(3);

      const listed = await api<{
        data: Array<{ uuid: string; practice: { legacy_reference: string | null } }>;
      }>("GET", "/v1/vacancies?per_page=100");
      const vacancies: VacancyRef[] = listed.body.data.map((v) => ({
        uuid: v.uuid,
        practiceId: v.practice.legacy_reference ?? "cluster-practice",
      }));
      const recorder = new Recorder();
      applications = startApplicationProducer({
        recorder,
        baseUrl: stack.baseUrl,
        token: () => token,
        vacancies,
        perSecond: 6,
        maxOutstanding: 20,
        runId,
      });
      changes = startLegacyChanges({
        legacyUrl: backends.legacyUrl,
        vacancyUuids: vacancies.map((v) => v.uuid),
        perSecond: 4,
        timeZone: "Europe/Brussels",
        runId,
      });

      await sleep(KILL_AFTER_MS);
      const before = await streamPlacement(events);
      const victim = cluster.nodes[Number(before.leader.replace(/^n/, "")) - 1]!;
      const killedAt = Date.now();
      await victim.kill();
      lines.push(`killed ${before.leader} (leader of ${events}) at t+${KILL_AFTER_MS} ms`);
      await waitUntil(
        "a new leader of the events stream",
        async () => {
          const after = await streamPlacement(events).catch(() => undefined);
          return after !== undefined && after.leader !== "" && after.leader !== before.leader;
        },
        30_000,
      );
      lines.push(`new leader elected ${Date.now() - killedAt} ms after the kill`);
      await sleep(BURST_MS - KILL_AFTER_MS);

      await changes.stop();
      await applications.stop(3_000);
      delivered = await deliveryReport({
        db,
        receiver,
        path: "/cluster",
        applications,
        changes,
        subscribed: SUBSCRIBED,
        failsFirst: () => false,
        timeoutMs: 90_000,
      });
      expect(applications.refused()).toEqual([]);
      expect(delivered.acknowledgedNotStored).toEqual([]);
      expect(delivered.missingEvents).toEqual([]);
      expect(delivered.missingApplications).toEqual([]);
      expect(delivered.missingChanges).toEqual([]);
      expect(delivered.unverified).toBe(0);
      expect(delivered.notSucceeded).toEqual([]);
      expect(delivered.deliveries).toBe(delivered.expectedEvents);
      expect(applications.acknowledged().length).toBeGreaterThan(50);
      expect(changes.committed().length).toBeGreaterThan(30);
    },
  );
});
