import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventPayload } from "@svc/events";
import { fetchJson } from "@svc/testing";
import {
  applicationBody,
  person,
  startHarness,
  type Body,
  type Harness,
} from "./support/harness.ts";

// occurred_at of the events identity writes itself: the instant it records the change, the same
// as the resource's created_at (submitted_at).
const clock = { ms: Date.parse("2026-03-02T09:00:00.000Z") };
const iso = (ms: number) => new Date(ms).toISOString().replace("Z", "+00:00");

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ environment: "production", now: () => new Date(clock.ms) });
});
afterAll(() => h.close());

async function outboxAfter(id: string): Promise<EventPayload[]> {
  const { rows } = await h.pool.query<{ payload: EventPayload }>(
    "SELECT payload FROM identity.outbox WHERE id > $1 ORDER BY id",
    [id],
  );
  return rows.map((r) => r.payload);
}

async function lastOutboxId(): Promise<string> {
  const { rows } = await h.pool.query<{ id: string }>(
    "SELECT coalesce(max(id), 0)::text AS id FROM identity.outbox",
  );
  return rows[0]?.id ?? "0";
}

describe("occurred_at of the events identity writes", () => {
  it("is the application's created_at, the same for its candidate and recruitment case", async () => {
    clock.ms += 60_000;
    const mark = await lastOutboxId();
    const answer = await h.post("/v1/applications", applicationBody(h.newVacancy(), person()));
    expect(answer.status).toBe(201);
    const created = iso(clock.ms);
    expect(answer.body.data.created_at).toBe(created);
    const events = await outboxAfter(mark);
    expect(events.map((e) => [e.event_type, e.occurred_at])).toEqual([
      ["candidate.created", created],
      ["recruitment_case.created", created],
      ["application.created", created],
    ]);
    const candidate = await h.get(`/v1/candidates/${String(answer.body.data.candidate_uuid)}`);
    expect(candidate.body.data.created_at).toBe(created);
  });

  it("is the submission's submitted_at for application.submitted", async () => {
    const res = await h.post("/v1/applications", applicationBody(h.newVacancy(), person()));
    const uuid = String(res.body.data.application_uuid);
    clock.ms += 5_000;
    const mark = await lastOutboxId();
    const submitted = await fetchJson<Body>(`${h.baseUrl}/v1/applications/${uuid}/submission`, {
      method: "POST",
      headers: { Authorization: `Bearer ${await h.token()}` },
    });
    expect(submitted.status).toBe(201);
    expect(submitted.body.data.submitted_at).toBe(iso(clock.ms));
    expect((await outboxAfter(mark)).map((e) => [e.event_type, e.occurred_at])).toEqual([
      ["application.submitted", submitted.body.data.submitted_at],
    ]);
  });
});
