// The event backbone's spans and metrics (@svc/events): outbox relay and change detection, on
// real PostgreSQL, MariaDB and NATS, with the real SDK bootstrap exporting to memory.
import { SpanKind } from "@opentelemetry/api";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  drainNats,
  names,
  type JetStreamClient,
  type JetStreamManager,
  type NatsConnection,
} from "@svc/messaging";
import { createMetrics, sampleValue, type Metrics } from "@svc/telemetry";
import { createTempPgDatabase, testEnv, type TempDatabase } from "@svc/testing";
import { startRelay } from "@svc/events";
import {
  connectForTest,
  deleteNamespaceStreams,
  readStream,
  recordingLogger,
  testNamespace,
} from "../../shared/events/test/support/nats.ts";
import { enqueueMany, freshSchema } from "../../shared/events/test/support/outbox-fixtures.ts";
import { testPool } from "../../shared/events/test/support/pg.ts";
import {
  openWorld,
  scenario,
  type DetectorWorld,
} from "../../shared/events/test/support/detector-fixtures.ts";
import {
  parentIdOf,
  spanIdOf,
  startInMemoryTracing,
  traceIdOf,
  type Tracing,
} from "./support/tracing.ts";
import { expectCatalogued } from "./support/metric-labels.ts";

const PRODUCER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const PRODUCER_SPAN = "00f067aa0ba902b7";
const STORED = {
  traceparent: `00-${PRODUCER_TRACE}-${PRODUCER_SPAN}-01`,
  tracestate: "vendor=abc",
};

let tracing: Tracing;
let database: TempDatabase;
let pool: pg.Pool;
let nc: NatsConnection;
let js: JetStreamClient;
let jsm: JetStreamManager;
let world: DetectorWorld;
const namespaces: string[] = [];
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  tracing = await startInMemoryTracing("events-test");
  database = await createTempPgDatabase("obs_events");
  pool = testPool(database.url);
  ({ nc, js, jsm } = await connectForTest(testEnv.TEST_NATS_URL, "observability-events-test"));
  world = await openWorld();
});

afterAll(async () => {
  for (const close of closers) await close();
  for (const ns of namespaces) await deleteNamespaceStreams(jsm, ns);
  await drainNats(nc, { timeoutMs: 2_000 });
  await pool?.end();
  await database?.drop();
  await world?.close();
  await tracing?.stop();
});

function meter(): Metrics {
  const m = createMetrics({
    serviceName: "events-test",
    serviceVersion: "0.0.0",
    environment: "sandbox",
    otlp: false,
  });
  closers.push(() => m.shutdown());
  return m;
}

async function relaySetup(withMeter?: Metrics) {
  const ns = testNamespace();
  namespaces.push(ns);
  const schema = await freshSchema(pool);
  const n = names(ns);
  const relay = startRelay({
    pool,
    schema,
    js,
    jsm,
    names: n,
    logger: recordingLogger(),
    autoStart: false,
    ...(withMeter && { meter: withMeter.meter }),
  });
  closers.push(() => relay.stop());
  return { schema, n, relay };
}

describe("outbox relay tracing", () => {
  it("publishes each row in a PRODUCER span continuing the stored trace, linked to its batch span, and sends that span's context", async () => {
    const { schema, n, relay } = await relaySetup();
    const [traced] = await enqueueMany(pool, schema, 1, STORED);
    const [untraced] = await enqueueMany(pool, schema, 1);
    expect(await relay.runOnce()).toBe(2);

    const batch = tracing.one(
      "relay batch span",
      (s) => s.name === "outbox relay batch" && s.attributes["db.namespace"] === schema,
    );
    expect(batch.parentSpanContext).toBeUndefined();
    expect(batch.attributes).toMatchObject({
      "messaging.batch.message_count": 2,
      "outbox.sent": 2,
    });

    const send = tracing.one(
      "send span of the traced row",
      (s) => s.attributes["messaging.message.id"] === traced!.event_uuid,
    );
    expect(send.kind).toBe(SpanKind.PRODUCER);
    expect(traceIdOf(send)).toBe(PRODUCER_TRACE);
    expect(parentIdOf(send)).toBe(PRODUCER_SPAN);
    expect(send.links.map((l) => l.context.spanId)).toEqual([spanIdOf(batch)]);
    expect(send.attributes["messaging.destination.name"]).toBe(n.eventSubject("vacancy.updated"));

    // A row written outside any trace is published as part of the batch's trace.
    const orphan = tracing.one(
      "send span of the untraced row",
      (s) => s.attributes["messaging.message.id"] === untraced!.event_uuid,
    );
    expect(traceIdOf(orphan)).toBe(traceIdOf(batch));
    expect(parentIdOf(orphan)).toBe(spanIdOf(batch));

    const stored = await readStream(js, jsm, n.eventsStream);
    const message = stored.find((m) => m.msgId === traced!.event_uuid);
    expect(message?.traceparent).toBe(`00-${PRODUCER_TRACE}-${spanIdOf(send)}-01`);
    expect(message?.tracestate).toBe("vendor=abc");
    expect(stored.find((m) => m.msgId === untraced!.event_uuid)?.traceparent).toBe(
      `00-${traceIdOf(batch)}-${spanIdOf(orphan)}-01`,
    );
  });

  it("makes no span for a poll that finds nothing to publish", async () => {
    const { schema, relay } = await relaySetup();
    expect(await relay.runOnce()).toBe(0);
    expect(tracing.spans().filter((s) => s.attributes["db.namespace"] === schema)).toEqual([]);
  });
});

describe("outbox metrics", () => {
  it("reports the backlog and the age of the oldest pending row, and both fall to 0 once relayed", async () => {
    const metrics = meter();
    const { schema, relay } = await relaySetup(metrics);
    await enqueueMany(pool, schema, 3);
    await pool.query(
      `UPDATE "${schema}".outbox SET created_at = now() - interval '90 seconds' WHERE id = (SELECT min(id) FROM "${schema}".outbox)`,
    );
    const labels = { outbox_schema: schema };
    let text = await metrics.scrape();
    expect(sampleValue(text, "outbox_pending", labels)).toBe(3);
    const age = sampleValue(text, "outbox_oldest_pending_age", labels);
    expect(age).toBeGreaterThanOrEqual(90);
    expect(age).toBeLessThan(90 + 60);
    expectCatalogued(text, ["outbox_pending", "outbox_oldest_pending_age"]);

    expect(await relay.runOnce()).toBe(3);
    text = await metrics.scrape();
    expect(sampleValue(text, "outbox_pending", labels)).toBe(0);
    expect(sampleValue(text, "outbox_oldest_pending_age", labels)).toBe(0);
  });
});

describe("change detection", () => {
  it("runs each pass in a span of its own and stores that span's context with the events it writes", async () => {
    const s = await scenario(world);
    closers.push(s.close);
    await s.insert("v1", { modified: s.local(-3_600_000) });
    await s.detector.runIncremental(); // baseline
    s.advance(60_000);
    await s.insert("v2");
    s.advance(1_000);
    expect(await s.detector.runIncremental()).toMatchObject({ kind: "incremental", created: 1 });

    const passes = tracing
      .spans()
      .filter(
        (sp) =>
          sp.name === "change detection pass" &&
          sp.attributes["change_detection.source"] === s.source.name,
      );
    const pass = passes.find((sp) => sp.attributes["change_detection.created"] === 1);
    expect(pass).toBeDefined();
    expect(pass!.parentSpanContext).toBeUndefined();
    expect(pass!.attributes["change_detection.kind"]).toBe("incremental");
    const { rows } = await world.pool.query<{ trace_context: Record<string, string> }>(
      `SELECT trace_context FROM "${s.schema}".outbox`,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.trace_context.traceparent).toBe(`00-${traceIdOf(pass!)}-${spanIdOf(pass!)}-01`);
  });

  it("records no span for a pass that finds nothing, and counts it", async () => {
    const metrics = meter();
    const s = await scenario(world, { meter: metrics.meter });
    closers.push(s.close);
    await s.insert("q1", { modified: s.local(-3_600_000) });
    const start = tracing.spans().length;
    await s.detector.runIncremental(); // baseline: writes the state, so it is traced
    const passSpans = tracing
      .spans()
      .slice(start)
      .filter((sp) => sp.name === "change detection pass");
    expect(passSpans.map((sp) => sp.attributes["change_detection.kind"])).toEqual(["baseline"]);
    const before = tracing.spans().length;
    s.advance(60_000);
    for (let i = 0; i < 3; i++) {
      await s.detector.runQuick();
      await s.detector.runIncremental();
    }
    await s.detector.runSweep();
    // No span at all: neither a pass nor any of its reads.
    expect(
      tracing
        .spans()
        .slice(before)
        .map((sp) => sp.name),
    ).toEqual([]);

    const text = await metrics.scrape();
    const count = (kind: string, outcome: string) =>
      sampleValue(text, "change_detection_passes_total", {
        change_detection_source: s.source.name,
        change_detection_kind: kind,
        outcome,
      });
    expect(count("baseline", "changed")).toBe(1);
    expect(count("quick", "unchanged")).toBe(3);
    expect(count("incremental", "unchanged")).toBe(3);
    expect(count("sweep", "unchanged")).toBe(1);
    expect(count("incremental", "changed")).toBeUndefined();
    expectCatalogued(text, ["change_detection_passes_total"]);
  });

  it("counts pass durations by kind and the changes found by kind of change", async () => {
    const metrics = meter();
    const s = await scenario(world, { meter: metrics.meter });
    closers.push(s.close);
    await s.insert("a1", { modified: s.local(-3_600_000) });
    await s.insert("a2", { modified: s.local(-3_600_000) });
    await s.detector.runIncremental(); // baseline: no events
    s.advance(60_000);
    await s.insert("a3");
    await s.insert("a4");
    await s.update("a1", { title: "Changed title", modified: s.local() });
    s.advance(1_000);
    await s.detector.runIncremental();
    s.advance(60_000);
    await s.remove("a2");
    await s.detector.runSweep();

    const text = await metrics.scrape();
    const source = { change_detection_source: s.source.name };
    expect(
      sampleValue(text, "change_detection_changes_total", {
        ...source,
        change_detection_change: "created",
      }),
    ).toBe(2);
    expect(
      sampleValue(text, "change_detection_changes_total", {
        ...source,
        change_detection_change: "updated",
      }),
    ).toBe(1);
    expect(
      sampleValue(text, "change_detection_changes_total", {
        ...source,
        change_detection_change: "deleted",
      }),
    ).toBe(1);
    const count = (kind: string) =>
      sampleValue(text, "change_detection_pass_duration_count", {
        ...source,
        change_detection_kind: kind,
        outcome: "ok",
      });
    expect([count("baseline"), count("incremental"), count("sweep")]).toEqual([1, 1, 1]);
    const passes = (kind: string) =>
      sampleValue(text, "change_detection_passes_total", {
        ...source,
        change_detection_kind: kind,
        outcome: "changed",
      });
    expect([passes("baseline"), passes("incremental"), passes("sweep")]).toEqual([1, 1, 1]);
    expectCatalogued(text, [
      "change_detection_pass_duration",
      "change_detection_changes_total",
      "change_detection_passes_total",
    ]);
  });
});
