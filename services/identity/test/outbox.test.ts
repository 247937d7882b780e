import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventPayload } from "@svc/events";
import { createLogger } from "@svc/logging";
import { submitApplication } from "../src/domain/submit-application.ts";
import { identityDb } from "../src/store/db.ts";
import { PgIdentityStore } from "../src/store/pg-identity-store.ts";
import {
  applicationBody,
  countRows,
  person,
  PUBLIC_BASE_URL,
  startHarness,
  type Harness,
} from "./support/harness.ts";

let h: Harness;
const logLines: string[] = [];
beforeAll(async () => {
  const logger = createLogger({
    service: "identity",
    level: "info",
    destination: { write: (line: string) => void logLines.push(line) },
  });
  h = await startHarness({ environment: "production", logger });
});
afterAll(() => h.close());

async function eventsDuring(work: () => Promise<unknown>): Promise<EventPayload[]> {
  const before = await h.pool.query<{ id: string }>(
    "SELECT coalesce(max(id), 0) AS id FROM identity.outbox",
  );
  await work();
  const rows = await h.pool.query<{
    payload: EventPayload;
    event_type: string;
    sent_at: Date | null;
  }>("SELECT payload, event_type, sent_at FROM identity.outbox WHERE id > $1 ORDER BY id", [
    before.rows[0]?.id,
  ]);
  for (const row of rows.rows) {
    expect(row.event_type).toBe(row.payload.event_type);
    expect(row.sent_at).toBeNull();
  }
  return rows.rows.map((r) => r.payload);
}

const TABLES = [
  "candidates",
  "candidate_identifiers",
  "applications",
  "recruitment_cases",
  "outbox",
  "idempotency_keys",
];
const countAll = () => Promise.all(TABLES.map((t) => countRows(h.pool, t)));

describe("events in the outbox, written with the change", () => {
  it("writes candidate.created, recruitment_case.created and application.created for a new person", async () => {
    let data: Record<string, unknown> = {};
    const events = await eventsDuring(async () => {
      data = (await h.post("/v1/applications", applicationBody(h.newVacancy(), person()))).body
        .data;
    });
    const cases = await h.get(
      `/v1/recruitment-cases?candidate_uuid=${String(data.candidate_uuid)}`,
    );
    const caseUuid = String(cases.body.data[0]?.recruitment_case_uuid);
    expect(events.map((e) => [e.event_type, e.entity.type, e.entity.id, e.links.self])).toEqual([
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
    ]);
    for (const e of events)
      expect(e).toMatchObject({ event_version: 1, occurred_at: data.created_at });
  });

  it("writes no candidate.created for a known person", async () => {
    const p = person();
    await h.post("/v1/applications", applicationBody(h.newVacancy(), p));
    const events = await eventsDuring(() =>
      h.post("/v1/applications", applicationBody(h.newVacancy(), { email: p.email })),
    );
    expect(events.map((e) => e.event_type)).toEqual([
      "recruitment_case.created",
      "application.created",
    ]);
  });

  it("writes nothing when the application already existed or a response is replayed", async () => {
    const body = applicationBody(h.newVacancy(), person());
    const headers = { "Idempotency-Key": crypto.randomUUID() };
    await h.post("/v1/applications", body, { headers });
    const events = await eventsDuring(async () => {
      expect((await h.post("/v1/applications", body)).status).toBe(200);
      expect(
        (await h.post("/v1/applications", body, { headers })).headers.get("idempotent-replayed"),
      ).toBe("true");
    });
    expect(events).toEqual([]);
  });

  it("writes application.submitted once, however often the submission is recorded", async () => {
    const uuid = String(
      (await h.post("/v1/applications", applicationBody(h.newVacancy(), person()))).body.data
        .application_uuid,
    );
    const token = await h.token();
    const submitOnce = () =>
      fetch(`${h.baseUrl}/v1/applications/${uuid}/submission`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}` },
      });
    const events = await eventsDuring(async () => {
      await submitOnce();
      await submitOnce();
    });
    expect(events.map((e) => [e.event_type, e.entity.id, e.links.self])).toEqual([
      ["application.submitted", uuid, `${PUBLIC_BASE_URL}/v1/applications/${uuid}`],
    ]);
  });

  it("leaves neither the change nor its events when the transaction fails after the inserts", async () => {
    await h.pool.query(`
      CREATE FUNCTION identity.refuse_outbox() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'outbox refused by test'; END $$;
      CREATE TRIGGER refuse_outbox BEFORE INSERT ON identity.outbox FOR EACH ROW EXECUTE FUNCTION identity.refuse_outbox();`);
    const p = person();
    const body = applicationBody(h.newVacancy(), p);
    const headers = { "Idempotency-Key": crypto.randomUUID() };
    const before = await countAll();
    try {
      const res = await h.post("/v1/applications", body, { headers });
      expect(res.status).toBe(500);
      expect(res.body.error.code).toBe("INTERNAL_ERROR");
      expect(await countAll()).toEqual(before);
      // The failure is logged with its cause, but without the query's parameters (lookup hashes).
      const logged = logLines.find((l) => l.includes("unhandled error")) ?? "";
      expect(logged).toContain("outbox refused by test");
      expect(logged).not.toMatch(/params|\\x[0-9a-f]{16}/);
    } finally {
      await h.pool.query(
        "DROP TRIGGER refuse_outbox ON identity.outbox; DROP FUNCTION identity.refuse_outbox()",
      );
    }
    // Nothing of the failed attempt survived: the person is new, and the key was released.
    const retry = await h.post("/v1/applications", body, { headers });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    expect(retry.body.data.candidate_created).toBe(true);
  });

  it("stores the operation's trace context with its events, for the relay to continue the trace", async () => {
    const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const store = new PgIdentityStore(identityDb(h.pool), () => ({ traceparent }));
    const uuid = String(
      (await h.post("/v1/applications", applicationBody(h.newVacancy(), person()))).body.data
        .application_uuid,
    );
    await submitApplication({ store, now: () => new Date(), publicBaseUrl: PUBLIC_BASE_URL }, uuid);
    const row = await h.pool.query(
      "SELECT trace_context FROM identity.outbox WHERE event_type = 'application.submitted' AND payload->'entity'->>'id' = $1",
      [uuid],
    );
    expect(row.rows).toEqual([{ trace_context: { traceparent } }]);
  });
});
