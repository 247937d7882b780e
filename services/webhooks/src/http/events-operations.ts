/**
 * The events feed's operations (README "Events feed"), declared once for the router and the
 * OpenAPI document, like ./operations.ts.
 */
import { z } from "zod";
import { q } from "@svc/http";
import { EVENT_TYPES } from "@svc/events";
import {
  doc,
  eventSchemaName,
  type NamedSchema,
  type OperationSpec,
  type SameKeys,
  type TagSpec,
  uuidPathParams,
} from "@svc/openapi";
import { FEED_SCOPE_OF_KIND, type FeedEventType } from "../domain/event-feed.ts";
import type { presentFeedEvent } from "./events-present.ts";

const FEED_TYPES = EVENT_TYPES.filter((t): t is FeedEventType => t !== "system.ping");
const SCOPES_TEXT = Object.entries(FEED_SCOPE_OF_KIND)
  .map(([kind, scope]) => `${kind} events need \`${scope}\``)
  .join(", ");

export const EVENT_TAGS: TagSpec[] = [
  {
    name: "Events",
    description: `Every event of the catalogue the service published, whether or not a subscription wanted it, kept ${"`WEBHOOK_EVENTS_RETENTION_DAYS`"} (30 days by default): the place to catch up after an outage or to check nothing was missed. Needs \`webhooks:read\`; a token sees the types of each kind whose entity its scopes read (${SCOPES_TEXT}) and the types its own client's subscriptions select, so \`webhooks:read\` alone shows its subscriptions' types (none: an empty feed). \`system.ping\` (a test delivery to one subscription) is not in the feed.`,
  },
];

// The feed's own fields; `payload` is the delivered body, one of the catalogue's event schemas.
const feedFields = {
  event_uuid: doc.uuid(),
  event_type: z.enum(FEED_TYPES),
  created_at: doc.instant().meta({
    description:
      "When the service recorded the event (it entered the feed then); the `created_since` and `created_before` filters use it. `payload.occurred_at` is the event's own time (what it means per event type: the `occurred_at` of each event's payload schema), so for a detected vacancy or practice change it can be earlier than `created_at`, and the feed is not in `occurred_at` order.",
  }),
  payload: z.record(z.string(), z.unknown()),
};
export const _feedEventKeys: SameKeys<
  ReturnType<typeof presentFeedEvent>,
  z.output<z.ZodObject<typeof feedFields>>
> = true;

const feedEvent: NamedSchema = {
  name: "FeedEvent",
  description: "One event of the feed.",
  schema: {
    type: "object",
    additionalProperties: false,
    required: Object.keys(feedFields),
    properties: {
      event_uuid: { type: "string", format: "uuid", description: "Also `X-SVC-Event-Id`." },
      event_type: { type: "string", enum: FEED_TYPES },
      created_at: {
        type: "string",
        format: "date-time",
        description: feedFields.created_at.meta()?.description,
      },
      payload: {
        description:
          "The body a subscriber receives for this event, field for field: serialised compactly (`JSON.stringify`) it is the signed body byte for byte.",
        oneOf: FEED_TYPES.map((t) => ({ $ref: `#/components/schemas/${eventSchemaName(t)}` })),
      },
    },
  },
};

export const listEventsOperation = {
  operationId: "listEvents",
  method: "get",
  path: "/v1/events",
  summary: "List events (the events feed)",
  description:
    "Oldest first, in the order the service recorded them. Follow `meta.pagination.next_cursor` page after page: a reader that keeps following it while events arrive sees every event exactly once (an event appears only once nothing recorded before it can still appear). `has_more` false means caught up; poll the same cursor later for new events. The cursor carries the filters, so it is given alone (with `per_page`). `page`, `total` and `total_pages` count this walk's pages and the matching events now in the feed (a count at most a minute old).",
  tag: "Events",
  auth: { scope: "webhooks:read" },
  query: {
    per_page: q.perPage(),
    cursor: q
      .text(1_024)
      .optional()
      .meta({ description: "`next_cursor` of the previous page; absent: the oldest event." }),
    type: q
      .list(FEED_TYPES as [FeedEventType, ...FeedEventType[]])
      .optional()
      .meta({
        description:
          "Event types of this environment's feed, comma-separated without spaces (e.g. `vacancy.created,vacancy.updated`); anything else is 422. Absent: every type the token may read (its scopes' kinds and its subscriptions' types). A type the token may not read is 403 naming the scope that reads it.",
      }),
    created_since: q.dateOrDateTime().optional().meta({
      description:
        "Only events recorded at or after this instant (date-time with offset, or a date: midnight UTC).",
    }),
    created_before: q
      .dateOrDateTime()
      .optional()
      .meta({ description: "Only events recorded before this instant (as `created_since`)." }),
  },
  responses: {
    200: { description: "A page of events.", body: { envelope: "cursorPage", items: feedEvent } },
  },
  errors: { 422: ["VALIDATION_ERROR"] },
} as const satisfies OperationSpec;

export const getEventOperation = {
  operationId: "getEvent",
  method: "get",
  path: "/v1/events/{event_uuid}",
  summary: "Read one event",
  description:
    "An event of the feed by its uuid (`X-SVC-Event-Id`); 404 when it is not in the feed, is past retention, or is of a type the token may not read.",
  tag: "Events",
  auth: { scope: "webhooks:read" },
  pathParams: uuidPathParams({ event_uuid: "event" }),
  responses: {
    200: { description: "The event.", body: { envelope: "data", schema: feedEvent } },
  },
  errors: { 404: ["NOT_FOUND"], 422: ["VALIDATION_ERROR"] },
} as const satisfies OperationSpec;

export const EVENT_OPERATIONS: ReadonlyArray<OperationSpec> = [
  listEventsOperation,
  getEventOperation,
];
