import { isoWithOffset } from "@svc/events";
import type { FeedEvent } from "../domain/event-feed.ts";

/**
 * A feed event as the API shows it. `payload` is the stored body parsed: the body was written by
 * JSON.stringify, so JSON.stringify(payload) gives it back byte for byte (what `webhooks listen`
 * signs and posts).
 */
export function presentFeedEvent(e: FeedEvent) {
  return {
    event_uuid: e.eventUuid,
    event_type: e.eventType,
    created_at: isoWithOffset(e.receivedAt),
    payload: JSON.parse(e.body) as Record<string, unknown>,
  };
}
