import { callerOf, RateLimiter, type RevocationView } from "@svc/auth";
import { parseQuery, sendData, sendPage } from "@svc/http";
import { RateLimitedError, ValidationError } from "@svc/errors";
import type { Logger } from "@svc/logging";
import { expressPath } from "@svc/openapi";
import type { PortalSessions } from "../domain/portal-sessions.ts";
import { parseBody } from "./bodies.ts";
import {
  createPortalSessionOperation,
  listPortalSessionsOperation,
  portalSessionBody,
  revokePortalSessionOperation,
} from "./portal-operations.ts";
import { presentPortalSession } from "./portal-present.ts";
import type { Route } from "./router.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface PortalLimits {
  sessionsBurst: number;
  sessionsPerMinute: number;
  actionsPerMinute: number;
  readsPerMinute: number;
}

export interface PortalDeps {
  sessions: PortalSessions;
  logger: Logger;
  /** The revocation feed's view: a revoked client's sessions end at once. Absent: none revoked. */
  revocation?: RevocationView | undefined;
  /** The public origin (PUBLIC_BASE_URL): links point there, and changes must come from it. */
  publicBaseUrl: string;
  environment: string;
  limits: PortalLimits;
}

/**
 * One audit line per portal action: who (client, session), what (the operation and the ids it
 * names), the answer's status. Never a token, cookie, secret or body.
 */
export function audit(
  logger: Logger,
  fields: { client_id: string; portal_session_id: string; action: string } & Record<
    string,
    unknown
  >,
): void {
  logger.info({ audit: "portal", ...fields }, "portal action");
}

/** `POST/GET /v1/webhooks/portal-sessions`, `DELETE .../{session_id}`: bearer-token routes. */
export function portalSessionRoutes(deps: PortalDeps): Route[] {
  const perClient = new RateLimiter({
    burst: deps.limits.sessionsBurst,
    perMinute: deps.limits.sessionsPerMinute,
  });
  const portalUrl = new URL("/portal/open", deps.publicBaseUrl);
  return [
    {
      operationId: createPortalSessionOperation.operationId,
      method: "post",
      path: expressPath(createPortalSessionOperation.path),
      scope: createPortalSessionOperation.auth.scope,
      parsesQuery: false,
      json: true,
      handler: async (req, res, owner) => {
        const taken = perClient.take(owner);
        if (!taken.ok) throw new RateLimitedError(taken.retryAfterSeconds);
        const body = parseBody(portalSessionBody, req.body);
        const { session, token } = await deps.sessions.create(owner, callerOf(res.locals).scopes, {
          subscriptionIds: body.subscription_ids,
          readOnly: body.read_only,
          ttlSeconds: body.ttl_seconds,
        });
        audit(deps.logger, {
          client_id: owner,
          portal_session_id: session.id,
          action: "createPortalSession",
          read_only: session.readOnly,
          subscriptions: session.subscriptionIds?.length ?? "all",
        });
        const url = new URL(portalUrl);
        url.searchParams.set("token", token);
        res.set("Cache-Control", "no-store");
        sendData(res, { ...presentPortalSession(session), url: url.href }, { status: 201 });
      },
    },
    {
      operationId: listPortalSessionsOperation.operationId,
      method: "get",
      path: expressPath(listPortalSessionsOperation.path),
      scope: listPortalSessionsOperation.auth.scope,
      parsesQuery: true,
      handler: async (req, res, owner) => {
        const query = parseQuery(listPortalSessionsOperation.query, req.query);
        const result = await deps.sessions.list(owner, {
          page: query.page,
          perPage: query.per_page,
        });
        sendPage(res, result.items.map(presentPortalSession), {
          page: query.page,
          perPage: query.per_page,
          total: result.total,
        });
      },
    },
    {
      operationId: revokePortalSessionOperation.operationId,
      method: "delete",
      path: expressPath(revokePortalSessionOperation.path),
      scope: revokePortalSessionOperation.auth.scope,
      parsesQuery: false,
      handler: async (req, res, owner) => {
        const id = String(req.params.session_id);
        if (!UUID.test(id))
          throw new ValidationError([{ field: "session_id", message: "must be a UUID" }]);
        const session = await deps.sessions.revoke(owner, id.toLowerCase());
        audit(deps.logger, {
          client_id: owner,
          portal_session_id: session.id,
          action: "revokePortalSession",
        });
        sendData(res, presentPortalSession(session));
      },
    },
  ];
}
