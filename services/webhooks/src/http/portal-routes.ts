import express, { type Request, type RequestHandler, type Response } from "express";
import { RateLimiter, type AccessToken } from "@svc/auth";
import { isoWithOffset } from "@svc/events";
import { sendData } from "@svc/http";
import {
  DependencyUnavailableError,
  DomainError,
  InsufficientScopeError,
  MethodNotAllowedError,
  RateLimitedError,
} from "@svc/errors";
import type { PortalSession } from "../domain/model.ts";
import { PortalLinkRefused, sessionScopes, type LinkRefusal } from "../domain/portal-sessions.ts";
import { portalFiles, portalSecurityHeaders, refusalPage } from "./portal-pages.ts";
import { audit, type PortalDeps } from "./portal-session-routes.ts";
import {
  mountRoutes,
  routeTable,
  type Installation,
  type Principal,
  type RouteGuard,
} from "./router.ts";
import { createEventsRouter } from "./events-routes.ts";
import type { SubscriptionService } from "../domain/subscription-service.ts";
import type { EventFeed } from "../domain/event-feed.ts";

export const PORTAL_COOKIE = "portal_session";
export const CSRF_HEADER = "X-CSRF-Token";

function cookieOf(req: Request): string | undefined {
  for (const part of (req.get("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === PORTAL_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

const SAFE = new Set(["GET", "HEAD"]);

function unauthenticated(): DomainError {
  return new DomainError(
    401,
    "UNAUTHENTICATED",
    "no live portal session: the link expired, was revoked or was never opened; ask for a new link",
  );
}

function csrfRejected(what: string): DomainError {
  return new DomainError(403, "CSRF_REJECTED", `the request was refused: ${what}`);
}

/** The portal session of a request, after `sessionGuard`. */
export function portalSessionOf(res: Response): { session: PortalSession; cookie: string } {
  return res.locals.portal as { session: PortalSession; cookie: string };
}

/**
 * The portal's guard: a live session cookie (its client not revoked), on a change the CSRF token
 * and a same-origin request, the session's rate limits, its read-only flag; the request then acts
 * as the session's client, limited to its subscriptions (res.locals.principal).
 */
export function portalGuard(deps: PortalDeps): {
  guard: RouteGuard;
  session: RequestHandler;
} {
  const reads = new RateLimiter({ burst: 120, perMinute: deps.limits.readsPerMinute });
  const actions = new RateLimiter({ burst: 20, perMinute: deps.limits.actionsPerMinute });
  const origin = new URL(deps.publicBaseUrl).origin;

  const session: RequestHandler = (req, res, next) => {
    void (async () => {
      const cookie = cookieOf(req);
      const found = await deps.sessions.authenticate(cookie);
      if (!found || cookie === undefined) throw unauthenticated();
      const status = deps.revocation?.status(tokenOf(found)) ?? "valid";
      if (status === "unknown") throw new DependencyUnavailableError("client revocation status");
      if (status === "revoked") {
        await deps.sessions.revokeClient(found.clientId);
        throw unauthenticated();
      }
      const taken = (SAFE.has(req.method) ? reads : actions).take(found.id);
      if (!taken.ok) throw new RateLimitedError(taken.retryAfterSeconds);
      if (!SAFE.has(req.method)) {
        const sentOrigin = req.get("origin");
        if (sentOrigin !== undefined && sentOrigin !== origin)
          throw csrfRejected("it came from another origin");
        const site = req.get("sec-fetch-site");
        if (site !== undefined && site !== "same-origin" && site !== "none")
          throw csrfRejected("it came from another site");
        if (!deps.sessions.csrfMatches(cookie, req.get(CSRF_HEADER)))
          throw csrfRejected(`the ${CSRF_HEADER} header is missing or wrong`);
      }
      res.locals.portal = { session: found, cookie };
      res.locals.auth = tokenOf(found);
      res.locals.principal = {
        clientId: found.clientId,
        subscriptionIds: found.subscriptionIds && new Set(found.subscriptionIds),
      } satisfies Principal;
      res.set("Cache-Control", "no-store");
    })().then(() => next(), next);
  };

  const guard: RouteGuard = (route) => (req, res, next) => {
    session(req, res, (err?: unknown) => {
      if (err) {
        next(err);
        return;
      }
      const { session: s } = portalSessionOf(res);
      if (!sessionScopes(s).has(route.scope)) {
        next(
          s.readOnly && route.scope === "webhooks:write"
            ? new DomainError(403, "INSUFFICIENT_SCOPE", "this portal session is read-only")
            : new InsufficientScopeError(route.scope, "portal"),
        );
        return;
      }
      if (route.method !== "get") {
        res.on("finish", () =>
          audit(deps.logger, {
            client_id: s.clientId,
            portal_session_id: s.id,
            action: route.operationId,
            ...ids(req),
            status: res.statusCode,
          }),
        );
      }
      next();
    });
  };
  return { guard, session };
}

/** The ids a request names (never its body). */
function ids(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of ["webhook_uuid", "delivery_uuid"] as const) {
    const value = req.params[key];
    if (typeof value === "string") out[key] = value;
  }
  return out;
}

/** A session as a token for the checks that take one (scopes, revocation). */
function tokenOf(s: PortalSession): AccessToken {
  return {
    clientId: s.clientId,
    scopes: sessionScopes(s),
    jti: `portal:${s.id}`,
    issuedAt: Math.floor(s.createdAt.getTime() / 1000),
    expiresAt: Math.floor(s.expiresAt.getTime() / 1000),
  };
}

/**
 * `GET /portal/open?token=…`: exchanges the link's one-time token for the session cookie, then
 * 303 to `/portal/` (the token leaves the address bar and is never sent as a Referer). A refused
 * link is a page that says why.
 */
export function openRoute(deps: PortalDeps): express.Router {
  const router = express.Router();
  const secure = deps.publicBaseUrl.startsWith("https:");
  router.get("/portal/open", (req: Request, res: Response, next) => {
    res.set({ "Referrer-Policy": "no-referrer", "Cache-Control": "no-store" });
    const token = typeof req.query.token === "string" ? req.query.token : "";
    const refuse = (reason: LinkRefusal) => {
      deps.logger.info({ audit: "portal", reason }, "portal link refused");
      res.status(reason === "unknown" ? 404 : 410);
      res.set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'");
      res.type("text/html; charset=utf-8").send(refusalPage(reason));
    };
    deps.sessions
      .open(token)
      .then(
        async ({ session, cookie }) => {
          // A link of a revoked client opens nothing, even when its revocation was not yet applied.
          const status = deps.revocation?.status(tokenOf(session)) ?? "valid";
          if (status === "unknown")
            throw new DependencyUnavailableError("client revocation status");
          if (status === "revoked") {
            await deps.sessions.revokeClient(session.clientId);
            refuse("revoked");
            return;
          }
          audit(deps.logger, {
            client_id: session.clientId,
            portal_session_id: session.id,
            action: "openPortalLink",
          });
          const maxAge = Math.max(0, session.expiresAt.getTime() - Date.now());
          res.cookie(PORTAL_COOKIE, cookie, {
            httpOnly: true,
            secure,
            sameSite: "strict",
            path: "/portal",
            maxAge,
          });
          res.redirect(303, "/portal/");
        },
        (err: unknown) => {
          if (err instanceof PortalLinkRefused) refuse(err.reason);
          else throw err;
        },
      )
      .catch(next);
  });
  router.all("/portal/open", (_req, _res, next) => next(new MethodNotAllowedError(["GET"])));
  return router;
}

/** What `/portal` serves besides the sessions: the API's table and feed, the built files. */
export interface PortalRouterDeps extends PortalDeps {
  service: SubscriptionService;
  feed: EventFeed;
  installation: Installation;
  /** The portal's built files (packages/portal/dist). */
  filesDir: string;
}

/**
 * Everything under `/portal`: the link exchange, `/portal/api/session`, the public API's
 * operations under `/portal/api/v1/...` behind the session, and the built files.
 */
export function createPortalRouter(deps: PortalRouterDeps): express.Router {
  const router = express.Router();
  router.use("/portal", portalSecurityHeaders);
  router.use(openRoute(deps));
  const { guard, session } = portalGuard(deps);
  const api = express.Router();
  api.get("/session", session, (_req, res) => {
    const { session: s, cookie } = portalSessionOf(res);
    sendData(res, {
      session_id: s.id,
      client_id: s.clientId,
      read_only: s.readOnly,
      subscription_ids: s.subscriptionIds,
      scopes: [...sessionScopes(s)].sort(),
      expires_at: isoWithOffset(s.expiresAt),
      csrf_token: deps.sessions.csrfToken(cookie),
      environment: deps.environment,
      links: PORTAL_LINKS,
    });
  });
  api.all("/session", (_req, _res, next) => next(new MethodNotAllowedError(["GET"])));
  mountRoutes(api, routeTable(deps.service, deps.installation), guard);
  api.use(createEventsRouter({ feed: deps.feed, guard }));
  router.use("/portal/api", api);
  router.use(portalFiles(deps.filesDir));
  return router;
}

/** Where a subscriber reads on: the guide's sections and the verification packages. */
export const PORTAL_LINKS = {
  api_reference: "/reference",
  openapi: "/openapi.json",
  subscriber_guide: "docs/webhook-subscribers.md",
  verifying_signatures: "docs/webhook-subscribers.md#receiving-and-verifying",
  node_package: "@integration-service/webhooks",
  python_package: "integration-service-webhooks",
};
