import express, { type Request, type RequestHandler, type Response } from "express";
import { callerOf, requireScope, type TokenVerifier } from "@svc/auth";
import {
  parseQuery,
  requireJson,
  sendData,
  sendPage,
  uuidParam,
  type DateOrInstant,
} from "@svc/http";
import { DomainError, MethodNotAllowedError, NotFoundError } from "@svc/errors";
import { expressPath, type OperationSpec } from "@svc/openapi";
import type { SubscriptionService } from "../domain/subscription-service.ts";
import type { DeliveryFilter, DeliveryStatus } from "../domain/model.ts";
import type { EventFeed } from "../domain/event-feed.ts";
import { createEventsRouter } from "./events-routes.ts";
import { portalSessionRoutes, type PortalDeps } from "./portal-session-routes.ts";
import { createBody, parseBody, patchBody, recoverBody } from "./bodies.ts";
import {
  getDeliveryOperation,
  listAllDeliveriesOperation,
  listDeliveriesOperation,
  recoverWebhookOperation,
  redeliverOperation,
} from "./delivery-operations.ts";
import {
  createWebhookOperation,
  deleteWebhookOperation,
  getWebhookOperation,
  listEventTypesOperation,
  listWebhooksOperation,
  rotateWebhookSecretOperation,
  testWebhookOperation,
  updateWebhookOperation,
} from "./operations.ts";
import {
  presentCatalogue,
  presentDelivery,
  presentDeliveryDetail,
  presentRecovery,
  presentSubscription,
} from "./present.ts";

/**
 * Who calls: an API client through its token, or a portal session acting for it, limited to some
 * of its subscriptions (`subscriptionIds`; null: all of them).
 */
export type Principal = { clientId: string; subscriptionIds: ReadonlySet<string> | null };

/** The principal of a guarded request: the portal's guard sets `res.locals.principal`. */
function principalOf(locals: Record<string, unknown>): Principal {
  const portal = locals.principal as Principal | undefined;
  return portal ?? { clientId: callerOf(locals).clientId, subscriptionIds: null };
}

type Handler = (req: Request, res: Response, owner: string, principal: Principal) => Promise<void>;
export type Route = {
  operationId: string;
  method: "get" | "post" | "patch" | "delete";
  path: string;
  scope: "webhooks:read" | "webhooks:write";
  parsesQuery: boolean;
  json?: boolean;
  handler: Handler;
};

/**
 * Method, path and scope of a route, from its operation descriptor (./operations.ts, also the
 * OpenAPI document's source).
 */
function route(
  op: OperationSpec & { method: Route["method"]; auth: { scope: Route["scope"] } },
): Pick<Route, "operationId" | "method" | "path" | "scope" | "parsesQuery"> {
  return {
    operationId: op.operationId,
    method: op.method,
    path: expressPath(op.path),
    scope: op.auth.scope,
    parsesQuery: op.query !== undefined,
  };
}

/** An operation without query parameters refuses any: an unknown query parameter is 422. */
const noQuery: RequestHandler = (req, _res, next) => {
  try {
    parseQuery({}, req.query);
    next();
  } catch (err) {
    next(err);
  }
};

/**
 * The API's routes as a table of named handlers; each parses input, calls one service method,
 * wraps the result.
 */
/** A date means midnight UTC (this service keeps no time zone). */
function instantOf(value: DateOrInstant | undefined): Date | undefined {
  if (value === undefined) return undefined;
  return value.kind === "date" ? new Date(`${value.date}T00:00:00Z`) : value.instant;
}

function deliveryFilter(query: {
  status?: DeliveryStatus | undefined;
  event_type?: string | undefined;
  created_since?: DateOrInstant | undefined;
  created_before?: DateOrInstant | undefined;
}): DeliveryFilter {
  return {
    status: query.status,
    eventType: query.event_type,
    since: instantOf(query.created_since),
    before: instantOf(query.created_before),
  };
}

/** The installation facts a route shows (the event catalogue's environment and links). */
export type Installation = { environment: "production" | "sandbox"; publicBaseUrl: string };

export function routeTable(service: SubscriptionService, installation: Installation): Route[] {
  const catalogue = presentCatalogue(installation.environment, installation.publicBaseUrl);
  // A subscription outside the principal's subset does not exist for it.
  const webhook = (req: Request, res: Response) => {
    const id = uuidParam(req.params.webhook_uuid, "webhook_uuid");
    const only = principalOf(res.locals).subscriptionIds;
    if (only && !only.has(id)) throw new NotFoundError("webhook subscription not found");
    return id;
  };
  const delivery = (req: Request) => uuidParam(req.params.delivery_uuid, "delivery_uuid");
  const noStore = (res: Response) => res.set("Cache-Control", "no-store");
  return [
    {
      ...route(listEventTypesOperation),
      handler: async (_req, res) => {
        sendData(res, catalogue);
      },
    },
    // `/v1/webhooks/deliveries` and `event-types` before `/v1/webhooks/{webhook_uuid}`.
    {
      ...route(listAllDeliveriesOperation),
      handler: async (req, res, owner, principal) => {
        const query = parseQuery(listAllDeliveriesOperation.query, req.query);
        const result = await service.listAllDeliveries(
          owner,
          principal.subscriptionIds,
          deliveryFilter(query),
          { page: query.page, perPage: query.per_page },
        );
        sendPage(res, result.items.map(presentDelivery), {
          page: query.page,
          perPage: query.per_page,
          total: result.total,
        });
      },
    },
    {
      ...route(createWebhookOperation),
      json: true,
      handler: async (req, res, owner, principal) => {
        if (principal.subscriptionIds)
          throw new DomainError(
            403,
            "INSUFFICIENT_SCOPE",
            "this portal session is limited to some subscriptions and cannot create one",
          );
        const body = parseBody(createBody, req.body);
        const created = await service.create(owner, {
          url: body.url,
          eventTypes: body.event_types,
        });
        noStore(res).location(`/v1/webhooks/${created.subscription.id}`);
        sendData(
          res,
          { ...presentSubscription(created.subscription), secret: created.secret },
          { status: 201 },
        );
      },
    },
    {
      ...route(listWebhooksOperation),
      handler: async (req, res, owner, principal) => {
        const query = parseQuery(listWebhooksOperation.query, req.query);
        const result = await service.list(
          owner,
          { page: query.page, perPage: query.per_page },
          principal.subscriptionIds,
        );
        sendPage(res, result.items.map(presentSubscription), {
          page: query.page,
          perPage: query.per_page,
          total: result.total,
        });
      },
    },
    {
      ...route(getWebhookOperation),
      handler: async (req, res, owner) => {
        sendData(res, presentSubscription(await service.get(owner, webhook(req, res))));
      },
    },
    {
      ...route(updateWebhookOperation),
      json: true,
      handler: async (req, res, owner) => {
        const id = webhook(req, res);
        const body = parseBody(patchBody, req.body);
        const patch = {
          ...(body.url !== undefined && { url: body.url }),
          ...(body.event_types !== undefined && { eventTypes: body.event_types }),
          ...(body.enabled !== undefined && { enabled: body.enabled }),
        };
        sendData(res, presentSubscription(await service.update(owner, id, patch)));
      },
    },
    {
      ...route(deleteWebhookOperation),
      handler: async (req, res, owner) => {
        const id = webhook(req, res);
        await service.remove(owner, id);
        sendData(res, { webhook_uuid: id, deleted: true });
      },
    },
    {
      ...route(testWebhookOperation),
      handler: async (req, res, owner) => {
        sendData(res, presentDelivery(await service.sendTest(owner, webhook(req, res))), {
          status: 202,
        });
      },
    },
    {
      ...route(rotateWebhookSecretOperation),
      handler: async (req, res, owner) => {
        const rotated = await service.rotateSecret(owner, webhook(req, res));
        noStore(res);
        sendData(res, { ...presentSubscription(rotated.subscription), secret: rotated.secret });
      },
    },
    {
      ...route(listDeliveriesOperation),
      handler: async (req, res, owner) => {
        const id = webhook(req, res);
        const query = parseQuery(listDeliveriesOperation.query, req.query);
        const result = await service.listDeliveries(owner, id, deliveryFilter(query), {
          page: query.page,
          perPage: query.per_page,
        });
        sendPage(res, result.items.map(presentDelivery), {
          page: query.page,
          perPage: query.per_page,
          total: result.total,
        });
      },
    },
    {
      ...route(getDeliveryOperation),
      handler: async (req, res, owner) => {
        sendData(
          res,
          presentDeliveryDetail(await service.getDelivery(owner, webhook(req, res), delivery(req))),
        );
      },
    },
    {
      ...route(redeliverOperation),
      handler: async (req, res, owner) => {
        sendData(
          res,
          presentDelivery(await service.redeliver(owner, webhook(req, res), delivery(req))),
          { status: 202 },
        );
      },
    },
    // Bulk recovery.
    {
      ...route(recoverWebhookOperation),
      json: true,
      handler: async (req, res, owner) => {
        const id = webhook(req, res);
        const body = parseBody(recoverBody, req.body);
        const recovery = await service.recover(owner, id, { since: body.since, until: body.until });
        sendData(res, presentRecovery(id, recovery), { status: 202 });
      },
    },
  ];
}

/** What the router needs: the domain module, the events feed, the token verifier, the portal. */
export interface RouterDeps {
  service: SubscriptionService;
  feed: EventFeed;
  verify: TokenVerifier;
  portal: PortalDeps;
  installation: Installation;
}

/** The guard in front of a route: the bearer token's scope check, or the portal session's. */
export type RouteGuard = (route: Pick<Route, "operationId" | "method" | "scope">) => RequestHandler;

/**
 * Mounts a table: guard, JSON check where a body is expected, then the handler. A known path with
 * another method is 405.
 */
export function mountRoutes(router: express.Router, routes: Route[], guard: RouteGuard): void {
  for (const route of routes) {
    const run: RequestHandler = (req, res, next) => {
      const principal = principalOf(res.locals);
      route.handler(req, res, principal.clientId, principal).catch(next);
    };
    router[route.method](
      route.path,
      guard(route),
      ...(route.parsesQuery ? [] : [noQuery]),
      ...(route.json ? [requireJson()] : []),
      run,
    );
  }
  for (const path of new Set(routes.map((r) => r.path))) {
    const allowed = routes.filter((r) => r.path === path).map((r) => r.method.toUpperCase());
    router.all(path, (_req, _res, next) => next(new MethodNotAllowedError(allowed)));
  }
}

/**
 * The public API: the portal-session routes, the webhooks table and the events feed, behind
 * bearer tokens.
 */
export function createRouter(deps: RouterDeps): express.Router {
  const router = express.Router();
  const guard: RouteGuard = (route) => requireScope(deps.verify, route.scope);
  // `/v1/webhooks/portal-sessions` first: the table's `{webhook_uuid}` would take it.
  mountRoutes(
    router,
    [...portalSessionRoutes(deps.portal), ...routeTable(deps.service, deps.installation)],
    guard,
  );
  router.use(createEventsRouter({ feed: deps.feed, guard }));
  return router;
}
