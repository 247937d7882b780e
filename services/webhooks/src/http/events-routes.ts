import express, { type RequestHandler } from "express";
import { callerOf } from "@svc/auth";
import { cursorPagination, parseQuery, sendData, uuidParam, type DateOrInstant } from "@svc/http";
import { MethodNotAllowedError } from "@svc/errors";
import { expressPath } from "@svc/openapi";
import type { EventFeed } from "../domain/event-feed.ts";
import { getEventOperation, listEventsOperation } from "./events-operations.ts";
import { presentFeedEvent } from "./events-present.ts";

/** A date means midnight UTC (this service keeps no time zone). */
function instantOf(value: DateOrInstant | undefined): Date | null {
  if (value === undefined) return null;
  return value.kind === "date" ? new Date(`${value.date}T00:00:00Z`) : value.instant;
}

/**
 * The events feed's routes (`/v1/events`), behind `webhooks:read` (a token's, or a portal
 * session's); the feed filters by kind, by the caller's scopes.
 */
export function createEventsRouter(deps: {
  feed: EventFeed;
  guard: (route: { operationId: string; method: "get"; scope: "webhooks:read" }) => RequestHandler;
}): express.Router {
  const router = express.Router();
  const guardOf = (operationId: string) =>
    deps.guard({ operationId, method: "get", scope: listEventsOperation.auth.scope });
  const run =
    (handler: (req: express.Request, res: express.Response) => Promise<void>): RequestHandler =>
    (req, res, next) => {
      handler(req, res).catch(next);
    };

  const listPath = expressPath(listEventsOperation.path);
  router.get(
    listPath,
    guardOf(listEventsOperation.operationId),
    run(async (req, res) => {
      const query = parseQuery(listEventsOperation.query, req.query);
      const filter = {
        types: deps.feed.parseTypes(query.type),
        since: instantOf(query.created_since),
        before: instantOf(query.created_before),
      };
      const page = await deps.feed.list(callerOf(res.locals), {
        ...(query.cursor !== undefined && { cursor: query.cursor }),
        filter,
        filtered: query.type !== undefined || filter.since !== null || filter.before !== null,
        perPage: query.per_page,
      });
      sendData(res, page.items.map(presentFeedEvent), { pagination: cursorPagination(page) });
    }),
  );

  const getPath = expressPath(getEventOperation.path);
  router.get(
    getPath,
    guardOf(getEventOperation.operationId),
    (req, _res, next) => {
      try {
        parseQuery({}, req.query);
        next();
      } catch (err) {
        next(err);
      }
    },
    run(async (req, res) => {
      const id = uuidParam(req.params.event_uuid, "event_uuid");
      const event = await deps.feed.get(callerOf(res.locals), id);
      sendData(res, presentFeedEvent(event));
    }),
  );

  for (const path of [listPath, getPath])
    router.all(path, (_req, _res, next) => next(new MethodNotAllowedError(["GET"])));
  return router;
}
