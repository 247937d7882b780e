// The label catalogue (support/metric-labels.ts) against the metrics the other observability tests
// do not record: token issuance and request durations from the auth service, the revocation feed's
// staleness, message handler failures, the operator's controller metrics and the auto-disable
// counter, each recorded by the services' own code paths and scraped as Prometheus would.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRevocationFeed } from "@svc/auth";
import { controllerMetrics } from "@svc/k8s";
import {
  connectNats,
  drainNats,
  ensureConsumer,
  ensureStream,
  eventsFanoutConsumerConfig,
  eventsStreamConfig,
  jetstream,
  jetstreamManager,
  names,
  startConsumer,
} from "@svc/messaging";
import { createMetrics, sampleValue, type Metrics } from "@svc/telemetry";
import { silentLogger, testEnv, waitFor } from "@svc/testing";
import { startAuth, type AuthUnderTest } from "../../services/auth/test/support/harness.ts";
import {
  autoDisabledCounter,
  disableFailingEndpoints,
} from "../../services/webhooks/src/workers/auto-disable/auto-disable-task.ts";
import { LEADERSHIP_NAME } from "../../services/webhooks/src/workers/start-leader-group.ts";
import { leaderReporting } from "../../services/webhooks/src/workers/operator/start-operator.ts";
import { Harness } from "../../services/webhooks/test/support/subscription-harness.ts";
import { expectCatalogued } from "./support/metric-labels.ts";

const newMetrics = (serviceName: string) =>
  createMetrics({ serviceName, serviceVersion: "0.0.0", environment: "sandbox", otlp: false });

describe("auth service metrics", () => {
  let metrics: Metrics;
  let auth: AuthUnderTest;
  beforeAll(async () => {
    metrics = newMetrics("auth");
    auth = await startAuth({}, { meter: metrics.meter });
  });
  afterAll(async () => {
    await auth?.close();
    await metrics?.shutdown();
  });

  it("token issuance, request durations and revocation staleness carry the catalogued labels", async () => {
    const { client, secret } = await auth.manager.create({
      name: "labels",
      scopes: ["vacancies:read"],
    });
    expect((await auth.token(client.id, secret)).status).toBe(200);
    expect((await auth.token(client.id, "wrong")).status).toBe(401);
    expect((await auth.token(client.id, secret, "grant_type=password")).status).toBe(400);
    const feed = startRevocationFeed({
      config: auth.config,
      name: "labels-test",
      logger: silentLogger(),
      connection: auth.nc,
      probeIntervalMs: 100,
      meter: metrics.meter,
    });
    try {
      await feed.loaded;
      await waitFor(
        "a staleness sample",
        async () =>
          sampleValue(await metrics.scrape(), "auth_revocation_list_staleness") !== undefined,
        5_000,
      );
      expectCatalogued(await metrics.scrape(), [
        "auth_token_issuance_total",
        "http_server_request_duration",
        "auth_revocation_list_staleness",
      ]);
    } finally {
      await feed.stop();
    }
  });
});

describe("message consumer metrics", () => {
  it("handler failures carry the catalogued labels", async () => {
    const metrics = newMetrics("webhooks-dispatcher");
    const nc = await connectNats({
      servers: testEnv.TEST_NATS_URL,
      name: "metric-labels-test",
      logger: silentLogger(),
    });
    const n = names(`t${randomBytes(5).toString("hex")}`);
    const jsm = await jetstreamManager(nc);
    const js = jetstream(nc);
    const spec = eventsFanoutConsumerConfig(n);
    try {
      await ensureStream(jsm, eventsStreamConfig(n));
      await ensureConsumer(jsm, n.eventsStream, spec);
      await js.publish(n.eventSubject("practice.updated"), "{}");
      const consumer = await startConsumer({
        js,
        stream: n.eventsStream,
        consumer: spec.durable_name,
        concurrency: 1,
        handler: () => {
          throw new Error("dependency down");
        },
        logger: silentLogger(),
        errorDelayMs: 50,
        meter: metrics.meter,
      });
      await waitFor(
        "a counted failure",
        async () => (await metrics.scrape()).includes("messaging_consumer_handler_failures_total{"),
        5_000,
      );
      await consumer.stop();
      expectCatalogued(await metrics.scrape(), ["messaging_consumer_handler_failures_total"]);
    } finally {
      await jsm.streams.delete(n.eventsStream).catch(() => undefined);
      await drainNats(nc);
      await metrics.shutdown();
    }
  });
});

describe("dispatcher leader-only metrics", () => {
  let h: Harness | undefined;
  afterAll(async () => {
    await h?.close();
  });

  it("the operator's controller, workqueue and leader metrics carry the catalogued labels", async () => {
    const metrics = newMetrics("webhooks-dispatcher");
    const controller = controllerMetrics(metrics.meter);
    h = await Harness.start({ metrics: controller });
    const task = leaderReporting(controller, LEADERSHIP_NAME, {
      name: "idle",
      run: (signal) =>
        new Promise<void>((r) => signal.addEventListener("abort", () => r(), { once: true })),
    });
    const stop = new AbortController();
    const running = task.run(stop.signal, undefined as never);
    try {
      h.port.down = true;
      h.create("labels");
      await h.waitReady("labels", "False", "BackendUnavailable");
      h.port.down = false;
      await h.waitReady("labels", "True", "Reconciled");
      expectCatalogued(await metrics.scrape(), [
        "controller_runtime_reconcile_total",
        "controller_runtime_reconcile_errors_total",
        "controller_runtime_reconcile_time_seconds",
        "controller_runtime_active_workers",
        "controller_runtime_max_concurrent_reconciles",
        "workqueue_depth",
        "workqueue_adds_total",
        "workqueue_retries_total",
        "leader_election_master_status",
      ]);
    } finally {
      stop.abort();
      await running;
      await metrics.shutdown();
    }
  });

  it("the auto-disable counter carries the catalogued labels", async () => {
    const metrics = newMetrics("webhooks-dispatcher");
    try {
      const failing = {
        id: "s1",
        ownerClientId: "c1",
        firstFailureAt: new Date(0),
        lastSuccessAt: null,
      };
      const batches = [[failing], []];
      const disabled = await disableFailingEndpoints({
        store: { disableFailing: async () => batches.shift() ?? [] },
        settings: { afterMs: 1_000, everyMs: 1_000, batchSize: 1 },
        now: new Date(),
        logger: silentLogger(),
        counter: autoDisabledCounter(metrics.meter),
      });
      expect(disabled).toBe(1);
      expectCatalogued(await metrics.scrape(), ["webhooks_subscriptions_auto_disabled_total"]);
    } finally {
      await metrics.shutdown();
    }
  });
});
