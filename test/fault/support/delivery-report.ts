/**
 * The end of a fault run: what should have reached the webhook receiver, and what did. The truth
 * comes from the producers' side: the applications identity committed (its table), the events
 * each service wrote to its outbox (in the same transaction as the change), the 2xx answers the
 * client got, and the legacy rows the changer updated. Duplicates are allowed (at least once) and
 * counted.
 */
import type pg from "pg";
import { expect } from "vitest";
import type { Receiver } from "../../../services/webhooks/test/support/receiver.ts";
import { sleep } from "./checks.ts";
import type { ApplicationProducer, LegacyChanger } from "./producers.ts";

export interface DeliveryReport {
  /** Outbox events of the subscribed types (each must be delivered). */
  expectedEvents: number;
  /** Delivery records the dispatcher made for the subscription. */
  deliveries: number;
  missingEvents: string[];
  /** Committed applications without an application.created at the receiver. */
  missingApplications: string[];
  /** Changed vacancies without a vacancy.updated at the receiver. */
  missingChanges: string[];
  /** 2xx answers whose application is not in the database (an acknowledged write lost). */
  acknowledgedNotStored: string[];
  /** POSTs whose signature or timestamp did not verify. */
  unverified: number;
  /** Delivery records not `succeeded` ("status count"). */
  notSucceeded: string[];
  lines: string[];
}

interface Seen {
  ids: Set<string>;
  entities: Map<string, Set<string>>;
  posts: number;
}

function seenBy(receiver: Receiver, path: string): Seen {
  const ids = new Set<string>();
  const entities = new Map<string, Set<string>>();
  const received = receiver.received(path);
  for (const r of received) {
    ids.add(r.eventId);
    const body = JSON.parse(r.body) as { event_type: string; entity: { id: string } };
    if (!entities.has(body.event_type)) entities.set(body.event_type, new Set());
    entities.get(body.event_type)!.add(body.entity.id);
  }
  return { ids, entities, posts: received.length };
}

async function rows<T>(db: pg.Pool, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await db.query(sql, params)).rows as T[];
}

export async function deliveryReport(options: {
  db: pg.Pool;
  receiver: Receiver;
  path: string;
  applications: ApplicationProducer;
  changes: LegacyChanger;
  subscribed: string[];
  /** Events the receiver answers 503 on their first POST (a retry each, not a duplicate). */
  failsFirst: (eventId: string) => boolean;
  timeoutMs: number;
}): Promise<DeliveryReport> {
  const { db, receiver, path, subscribed } = options;
  const started = Date.now();
  const deadline = started + options.timeoutMs;
  const changed = [...new Set(options.changes.committed().map((c) => c.vacancyUuid))];
  let stored: string[] = [];
  let outbox: string[] = [];
  let seen = seenBy(receiver, path);
  const missing = () => ({
    events: outbox.filter((id) => !seen.ids.has(id)),
    applications: stored.filter((id) => !seen.entities.get("application.created")?.has(id)),
    changes: changed.filter((id) => !seen.entities.get("vacancy.updated")?.has(id)),
  });
  // The last legacy changes are detected, relayed and delivered after the producers stopped.
  for (;;) {
    stored = (
      await rows<{ id: string }>(
        db,
        "SELECT application_uuid::text AS id FROM identity.applications",
      )
    ).map((r) => r.id);
    outbox = (
      await rows<{ id: string }>(
        db,
        `SELECT event_uuid::text AS id FROM identity.outbox WHERE event_type = ANY($1)
       UNION ALL SELECT event_uuid::text FROM vacancies.outbox WHERE event_type = ANY($1)`,
        [subscribed],
      )
    ).map((r) => r.id);
    seen = seenBy(receiver, path);
    const m = missing();
    if (
      (m.events.length === 0 && m.applications.length === 0 && m.changes.length === 0) ||
      Date.now() > deadline
    )
      break;
    await sleep(250);
  }
  const allReceivedAt = Date.now();
  // Every record catches up too: succeeded, none pending, failed or dead.
  let statuses: Array<{ status: string; n: number }>;
  for (;;) {
    statuses = await rows(
      db,
      "SELECT status, count(*)::int AS n FROM webhooks.deliveries GROUP BY status ORDER BY status",
    );
    if (statuses.every((s) => s.status === "succeeded") || Date.now() > deadline) break;
    await sleep(250);
  }
  // What a delivery that did not succeed looks like, so a failure can be read from the log.
  const unfinished = await rows(
    db,
    `SELECT id, event_uuid, status, round, round_attempts, attempt_count, last_status_code,
            last_attempt_at, next_attempt_at, queued_at, created_at, updated_at
       FROM webhooks.deliveries WHERE status <> 'succeeded' ORDER BY created_at LIMIT 20`,
  );
  const m = missing();
  const acknowledged = options.applications.acknowledged();
  const storedSet = new Set(stored);
  const deliveries = statuses.reduce((sum, s) => sum + s.n, 0);
  const planned = [...seen.ids].filter(options.failsFirst).length;
  const unverified = receiver
    .received(path)
    .filter((r) => r.verifiedWith.length === 0 || !r.timestampOk).length;
  return {
    expectedEvents: outbox.length,
    deliveries,
    missingEvents: m.events,
    missingApplications: m.applications,
    missingChanges: m.changes,
    acknowledgedNotStored: acknowledged
      .filter((a) => !storedSet.has(a.applicationUuid))
      .map((a) => `${a.key} → ${a.applicationUuid}`),
    unverified,
    notSucceeded: statuses.filter((s) => s.status !== "succeeded").map((s) => `${s.status} ${s.n}`),
    lines: [
      `applications: ${options.applications.started()} started, ${acknowledged.length} acknowledged (${acknowledged.filter((a) => a.replayed).length} replays), ${stored.length} committed`,
      `legacy changes: ${changed.length} committed (${options.changes.failures()} writes refused while MariaDB was down)`,
      `events: ${outbox.length} in the outboxes, ${seen.ids.size} distinct at the receiver in ${seen.posts} POSTs = ${seen.ids.size} + ${planned} planned retries (first POST answered 503) + ${seen.posts - seen.ids.size - planned} duplicates; all received ${allReceivedAt - started} ms after the load stopped`,
      `delivery records: ${statuses.map((s) => `${s.status} ${s.n}`).join(", ")}`,
      ...unfinished.map(
        (d) => `not succeeded (now ${new Date().toISOString()}): ${JSON.stringify(d)}`,
      ),
    ],
  };
}

/**
 * Lost nothing: no application refused, every acknowledged one stored, every outbox event,
 * committed application and legacy change at the receiver, every signature verified, every
 * delivery record succeeded and one per event.
 */
export function expectNothingLost(report: DeliveryReport, applications: ApplicationProducer): void {
  expect(applications.refused()).toEqual([]);
  expect(report.acknowledgedNotStored).toEqual([]);
  expect(report.missingEvents).toEqual([]);
  expect(report.missingApplications).toEqual([]);
  expect(report.missingChanges).toEqual([]);
  expect(report.unverified).toBe(0);
  expect(report.notSucceeded).toEqual([]);
  expect(report.deliveries).toBe(report.expectedEvents);
}
