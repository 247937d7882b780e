import { randomUUID } from "node:crypto";
import { EVENT_CATALOGUE, selfLink, type EntityType, type EventType } from "./catalogue.ts";

export const EVENT_VERSION = 1;

/**
 * The webhook event payload, exactly as the contract defines it. One type for producers and the
 * dispatcher.
 */
export interface EventPayload {
  event_uuid: string;
  event_type: EventType;
  event_version: number;
  occurred_at: string;
  entity: { type: EntityType; id: string };
  links: { self: string };
}

export interface NewEvent {
  type: EventType;
  entityId: string;
  publicBaseUrl: string;
  occurredAt?: Date;
  eventUuid?: string;
}

/** ISO 8601 with an explicit offset (UTC, `+00:00`), millisecond precision. */
export function isoWithOffset(instant: Date): string {
  return instant.toISOString().replace("Z", "+00:00");
}

export function buildEvent(input: NewEvent): EventPayload {
  const entity = EVENT_CATALOGUE[input.type];
  return {
    event_uuid: input.eventUuid ?? randomUUID(),
    event_type: input.type,
    event_version: EVENT_VERSION,
    occurred_at: isoWithOffset(input.occurredAt ?? new Date()),
    entity: { type: entity, id: input.entityId },
    links: { self: selfLink(input.publicBaseUrl, entity, input.entityId) },
  };
}
