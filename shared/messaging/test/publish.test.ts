import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testEnv } from "@svc/testing";
import { AckPolicy, jetstream } from "@nats-io/jetstream";
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import {
  drainNats,
  ensureStream,
  eventsStreamConfig,
  getHeader,
  getTraceContext,
  makeHeaders,
  names,
  natsHeaderGetter,
  natsHeaderSetter,
  publish,
  setTraceContext,
} from "../src/index.ts";
import { connectForTest, deleteNamespaceStreams, testNamespace } from "./support.ts";

const ns = testNamespace();
const n = names(ns);
const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
let nc: NatsConnection;
let jsm: JetStreamManager;
let js: JetStreamClient;

beforeAll(async () => {
  ({ nc, jsm } = await connectForTest(testEnv.TEST_NATS_URL, "messaging-publish-test"));
  js = jetstream(nc);
  await ensureStream(jsm, eventsStreamConfig(n));
});
afterAll(async () => {
  await deleteNamespaceStreams(jsm, ns);
  await drainNats(nc);
});

/** Reads back the next message from a fresh consumer on one subject. */
async function readBack(subject: string) {
  const ci = await jsm.consumers.add(n.eventsStream, {
    ack_policy: AckPolicy.None,
    filter_subject: subject,
  });
  const msg = await (await js.consumers.get(n.eventsStream, ci.name)).next({ expires: 2_000 });
  if (!msg) throw new Error(`nothing on ${subject}`);
  return msg;
}

describe("publish", () => {
  it("stores a message once when published twice with the same msgId, and reports the repeat", async () => {
    const subject = n.eventSubject("vacancy.updated");
    const first = await publish(js, subject, { v: 1, id: "a" }, { msgId: "evt-1" });
    const second = await publish(js, subject, { v: 1, id: "a" }, { msgId: "evt-1" });
    expect(first.duplicate).toBe(false);
    expect(second).toMatchObject({ duplicate: true, seq: first.seq, stream: n.eventsStream });
    const state = (await jsm.streams.info(n.eventsStream, { subjects_filter: subject })).state;
    expect(state.subjects?.[subject]).toBe(1);
  });

  it("stores messages with different msgIds separately", async () => {
    const subject = n.eventSubject("practice.created");
    const a = await publish(js, subject, { n: 1 }, { msgId: "evt-a" });
    const b = await publish(js, subject, { n: 2 }, { msgId: "evt-b" });
    expect(b.seq).toBeGreaterThan(a.seq);
    expect(b.duplicate).toBe(false);
  });

  it("round-trips the JSON payload, the msgId and custom headers", async () => {
    const subject = n.eventSubject("candidate.created");
    await publish(
      js,
      subject,
      { name: "Zoë", tags: ["a"], n: null },
      { msgId: "evt-h", headers: { "x-tenant": "t1" } },
    );
    const msg = await readBack(subject);
    expect(msg.json()).toEqual({ name: "Zoë", tags: ["a"], n: null });
    expect(getHeader(msg.headers, "Nats-Msg-Id")).toBe("evt-h");
    expect(getHeader(msg.headers, "X-Tenant")).toBe("t1");
  });

  it("rejects a subject no stream captures instead of pretending it was stored", async () => {
    await expect(publish(js, `${ns}.nowhere`, {}, { timeoutMs: 1_000 })).rejects.toThrow();
  });
});

describe("trace context headers", () => {
  it("carries traceparent and tracestate through the stream", async () => {
    const subject = n.eventSubject("application.submitted");
    const h = setTraceContext(makeHeaders(), {
      traceparent: TRACEPARENT,
      tracestate: "vendor=abc",
    });
    await publish(js, subject, {}, { headers: h });
    expect(getTraceContext((await readBack(subject)).headers)).toEqual({
      traceparent: TRACEPARENT,
      tracestate: "vendor=abc",
    });
  });

  it("reads a trace context written with other capitalisation", async () => {
    const subject = n.eventSubject("application.created");
    await publish(js, subject, {}, { headers: { Traceparent: TRACEPARENT, TraceState: "k=v" } });
    const msg = await readBack(subject);
    // The pitfall: an exact-case read misses it.
    expect(msg.headers?.get("traceparent")).toBe("");
    expect(getTraceContext(msg.headers)).toEqual({ traceparent: TRACEPARENT, tracestate: "k=v" });
    expect(natsHeaderGetter.get(msg.headers!, "TRACEPARENT")).toBe(TRACEPARENT);
  });

  it("ignores a malformed traceparent", () => {
    expect(getTraceContext(makeHeaders({ traceparent: "00-xyz-01" }))).toBeUndefined();
    expect(
      getTraceContext(makeHeaders({ traceparent: TRACEPARENT.toUpperCase() })),
    ).toBeUndefined();
    expect(getTraceContext(undefined)).toBeUndefined();
  });

  it("replaces a header under any capitalisation instead of adding a second one", () => {
    const h = makeHeaders({ TraceParent: "00-old" });
    natsHeaderSetter.set(h, "traceparent", TRACEPARENT);
    expect(h.keys()).toEqual(["traceparent"]);
    expect(getTraceContext(h)?.traceparent).toBe(TRACEPARENT);
  });
});
