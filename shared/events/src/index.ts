export {
  EVENT_CATALOGUE,
  EVENT_TYPES,
  eventTypesFor,
  isEventType,
  selfLink,
  type EventType,
  type EntityType,
} from "./catalogue.ts";
export { OCCURRED_AT, occurredAtFor } from "./occurred-at-meaning.ts";
export {
  buildEvent,
  isoWithOffset,
  EVENT_VERSION,
  type EventPayload,
  type NewEvent,
} from "./event.ts";
export { outboxTable, enqueueEvents, type OutboxTable, type PgExecutor } from "./outbox.ts";
export { startRelay, type Relay, type RelayOptions, type RelayStats } from "./relay.ts";
export { withTransaction } from "./pg-transaction.ts";
export { contextFrom, traceContextOf, type TraceContext } from "./telemetry.ts";
export * from "./change-detection/index.ts";
export {
  startEventPipeline,
  startOutboxRelay,
  type RelaySettings,
  type EventPipeline,
  type EventPipelineOptions,
  type EventSettings,
} from "./event-pipeline.ts";
