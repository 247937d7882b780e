import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { NotFoundError, ValidationError } from "@svc/errors";
import type { Clock, Page, PageRequest, PortalSession, StoredPortalSession } from "./model.ts";
import type { ClientSubscriptions, PortalSessionStore } from "./ports.ts";

/**
 * Subscriber portal sessions (docs/decisions/portal-sessions.md). A client creates a link; its
 * one-time token, once exchanged, becomes a session cookie. Both are `<session id>.<secret>`:
 * the store keeps only SHA-256 hashes of the secrets, looks a session up by its id and compares
 * the hashes in constant time. The CSRF token is derived from the cookie's secret, so neither it
 * nor the cookie can be rebuilt from the database.
 */
export type PortalSessionInput = {
  subscriptionIds?: string[] | undefined;
  readOnly?: boolean | undefined;
  ttlSeconds?: number | undefined;
};

/** Why a link does not open: the page says which (never with the token). */
export type LinkRefusal = "unknown" | "expired" | "used" | "revoked";

export class PortalLinkRefused extends Error {
  readonly reason: LinkRefusal;
  constructor(reason: LinkRefusal) {
    super(`portal link refused: ${reason}`);
    this.reason = reason;
  }
}

export type OpenedSession = { session: PortalSession; cookie: string };

const SECRET_BYTES = 32;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function hash(secret: string): string {
  return createHash("sha256").update(secret).digest("base64url");
}

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** `<uuid>.<secret>` → its parts, or undefined for anything else. */
function split(credential: string): { id: string; secret: string } | undefined {
  const dot = credential.indexOf(".");
  const id = credential.slice(0, dot);
  const secret = credential.slice(dot + 1);
  if (dot < 0 || !UUID.test(id) || !/^[A-Za-z0-9_-]{43}$/.test(secret)) return undefined;
  return { id, secret };
}

export type PortalSessionsDeps = {
  store: PortalSessionStore;
  subscriptions: ClientSubscriptions;
  clock: Clock;
  /** The longest a link and its session live (WEBHOOK_PORTAL_SESSION_MAX_TTL_SECONDS). */
  maxTtlSeconds: number;
};

export class PortalSessions {
  readonly #d: PortalSessionsDeps;
  constructor(deps: PortalSessionsDeps) {
    this.#d = deps;
  }

  get maxTtlSeconds(): number {
    return this.#d.maxTtlSeconds;
  }

  /** A new link for the client: the session and its one-time token (shown once). */
  async create(
    clientId: string,
    scopes: ReadonlySet<string>,
    input: PortalSessionInput,
  ): Promise<{ session: PortalSession; token: string }> {
    const ttl = input.ttlSeconds ?? this.#d.maxTtlSeconds;
    if (ttl > this.#d.maxTtlSeconds)
      throw new ValidationError([
        { field: "ttl_seconds", message: `must be at most ${this.#d.maxTtlSeconds}` },
      ]);
    const ids = input.subscriptionIds && [
      ...new Set(input.subscriptionIds.map((id) => id.toLowerCase())),
    ];
    if (ids) {
      const owned = new Set(await this.#d.subscriptions.owned(clientId, ids));
      const issues = ids.flatMap((id, i) =>
        owned.has(id)
          ? []
          : [{ field: `subscription_ids.${i}`, message: "is not a subscription of this client" }],
      );
      if (issues.length > 0) throw new ValidationError(issues);
    }
    const now = this.#d.clock.now();
    const secret = randomBytes(SECRET_BYTES).toString("base64url");
    const session: StoredPortalSession = {
      id: randomUUID(),
      clientId,
      subscriptionIds: ids ?? null,
      readOnly: input.readOnly ?? false,
      scopes: [...scopes].sort(),
      createdAt: now,
      expiresAt: new Date(now.getTime() + ttl * 1000),
      openedAt: null,
      revokedAt: null,
      revokedReason: null,
      tokenHash: hash(secret),
      cookieHash: null,
    };
    await this.#d.store.insert(session);
    return { session: publicPart(session), token: `${session.id}.${secret}` };
  }

  list(clientId: string, page: PageRequest): Promise<Page<PortalSession>> {
    return this.#d.store.list(clientId, this.#d.clock.now(), page);
  }

  async revoke(clientId: string, id: string): Promise<PortalSession> {
    const revoked = await this.#d.store.revoke(clientId, id, this.#d.clock.now());
    if (!revoked) throw new NotFoundError("portal session not found");
    return revoked;
  }

  revokeClient(clientId: string): Promise<number> {
    return this.#d.store.revokeClient(clientId, this.#d.clock.now());
  }

  /** Exchanges a link's one-time token for a session cookie; throws PortalLinkRefused. */
  async open(token: string): Promise<OpenedSession> {
    const parts = split(token);
    const stored = parts && (await this.#d.store.get(parts.id));
    if (!parts || !stored || !sameHash(stored.tokenHash, hash(parts.secret)))
      throw new PortalLinkRefused("unknown");
    const now = this.#d.clock.now();
    const refusal = refusalOf(stored, now);
    if (refusal) throw new PortalLinkRefused(refusal);
    const secret = randomBytes(SECRET_BYTES).toString("base64url");
    if (!(await this.#d.store.open(stored.id, hash(secret), now))) {
      const again = await this.#d.store.get(stored.id);
      throw new PortalLinkRefused((again && refusalOf(again, now)) ?? "used");
    }
    return { session: publicPart({ ...stored, openedAt: now }), cookie: `${stored.id}.${secret}` };
  }

  /** The live session a cookie names, or undefined (unknown, expired, revoked). */
  async authenticate(cookie: string | undefined): Promise<PortalSession | undefined> {
    const parts = cookie === undefined ? undefined : split(cookie);
    const stored = parts && (await this.#d.store.get(parts.id));
    if (!parts || !stored?.cookieHash || !sameHash(stored.cookieHash, hash(parts.secret)))
      return undefined;
    if (stored.revokedAt || this.#d.clock.now() >= stored.expiresAt) return undefined;
    return publicPart(stored);
  }

  /** The CSRF token of a session cookie (sent in `X-CSRF-Token` with every change). */
  csrfToken(cookie: string): string {
    return createHash("sha256").update(`csrf\0${cookie}`).digest("base64url");
  }

  csrfMatches(cookie: string, presented: string | undefined): boolean {
    return presented !== undefined && sameHash(this.csrfToken(cookie), presented);
  }
}

function refusalOf(session: StoredPortalSession, now: Date): LinkRefusal | undefined {
  if (session.revokedAt) return "revoked";
  if (now >= session.expiresAt) return "expired";
  if (session.openedAt) return "used";
  return undefined;
}

function publicPart(session: StoredPortalSession): PortalSession {
  const { tokenHash: _t, cookieHash: _c, ...rest } = session;
  return rest;
}

/** What a session may do: its creator's scopes, without `webhooks:write` when read-only. */
export function sessionScopes(session: PortalSession): ReadonlySet<string> {
  return new Set(session.scopes.filter((s) => !(session.readOnly && s === "webhooks:write")));
}
