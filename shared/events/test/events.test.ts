import { drizzle } from "drizzle-orm/node-postgres";
import { pgSchema } from "drizzle-orm/pg-core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTempPgDatabase, EVENT_PAYLOAD_FIELDS, type TempDatabase } from "@svc/testing";
import { buildEvent, enqueueEvents, eventTypesFor, outboxTable, selfLink } from "../src/index.ts";

describe("event payload", () => {
  it("has exactly the contract's fields, a UUID, an offset timestamp and an absolute self link", () => {
    const event = buildEvent({
      type: "vacancy.updated",
      entityId: "3f1c",
      publicBaseUrl: "https://api.example.be/",
      occurredAt: new Date("2024-03-31T01:30:00Z"),
    });
    expect(Object.keys(event).sort()).toEqual(EVENT_PAYLOAD_FIELDS);
    expect(event.event_uuid).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(event.occurred_at).toBe("2024-03-31T01:30:00.000+00:00");
    expect(event.entity).toEqual({ type: "vacancy", id: "3f1c" });
    expect(event.links.self).toBe("https://api.example.be/v1/vacancies/3f1c");
    expect(event.event_version).toBe(1);
  });

  it("percent-encodes opaque ids in links", () => {
    expect(selfLink("https://api.example.be", "practice", "CRM 12/3")).toBe(
      "https://api.example.be/v1/practices/CRM%2012%2F3",
    );
  });

  it("omits application.submitted from the sandbox catalogue only", () => {
    expect(eventTypesFor("sandbox")).not.toContain("application.submitted");
    expect(eventTypesFor("production")).toContain("application.submitted");
    expect(eventTypesFor("production")).toHaveLength(11);
  });
});

describe("outbox", () => {
  let database: TempDatabase;
  let pool: pg.Pool;
  const schema = pgSchema("demo");
  const outbox = outboxTable(schema);
  beforeAll(async () => {
    database = await createTempPgDatabase();
    pool = new pg.Pool({ connectionString: database.url });
    await pool.query(`CREATE SCHEMA demo; CREATE TABLE demo.things (id int primary key);
      CREATE TABLE demo.outbox (id bigserial primary key, event_uuid uuid not null unique, event_type text not null, payload jsonb not null, trace_context jsonb, created_at timestamptz not null default now(), sent_at timestamptz)`);
  });
  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  it("writes events in the caller's transaction: a rolled-back change leaves no event", async () => {
    const db = drizzle(pool);
    const kept = buildEvent({
      type: "candidate.created",
      entityId: "c1",
      publicBaseUrl: "http://x",
    });
    const lost = buildEvent({
      type: "candidate.created",
      entityId: "c2",
      publicBaseUrl: "http://x",
    });
    await db.transaction(async (tx) => {
      await tx.execute("INSERT INTO demo.things VALUES (1)");
      await enqueueEvents(tx, outbox, [kept], {
        traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      });
    });
    await expect(
      db.transaction(async (tx) => {
        await enqueueEvents(tx, outbox, [lost]);
        await tx.execute("INSERT INTO demo.things VALUES (1)"); // duplicate key: the change fails
      }),
    ).rejects.toThrow();
    const rows = await pool.query("SELECT event_uuid, payload, trace_context FROM demo.outbox");
    expect(rows.rows.map((r) => r.event_uuid)).toEqual([kept.event_uuid]);
    expect(rows.rows[0].payload).toEqual(kept);
    expect(rows.rows[0].trace_context.traceparent).toContain("0af7651916cd43dd8448eb211c80319c");
  });

  it("ignores a second write of the same event", async () => {
    const db = drizzle(pool);
    const event = buildEvent({
      type: "application.created",
      entityId: "a1",
      publicBaseUrl: "http://x",
    });
    await enqueueEvents(db, outbox, [event]);
    await enqueueEvents(db, outbox, [event]);
    const rows = await pool.query(
      "SELECT count(*)::int AS n FROM demo.outbox WHERE event_uuid = $1",
      [event.event_uuid],
    );
    expect(rows.rows[0].n).toBe(1);
  });
});
