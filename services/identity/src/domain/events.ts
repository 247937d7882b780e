import { buildEvent, type EventPayload, type EventType } from "@svc/events";

/**
 * Builds the events of one unit of work: same instant, absolute links under the public base URL.
 */
export function eventsAt(
  publicBaseUrl: string,
  occurredAt: Date,
): (type: EventType, entityId: string) => EventPayload {
  return (type, entityId) => buildEvent({ type, entityId, publicBaseUrl, occurredAt });
}
