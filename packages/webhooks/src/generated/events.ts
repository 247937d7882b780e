// Generated from the OpenAPI document by packages/codegen; do not edit. Regenerate: npm run generate.

export type ApplicationCreatedEvent = {
  /** Unique per event; also X-SVC-Event-Id. Deduplicate on it. */
  event_uuid: string;
  event_type: "application.created";
  /** Payload version. */
  event_version: 1;
  /** ISO 8601 with offset. When the service recorded the application: the application's `created_at`, in the same transaction as the event (the event exists only if that commits). */
  occurred_at: string;
  entity: {
    type: "application";
    /** Identifier of the entity. */
    id: string;
  };
  links: {
    /** Where the entity's current state is fetched (with a token). */
    self: string;
  };
};

export type ApplicationSubmittedEvent = {
  /** Unique per event; also X-SVC-Event-Id. Deduplicate on it. */
  event_uuid: string;
  event_type: "application.submitted";
  /** Payload version. */
  event_version: 1;
  /** ISO 8601 with offset. When the service recorded the submission: its `submitted_at`, in the same transaction as the event (the event exists only if that commits). */
  occurred_at: string;
  entity: {
    type: "application";
    /** Identifier of the entity. */
    id: string;
  };
  links: {
    /** Where the entity's current state is fetched (with a token). */
    self: string;
  };
};

export type CandidateCreatedEvent = {
  /** Unique per event; also X-SVC-Event-Id. Deduplicate on it. */
  event_uuid: string;
  event_type: "candidate.created";
  /** Payload version. */
  event_version: 1;
  /** ISO 8601 with offset. When the service recorded the new candidate: the candidate's `created_at`, in the same transaction as the event (the event exists only if that commits). */
  occurred_at: string;
  entity: {
    type: "candidate";
    /** Identifier of the entity. */
    id: string;
  };
  links: {
    /** Where the entity's current state is fetched (with a token). */
    self: string;
  };
};

export type PracticeCreatedEvent = {
  /** Unique per event; also X-SVC-Event-Id. Deduplicate on it. */
  event_uuid: string;
  event_type: "practice.created";
  /** Payload version. */
  event_version: 1;
  /** ISO 8601 with offset. When the primary system stamped the practice: the latest modification time among its rows (its practice rows and its CRM record), when the change was found through it; otherwise when the service detected the change: a change that left the modification time alone (found by the full sweep, within about 15 minutes), a modification time ahead of the service's clock, from before the service last saw the record, or inside the repeated autumn hour. */
  occurred_at: string;
  entity: {
    type: "practice";
    /** Identifier of the entity. */
    id: string;
  };
  links: {
    /** Where the entity's current state is fetched (with a token). */
    self: string;
  };
};

export type PracticeDeletedEvent = {
  /** Unique per event; also X-SVC-Event-Id. Deduplicate on it. */
  event_uuid: string;
  event_type: "practice.deleted";
  /** Payload version. */
  event_version: 1;
  /** ISO 8601 with offset. When the service detected it (usually in the full sweep): a practice gone from both sources leaves no row to stamp. */
  occurred_at: string;
  entity: {
    type: "practice";
    /** Identifier of the entity. */
    id: string;
  };
  links: {
    /** Where the entity's current state is fetched (with a token). */
    self: string;
  };
};

export type PracticeUpdatedEvent = {
  /** Unique per event; also X-SVC-Event-Id. Deduplicate on it. */
  event_uuid: string;
  event_type: "practice.updated";
  /** Payload version. */
  event_version: 1;
  /** ISO 8601 with offset. When the primary system stamped the change: the latest modification time among the practice's rows (its practice rows and its CRM record), when the change was found through it; otherwise when the service detected the change: a change that left the modification time alone (found by the full sweep, within about 15 minutes), a modification time ahead of the service's clock, from before the service last saw the record, or inside the repeated autumn hour (a TDM link, for one), or `active` changing on a period date. */
  occurred_at: string;
  entity: {
    type: "practice";
    /** Identifier of the entity. */
    id: string;
  };
  links: {
    /** Where the entity's current state is fetched (with a token). */
    self: string;
  };
};

export type RecruitmentCaseCreatedEvent = {
  /** Unique per event; also X-SVC-Event-Id. Deduplicate on it. */
  event_uuid: string;
  event_type: "recruitment_case.created";
  /** Payload version. */
  event_version: 1;
  /** ISO 8601 with offset. When the service recorded the case: the recruitment case's `created_at`, in the same transaction as the event (the event exists only if that commits). */
  occurred_at: string;
  entity: {
    type: "recruitment_case";
    /** Identifier of the entity. */
    id: string;
  };
  links: {
    /** Where the entity's current state is fetched (with a token). */
    self: string;
  };
};

export type SystemPingEvent = {
  /** Unique per event; also X-SVC-Event-Id. Deduplicate on it. */
  event_uuid: string;
  event_type: "system.ping";
  /** Payload version. */
  event_version: 1;
  /** ISO 8601 with offset. When the test delivery was asked for. */
  occurred_at: string;
  entity: {
    type: "system";
    /** Identifier of the entity. */
    id: string;
  };
  links: {
    /** Where the entity's current state is fetched (with a token). */
    self: string;
  };
};

export type VacancyCreatedEvent = {
  /** Unique per event; also X-SVC-Event-Id. Deduplicate on it. */
  event_uuid: string;
  event_type: "vacancy.created";
  /** Payload version. */
  event_version: 1;
  /** ISO 8601 with offset. When the primary system stamped the vacancy: its modification time (the vacancy's `updated_at`), when the change was found through it; otherwise when the service detected the change: a change that left the modification time alone (found by the full sweep, within about 15 minutes), a modification time ahead of the service's clock, from before the service last saw the record, or inside the repeated autumn hour, or a vacancy without one. */
  occurred_at: string;
  entity: {
    type: "vacancy";
    /** Identifier of the entity. */
    id: string;
  };
  links: {
    /** Where the entity's current state is fetched (with a token). */
    self: string;
  };
};

export type VacancyDeletedEvent = {
  /** Unique per event; also X-SVC-Event-Id. Deduplicate on it. */
  event_uuid: string;
  event_type: "vacancy.deleted";
  /** Payload version. */
  event_version: 1;
  /** ISO 8601 with offset. A soft delete that moved the vacancy's modification time: that time. A hard delete, or a soft delete that left the time alone: when the service detected it (usually in the full sweep). */
  occurred_at: string;
  entity: {
    type: "vacancy";
    /** Identifier of the entity. */
    id: string;
  };
  links: {
    /** Where the entity's current state is fetched (with a token). */
    self: string;
  };
};

export type VacancyUpdatedEvent = {
  /** Unique per event; also X-SVC-Event-Id. Deduplicate on it. */
  event_uuid: string;
  event_type: "vacancy.updated";
  /** Payload version. */
  event_version: 1;
  /** ISO 8601 with offset. When the primary system stamped the change: the vacancy's modification time (its `updated_at`), when the change was found through it; otherwise when the service detected the change: a change that left the modification time alone (found by the full sweep, within about 15 minutes), a modification time ahead of the service's clock, from before the service last saw the record, or inside the repeated autumn hour, or `published` turning true on the display date. */
  occurred_at: string;
  entity: {
    type: "vacancy";
    /** Identifier of the entity. */
    id: string;
  };
  links: {
    /** Where the entity's current state is fetched (with a token). */
    self: string;
  };
};

/** Any event a delivery can carry. */
export type WebhookEvent =
  | ApplicationCreatedEvent
  | ApplicationSubmittedEvent
  | CandidateCreatedEvent
  | PracticeCreatedEvent
  | PracticeDeletedEvent
  | PracticeUpdatedEvent
  | RecruitmentCaseCreatedEvent
  | SystemPingEvent
  | VacancyCreatedEvent
  | VacancyDeletedEvent
  | VacancyUpdatedEvent;

/** Every event type of the contract. */
export const EVENT_TYPES = [
  "application.created",
  "application.submitted",
  "candidate.created",
  "practice.created",
  "practice.deleted",
  "practice.updated",
  "recruitment_case.created",
  "system.ping",
  "vacancy.created",
  "vacancy.deleted",
  "vacancy.updated",
] as const;
export type EventType = WebhookEvent["event_type"];
