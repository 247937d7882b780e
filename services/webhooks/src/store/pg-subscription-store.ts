import { and, asc, count, eq, inArray, sql } from "drizzle-orm";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import { guardPg } from "@svc/db";
import { subscriptions } from "./schema.ts";
import type { NewSubscription, SubscriptionPatch, SubscriptionStore } from "../domain/ports.ts";
import type { Page, PageRequest, Subscription } from "../domain/model.ts";
import { toSubscription } from "./row-mappers.ts";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Db = NodePgDatabase<any>;

/**
 * Enabling a disabled subscription clears why it was disabled and restarts its failure clock;
 * enabling an enabled one changes nothing (the clock keeps running).
 */
const enableAgain = {
  enabled: true,
  disabledReason: null,
  disabledAt: null,
  firstFailureAt: sql`CASE WHEN ${subscriptions.enabled} THEN ${subscriptions.firstFailureAt} END`,
};

/** Disabled on request: an automatic disabling becomes the owner's; the first time is kept. */
function disableOnRequest(now: Date) {
  return {
    enabled: false,
    disabledReason: "requested",
    disabledAt: sql`CASE WHEN ${subscriptions.enabled} THEN ${now}::timestamptz
      ELSE COALESCE(${subscriptions.disabledAt}, ${now}::timestamptz) END`,
  };
}

export class PgSubscriptionStore implements SubscriptionStore {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  insert(input: NewSubscription): Promise<Subscription> {
    return guardPg(async () => {
      const [row] = await this.#db
        .insert(subscriptions)
        .values({
          id: input.id,
          ownerClientId: input.ownerClientId,
          url: input.url,
          eventTypes: input.eventTypes,
          enabled: input.enabled ?? true,
          ...(input.enabled === false && { disabledReason: "requested", disabledAt: input.now }),
          secretSealed: input.secretSealed,
          k8sUid: input.k8sUid ?? null,
          createdAt: input.now,
          updatedAt: input.now,
        })
        .returning();
      return toSubscription(row!);
    });
  }

  list(owner: string, page: PageRequest, ids?: string[] | null): Promise<Page<Subscription>> {
    return guardPg(async () => {
      const where = and(
        eq(subscriptions.ownerClientId, owner),
        ids ? inArray(subscriptions.id, ids) : undefined,
      );
      const [rows, [total]] = await Promise.all([
        this.#db
          .select()
          .from(subscriptions)
          .where(where)
          .orderBy(asc(subscriptions.createdAt), asc(subscriptions.id))
          .limit(page.perPage)
          .offset((page.page - 1) * page.perPage),
        this.#db.select({ n: count() }).from(subscriptions).where(where),
      ]);
      return { items: rows.map(toSubscription), total: total?.n ?? 0 };
    });
  }

  /** The event types the owner's subscriptions select (the events feed's SubscribedTypes). */
  eventTypesOf(owner: string): Promise<ReadonlySet<string>> {
    return guardPg(async () => {
      const rows = await this.#db
        .selectDistinct({ type: sql<string>`unnest(${subscriptions.eventTypes})` })
        .from(subscriptions)
        .where(eq(subscriptions.ownerClientId, owner));
      return new Set(rows.map((r) => r.type));
    });
  }

  get(owner: string, id: string): Promise<Subscription | undefined> {
    return guardPg(async () => {
      const [row] = await this.#db.select().from(subscriptions).where(this.#owned(owner, id));
      return row && toSubscription(row);
    });
  }

  update(
    owner: string,
    id: string,
    patch: SubscriptionPatch,
    now: Date,
  ): Promise<Subscription | undefined> {
    return guardPg(async () => {
      const [row] = await this.#db
        .update(subscriptions)
        .set({
          ...(patch.url !== undefined && { url: patch.url }),
          ...(patch.eventTypes !== undefined && { eventTypes: patch.eventTypes }),
          ...(patch.enabled === true && enableAgain),
          ...(patch.enabled === false && disableOnRequest(now)),
          updatedAt: now,
        })
        .where(this.#owned(owner, id))
        .returning();
      return row && toSubscription(row);
    });
  }

  delete(owner: string, id: string): Promise<boolean> {
    return guardPg(async () => {
      const rows = await this.#db
        .delete(subscriptions)
        .where(this.#owned(owner, id))
        .returning({ id: subscriptions.id });
      return rows.length > 0;
    });
  }

  rotateSecret(
    owner: string,
    id: string,
    input: { secretSealed: string; overlapUntil: Date; now: Date },
  ): Promise<Subscription | undefined> {
    return guardPg(async () => {
      // One statement: the old sealed secret moves over as the new one lands, never read out.
      const [row] = await this.#db
        .update(subscriptions)
        .set({
          previousSecretSealed: sql`${subscriptions.secretSealed}`,
          previousSecretExpiresAt: input.overlapUntil,
          secretSealed: input.secretSealed,
          secretRotatedAt: input.now,
          updatedAt: input.now,
        })
        .where(this.#owned(owner, id))
        .returning();
      return row && toSubscription(row);
    });
  }

  #owned(owner: string, id: string) {
    return and(eq(subscriptions.ownerClientId, owner), eq(subscriptions.id, id));
  }
}
