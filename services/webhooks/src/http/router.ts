import express, { type Request, type RequestHandler, type Response } from "express";
import { callerOf, requireScope, type TokenVerifier } from "@svc/auth";
import { parseQuery, requireJson, sendData, sendPage } from "@svc/http";
import { MethodNotAllowedError, ValidationError } from "@svc/errors";
import { expressPath, type OperationSpec } from "@svc/openapi";
import type { SubscriptionService } from "../domain/subscription-service.ts";
import type { EventFeed } from "../domain/event-feed.ts";
import { createEventsRouter } from "./events-routes.ts";
import { createBody, parseBody, patchBody, recoverBody } from "./bodies.ts";
import {
  createWebhookOperation,
  deleteWebhookOperation,
  getDeliveryOperation,
  getWebhookOperation,
  listDeliveriesOperation,
  listWebhooksOperation,
  recoverWebhookOperation,
  redeliverOperation,
  rotateWebhookSecretOperation,
  testWebhookOperation,
  updateWebhookOperation,
} from "./operations.ts";
import {
  presentDelivery,
  presentDeliveryDetail,
  presentRecovery,
  presentSubscription,
} from "./present.ts";

type Handler = (req: Request, res: Response, owner: string) => Promise<void>;
type Route = {
  method: "get" | "post" | "patch" | "delete";
  path: string;
  scope: "webhooks:read" | "webhooks:write";
  parsesQuery: boolean;
  json?: boolean;
  handler: Handler;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function uuidParam(req: Request, name: "webhook_uuid" | "delivery_uuid"): string {
  const value = String(req.params[name]);
  if (!UUID.test(value)) throw new ValidationError([{ field: name, message: "must be a UUID" }]);
  return value.toLowerCase();
}

/**
 * Method, path and scope of a route, from its operation descriptor (./operations.ts, also the
 * OpenAPI document's source).
 */
function route(
  op: OperationSpec & { method: Route["method"]; auth: { scope: Route["scope"] } },
): Pick<Route, "method" | "path" | "scope" | "parsesQuery"> {
  return {
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
function routeTable(service: SubscriptionService): Route[] {
  const webhook = (req: Request) => uuidParam(req, "webhook_uuid");
  const delivery = (req: Request) => uuidParam(req, "delivery_uuid");
  const noStore = (res: Response) => res.set("Cache-Control", "no-store");
  return [
    {
      ...route(createWebhookOperation),
      json: true,
      handler: async (req, res, owner) => {
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
      handler: async (req, res, owner) => {
        const query = parseQuery(listWebhooksOperation.query, req.query);
        const result = await service.list(owner, { page: query.page, perPage: query.per_page });
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
        sendData(res, presentSubscription(await service.get(owner, webhook(req))));
      },
    },
    {
      ...route(updateWebhookOperation),
      json: true,
      handler: async (req, res, owner) => {
        const id = webhook(req);
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
        const id = webhook(req);
        await service.remove(owner, id);
        sendData(res, { webhook_uuid: id, deleted: true });
      },
    },
    {
      ...route(testWebhookOperation),
      handler: async (req, res, owner) => {
        sendData(res, presentDelivery(await service.sendTest(owner, webhook(req))), {
          status: 202,
        });
      },
    },
    {
      ...route(rotateWebhookSecretOperation),
      handler: async (req, res, owner) => {
        const rotated = await service.rotateSecret(owner, webhook(req));
        noStore(res);
        sendData(res, { ...presentSubscription(rotated.subscription), secret: rotated.secret });
      },
    },
    {
      ...route(listDeliveriesOperation),
      handler: async (req, res, owner) => {
        const id = webhook(req);
        const query = parseQuery(listDeliveriesOperation.query, req.query);
        const result = await service.listDeliveries(
          owner,
          id,
          { status: query.status },
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
      ...route(getDeliveryOperation),
      handler: async (req, res, owner) => {
        sendData(
          res,
          presentDeliveryDetail(await service.getDelivery(owner, webhook(req), delivery(req))),
        );
      },
    },
    {
      ...route(redeliverOperation),
      handler: async (req, res, owner) => {
        sendData(
          res,
          presentDelivery(await service.redeliver(owner, webhook(req), delivery(req))),
          { status: 202 },
        );
      },
    },
    // Bulk recovery.
    {
      ...route(recoverWebhookOperation),
      json: true,
      handler: async (req, res, owner) => {
        const id = webhook(req);
        const body = parseBody(recoverBody, req.body);
        const recovery = await service.recover(owner, id, { since: body.since, until: body.until });
        sendData(res, presentRecovery(id, recovery), { status: 202 });
      },
    },
  ];
}

/** What the router needs: the domain module, the events feed and the token verifier. */
export interface RouterDeps {
  service: SubscriptionService;
  feed: EventFeed;
  verify: TokenVerifier;
}

/**
 * Mounts the table: scope guard, JSON check where a body is expected, then the handler. A known
 * path with another method is 405.
 */
export function createRouter(deps: RouterDeps): express.Router {
  const router = express.Router();
  const routes = routeTable(deps.service);
  for (const route of routes) {
    const run: RequestHandler = (req, res, next) => {
      route.handler(req, res, callerOf(res.locals).clientId).catch(next);
    };
    router[route.method](
      route.path,
      requireScope(deps.verify, route.scope),
      ...(route.parsesQuery ? [] : [noQuery]),
      ...(route.json ? [requireJson()] : []),
      run,
    );
  }
  for (const path of new Set(routes.map((r) => r.path))) {
    const allowed = routes.filter((r) => r.path === path).map((r) => r.method.toUpperCase());
    router.all(path, (_req, _res, next) => next(new MethodNotAllowedError(allowed)));
  }
  router.use(createEventsRouter({ feed: deps.feed, verify: deps.verify }));
  return router;
}
