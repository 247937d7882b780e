import { and, asc, count, desc, eq, gte, inArray, lt, sql, type SQL } from "drizzle-orm";
import { guardPg } from "@svc/db";
import { deliveries, deliveryAttempts, events, subscriptions } from "./schema.ts";
import type { DeliveryStore, NewEvent } from "../domain/ports.ts";
import type {
  Delivery,
  DeliveryDetail,
  DeliveryFilter,
  DeliveryMessage,
  Page,
  PageRequest,
} from "../domain/model.ts";
import { toAttempt, toDelivery } from "./row-mappers.ts";
import type { Db } from "./pg-subscription-store.ts";

function filtered(filter: DeliveryFilter): SQL | undefined {
  return and(
    filter.status ? eq(deliveries.status, filter.status) : undefined,
    filter.eventType ? eq(deliveries.eventType, filter.eventType) : undefined,
    filter.since ? gte(deliveries.createdAt, filter.since) : undefined,
    filter.before ? lt(deliveries.createdAt, filter.before) : undefined,
  );
}

export class PgDeliveryStore implements DeliveryStore {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  list(subscriptionId: string, filter: DeliveryFilter, page: PageRequest): Promise<Page<Delivery>> {
    return this.#page(and(eq(deliveries.subscriptionId, subscriptionId), filtered(filter)), page);
  }

  /**
   * The owner's deliveries, newest first. Each subscription's newest rows come from its own index
   * (deliveries_subscription_idx, read backward) and are merged: a join of every delivery sorted
   * as a whole costs a scan of them all (36 ms at 10,000, against 1 ms this way).
   */
  listForOwner(
    owner: string,
    ids: string[] | null,
    filter: DeliveryFilter,
    page: PageRequest,
  ): Promise<Page<Delivery>> {
    const owned = and(
      eq(subscriptions.ownerClientId, owner),
      ids ? inArray(subscriptions.id, ids) : undefined,
    );
    const newest = this.#db
      .select()
      .from(deliveries)
      .where(and(eq(deliveries.subscriptionId, subscriptions.id), filtered(filter)))
      .orderBy(desc(deliveries.createdAt), desc(deliveries.id))
      .limit(page.page * page.perPage)
      .as("newest");
    return guardPg(async () => {
      const [rows, [total]] = await Promise.all([
        this.#db
          .select(newest._.selectedFields)
          .from(subscriptions)
          .innerJoinLateral(newest, sql`true`)
          .where(owned)
          .orderBy(desc(newest.createdAt), desc(newest.id))
          .limit(page.perPage)
          .offset((page.page - 1) * page.perPage),
        this.#db
          .select({ n: count() })
          .from(deliveries)
          .innerJoin(subscriptions, eq(subscriptions.id, deliveries.subscriptionId))
          .where(and(owned, filtered(filter))),
      ]);
      return { items: rows.map(toDelivery), total: total?.n ?? 0 };
    });
  }

  #page(where: SQL | undefined, page: PageRequest): Promise<Page<Delivery>> {
    return guardPg(async () => {
      const [rows, [total]] = await Promise.all([
        this.#db
          .select()
          .from(deliveries)
          .where(where)
          .orderBy(desc(deliveries.createdAt), desc(deliveries.id))
          .limit(page.perPage)
          .offset((page.page - 1) * page.perPage),
        this.#db.select({ n: count() }).from(deliveries).where(where),
      ]);
      return { items: rows.map(toDelivery), total: total?.n ?? 0 };
    });
  }

  get(subscriptionId: string, deliveryId: string): Promise<DeliveryDetail | undefined> {
    return guardPg(async () => {
      const [row] = await this.#db
        .select()
        .from(deliveries)
        .where(and(eq(deliveries.subscriptionId, subscriptionId), eq(deliveries.id, deliveryId)));
      if (!row) return undefined;
      const attempts = await this.#db
        .select()
        .from(deliveryAttempts)
        .where(eq(deliveryAttempts.deliveryId, deliveryId))
        .orderBy(asc(deliveryAttempts.number));
      return { ...toDelivery(row), attempts: attempts.map(toAttempt) };
    });
  }

  createSingle(
    subscriptionId: string,
    event: NewEvent,
    deliveryId: string,
    now: Date,
  ): Promise<Delivery> {
    return guardPg(() =>
      this.#db.transaction(async (tx) => {
        await tx.insert(events).values({
          eventUuid: event.eventUuid,
          eventType: event.eventType,
          body: event.body,
          traceparent: event.trace?.traceparent ?? null,
          tracestate: event.trace?.tracestate ?? null,
          receivedAt: now,
        });
        const [row] = await tx
          .insert(deliveries)
          .values({
            id: deliveryId,
            subscriptionId,
            eventUuid: event.eventUuid,
            eventType: event.eventType,
            status: "pending",
            nextAttemptAt: now,
            createdAt: now,
            updatedAt: now,
          })
          .returning();
        return toDelivery(row!);
      }),
    );
  }

  startNewRound(
    subscriptionId: string,
    deliveryId: string,
    now: Date,
  ): Promise<Delivery | undefined> {
    return guardPg(async () => {
      const [row] = await this.#db
        .update(deliveries)
        .set(newRound(now))
        .where(
          and(
            eq(deliveries.subscriptionId, subscriptionId),
            eq(deliveries.id, deliveryId),
            inArray(deliveries.status, ["failed", "dead"]),
          ),
        )
        .returning();
      return row && toDelivery(row);
    });
  }

  startNewRounds(
    subscriptionId: string,
    window: { since: Date; until: Date },
    now: Date,
  ): Promise<DeliveryMessage[]> {
    return guardPg(async () => {
      // deliveries_subscription_status_idx (subscription_id, status, created_at) finds them.
      const rows = await this.#db
        .update(deliveries)
        .set(newRound(now))
        .where(
          and(
            eq(deliveries.subscriptionId, subscriptionId),
            inArray(deliveries.status, ["failed", "dead"]),
            gte(deliveries.createdAt, window.since),
            lt(deliveries.createdAt, window.until),
          ),
        )
        .returning({ id: deliveries.id, eventUuid: deliveries.eventUuid, round: deliveries.round });
      return rows.map((r) => ({
        v: 1,
        delivery_uuid: r.id,
        subscription_uuid: subscriptionId,
        event_uuid: r.eventUuid,
        round: r.round,
      }));
    });
  }

  markQueued(messages: ReadonlyArray<DeliveryMessage>, now: Date): Promise<void> {
    return markQueued(this.#db, messages, now);
  }
}

/** A failed or dead delivery made pending again: a new round, the full schedule, not yet queued. */
function newRound(now: Date) {
  return {
    status: "pending",
    failureReason: null,
    round: sql`${deliveries.round} + 1`,
    roundAttempts: 0,
    nextAttemptAt: now,
    queuedAt: null,
    updatedAt: now,
  } as const;
}

/** Marks the rounds whose queue messages the stream has stored; a newer round is left alone. */
export async function markQueued(
  db: Db,
  messages: ReadonlyArray<DeliveryMessage>,
  now: Date,
): Promise<void> {
  if (messages.length === 0) return;
  await guardPg(() =>
    db.execute(sql`
      UPDATE ${deliveries} AS d SET queued_at = ${now}
      FROM (SELECT unnest(${sql.param(messages.map((m) => m.delivery_uuid))}::uuid[]) AS id,
                   unnest(${sql.param(messages.map((m) => m.round))}::int[]) AS round) AS m
      WHERE d.id = m.id AND d.round = m.round AND d.queued_at IS NULL`),
  );
}
