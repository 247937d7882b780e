import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Relay } from "@svc/events";
import {
  connectNats,
  drainNats,
  jetstreamManager,
  names,
  type NatsConnection,
} from "@svc/messaging";
import { EVENT_PAYLOAD_FIELDS, silentLogger, testEnv } from "@svc/testing";
import { startOutboxRelay } from "@svc/events";
import { readEventStream, type StreamReader } from "@svc/testing";
import {
  applicationBody,
  person,
  PUBLIC_BASE_URL,
  startHarness,
  type Harness,
} from "./support/harness.ts";

// The outbox relay as main.ts starts it: events written with each application reach the real
// events stream, in the contract's event payload, each exactly once.
let h: Harness;
let nc: NatsConnection;
let relay: Relay;
let stream: StreamReader;

beforeAll(async () => {
  h = await startHarness();
  nc = await connectNats({
    servers: testEnv.TEST_NATS_URL,
    name: "identity-relay-test",
    logger: silentLogger(),
  });
  relay = await startOutboxRelay({
    settings: h.config,
    schema: "identity",
    pool: h.pool,
    nc,
    logger: silentLogger(),
  });
  stream = await readEventStream(nc, h.namespace);
});
afterAll(async () => {
  await relay.stop();
  await stream.stop();
  await (
    await jetstreamManager(nc)
  ).streams
    .delete(names(h.namespace).eventsStream)
    .catch(() => undefined);
  await drainNats(nc);
  await h.close();
});

async function during(work: () => Promise<unknown>) {
  const mark = stream.received.length;
  await work();
  await stream.settle(h.pool, "identity");
  return stream.received.slice(mark);
}

describe("identity events in the stream", () => {
  it("publishes candidate.created, recruitment_case.created and application.created for an application created through HTTP", async () => {
    let data: Record<string, unknown> = {};
    const events = await during(async () => {
      const res = await h.post("/v1/applications", applicationBody(h.newVacancy(), person()));
      expect(res.status).toBe(201);
      data = res.body.data;
    });
    const caseUuid = String(
      (await h.get(`/v1/recruitment-cases?candidate_uuid=${String(data.candidate_uuid)}`)).body
        .data[0]?.recruitment_case_uuid,
    );
    // As a set: the relay publishes a batch pipelined, and a publish JetStream retries (no
    // responders while a new stream's leader is elected) lands after the others. Stream order
    // across entities is not a promise (the dispatcher delivers concurrently anyway); each event
    // says when it happened.
    const byType = (a: unknown[], b: unknown[]) => String(a[0]).localeCompare(String(b[0]));
    expect(
      events.map((e) => [e.event_type, e.entity.type, e.entity.id, e.links.self]).sort(byType),
    ).toEqual(
      [
        [
          "candidate.created",
          "candidate",
          data.candidate_uuid,
          `${PUBLIC_BASE_URL}/v1/candidates/${String(data.candidate_uuid)}`,
        ],
        [
          "recruitment_case.created",
          "recruitment_case",
          caseUuid,
          `${PUBLIC_BASE_URL}/v1/recruitment-cases/${caseUuid}`,
        ],
        [
          "application.created",
          "application",
          data.application_uuid,
          `${PUBLIC_BASE_URL}/v1/applications/${String(data.application_uuid)}`,
        ],
      ].sort(byType),
    );
    for (const e of events) {
      expect(Object.keys(e).sort()).toEqual(EVENT_PAYLOAD_FIELDS);
      expect(e).toMatchObject({ event_version: 1, occurred_at: data.created_at });
    }
    const sent = await h.pool.query("SELECT 1 FROM identity.outbox WHERE sent_at IS NULL");
    expect(sent.rowCount).toBe(0);
  });

  it("publishes nothing for an application that already existed, and only the case and application for a known person", async () => {
    const p = person();
    const vacancy = h.newVacancy();
    await during(() => h.post("/v1/applications", applicationBody(vacancy, p)));
    const again = await during(() => h.post("/v1/applications", applicationBody(vacancy, p)));
    expect(again).toEqual([]);
    const known = await during(() =>
      h.post("/v1/applications", applicationBody(h.newVacancy(), { email: p.email })),
    );
    expect(known.map((e) => e.event_type).sort()).toEqual([
      "application.created",
      "recruitment_case.created",
    ]);
  });

  it("delivered every event exactly once", async () => {
    const outbox = await h.pool.query<{ event_uuid: string }>(
      "SELECT event_uuid FROM identity.outbox",
    );
    expect([...stream.deliveries.keys()].sort()).toEqual(
      outbox.rows.map((r) => r.event_uuid).sort(),
    );
    expect([...stream.deliveries.values()].every((n) => n === 1)).toBe(true);
  });
});
