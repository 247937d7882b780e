import express, { type RequestHandler } from "express";
import { callerOf, requireScope, type TokenVerifier } from "@svc/auth";
import { parseQuery, sendData, type DateOrInstant } from "@svc/http";
import { MethodNotAllowedError, ValidationError } from "@svc/errors";
import { expressPath } from "@svc/openapi";
import type { EventFeed } from "../domain/event-feed.ts";
import { getEventOperation, listEventsOperation } from "./events-operations.ts";
import { presentFeedEvent } from "./events-present.ts";

/** A date means midnight UTC (this service keeps no time zone). */
function instantOf(value: DateOrInstant | undefined): Date | null {
  if (value === undefined) return null;
  return value.kind === "date" ? new Date(`${value.date}T00:00:00Z`) : value.instant;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The events feed's routes (`/v1/events`), behind `webhooks:read`; the feed filters by kind. */
export function createEventsRouter(deps: {
  feed: EventFeed;
  verify: TokenVerifier;
}): express.Router {
  const router = express.Router();
  const guard = requireScope(deps.verify, listEventsOperation.auth.scope);
  const run =
    (handler: (req: express.Request, res: express.Response) => Promise<void>): RequestHandler =>
    (req, res, next) => {
      handler(req, res).catch(next);
    };

  const listPath = expressPath(listEventsOperation.path);
  router.get(
    listPath,
    guard,
    run(async (req, res) => {
      const query = parseQuery(listEventsOperation.query, req.query);
      const filter = {
        types: deps.feed.parseTypes(query.type),
        since: instantOf(query.created_since),
        before: instantOf(query.created_before),
      };
      const page = await deps.feed.list(callerOf(res.locals).scopes, {
        ...(query.cursor !== undefined && { cursor: query.cursor }),
        filter,
        filtered: query.type !== undefined || filter.since !== null || filter.before !== null,
        perPage: query.per_page,
      });
      sendData(res, page.events.map(presentFeedEvent), {
        pagination: {
          page: page.page,
          per_page: page.perPage,
          total: page.total,
          total_pages: Math.max(page.page, Math.ceil(page.total / page.perPage)),
          next_cursor: page.nextCursor,
          has_more: page.hasMore,
        },
      });
    }),
  );

  const getPath = expressPath(getEventOperation.path);
  router.get(
    getPath,
    guard,
    (req, _res, next) => {
      try {
        parseQuery({}, req.query);
        next();
      } catch (err) {
        next(err);
      }
    },
    run(async (req, res) => {
      const id = String(req.params.event_uuid);
      if (!UUID.test(id))
        throw new ValidationError([{ field: "event_uuid", message: "must be a UUID" }]);
      const event = await deps.feed.get(callerOf(res.locals).scopes, id.toLowerCase());
      sendData(res, presentFeedEvent(event));
    }),
  );

  for (const path of [listPath, getPath])
    router.all(path, (_req, _res, next) => next(new MethodNotAllowedError(["GET"])));
  return router;
}
