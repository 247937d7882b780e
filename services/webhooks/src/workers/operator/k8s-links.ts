import { eq } from "drizzle-orm";
import { guardPg } from "@svc/db";
import { subscriptions } from "../../store/schema.ts";
import type { Subscription } from "../../domain/model.ts";
import type { Db } from "../../store/pg-subscription-store.ts";
import { toSubscription } from "../../store/row-mappers.ts";

/**
 * The two reads the reconciler needs that are not scoped to an owner: the subscription a custom
 * resource (by uid) manages, and the owner of a subscription id (the port's remove gets only the
 * id). Every write still goes through the owner-scoped SubscriptionService.
 */
export class PgK8sLinks {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  byUid(uid: string): Promise<Subscription | undefined> {
    return guardPg(async () => {
      const [row] = await this.#db
        .select()
        .from(subscriptions)
        .where(eq(subscriptions.k8sUid, uid));
      return row && toSubscription(row);
    });
  }

  ownerOf(id: string): Promise<string | undefined> {
    return guardPg(async () => {
      const [row] = await this.#db
        .select({ owner: subscriptions.ownerClientId })
        .from(subscriptions)
        .where(eq(subscriptions.id, id));
      return row?.owner;
    });
  }
}
