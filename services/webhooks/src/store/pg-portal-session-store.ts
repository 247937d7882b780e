import { and, count, desc, eq, gt, inArray, isNull } from "drizzle-orm";
import { guardPg } from "@svc/db";
import { portalSessions, subscriptions } from "./schema.ts";
import type { ClientSubscriptions, PortalSessionStore } from "../domain/ports.ts";
import type {
  Page,
  PageRequest,
  PortalRevokedReason,
  PortalSession,
  StoredPortalSession,
} from "../domain/model.ts";
import type { Db } from "./pg-subscription-store.ts";

type Row = typeof portalSessions.$inferSelect;

function toStored(row: Row): StoredPortalSession {
  return {
    id: row.id,
    clientId: row.clientId,
    subscriptionIds: row.subscriptionIds,
    readOnly: row.readOnly,
    scopes: row.scopes,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    openedAt: row.openedAt,
    revokedAt: row.revokedAt,
    revokedReason: row.revokedReason as PortalRevokedReason | null,
    tokenHash: row.tokenHash,
    cookieHash: row.cookieHash,
  };
}

function toSession(row: Row): PortalSession {
  const { tokenHash: _t, cookieHash: _c, ...session } = toStored(row);
  return session;
}

export class PgPortalSessionStore implements PortalSessionStore, ClientSubscriptions {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  insert(session: StoredPortalSession): Promise<void> {
    return guardPg(async () => {
      await this.#db.insert(portalSessions).values(session);
    });
  }

  list(clientId: string, now: Date, page: PageRequest): Promise<Page<PortalSession>> {
    return guardPg(async () => {
      const where = and(eq(portalSessions.clientId, clientId), gt(portalSessions.expiresAt, now));
      const [rows, [total]] = await Promise.all([
        this.#db
          .select()
          .from(portalSessions)
          .where(where)
          .orderBy(desc(portalSessions.createdAt), desc(portalSessions.id))
          .limit(page.perPage)
          .offset((page.page - 1) * page.perPage),
        this.#db.select({ n: count() }).from(portalSessions).where(where),
      ]);
      return { items: rows.map(toSession), total: total?.n ?? 0 };
    });
  }

  get(id: string): Promise<StoredPortalSession | undefined> {
    return guardPg(async () => {
      const [row] = await this.#db.select().from(portalSessions).where(eq(portalSessions.id, id));
      return row && toStored(row);
    });
  }

  open(id: string, cookieHash: string, now: Date): Promise<boolean> {
    return guardPg(async () => {
      const rows = await this.#db
        .update(portalSessions)
        .set({ cookieHash, openedAt: now })
        .where(
          and(
            eq(portalSessions.id, id),
            isNull(portalSessions.openedAt),
            isNull(portalSessions.revokedAt),
            gt(portalSessions.expiresAt, now),
          ),
        )
        .returning({ id: portalSessions.id });
      return rows.length === 1;
    });
  }

  revoke(clientId: string, id: string, now: Date): Promise<PortalSession | undefined> {
    return guardPg(async () => {
      const owned = and(eq(portalSessions.clientId, clientId), eq(portalSessions.id, id));
      // A second revocation keeps the first one's time and reason.
      await this.#db
        .update(portalSessions)
        .set({ revokedAt: now, revokedReason: "requested" })
        .where(and(owned, isNull(portalSessions.revokedAt)));
      const [row] = await this.#db.select().from(portalSessions).where(owned);
      return row && toSession(row);
    });
  }

  revokeClient(clientId: string, now: Date): Promise<number> {
    return guardPg(async () => {
      const rows = await this.#db
        .update(portalSessions)
        .set({ revokedAt: now, revokedReason: "client_revoked" })
        .where(and(eq(portalSessions.clientId, clientId), isNull(portalSessions.revokedAt)))
        .returning({ id: portalSessions.id });
      return rows.length;
    });
  }

  owned(clientId: string, ids: ReadonlyArray<string>): Promise<ReadonlyArray<string>> {
    return guardPg(async () => {
      if (ids.length === 0) return [];
      const rows = await this.#db
        .select({ id: subscriptions.id })
        .from(subscriptions)
        .where(and(eq(subscriptions.ownerClientId, clientId), inArray(subscriptions.id, [...ids])));
      return rows.map((r) => r.id);
    });
  }
}
