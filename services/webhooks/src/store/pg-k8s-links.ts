import { eq } from "drizzle-orm";
import { guardPg } from "@svc/db";
import { subscriptions } from "./schema.ts";
import type { Subscription } from "../domain/model.ts";
import type { K8sLinks } from "../domain/ports.ts";
import type { Db } from "./pg-subscription-store.ts";
import { toSubscription } from "./row-mappers.ts";

/** K8sLinks over the subscriptions table (column k8s_uid). */
export class PgK8sLinks implements K8sLinks {
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
