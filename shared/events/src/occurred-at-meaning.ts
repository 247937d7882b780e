import { EVENT_CATALOGUE, EVENT_TYPES, type EntityType, type EventType } from "./catalogue.ts";

/**
 * What `occurred_at` means, per event type: one text for the metadata endpoints, the OpenAPI
 * document and the subscriber guide. The rule behind it: docs/decisions/event-occurred-at.md.
 */
const DETECTED =
  "otherwise when the service detected the change: a change that left the modification time alone (found by the full sweep, within about 15 minutes), a modification time ahead of the service's clock, from before the service last saw the record, or inside the repeated autumn hour";

const RECORDED = (what: string) =>
  `When the service recorded ${what}, in the same transaction as the event (the event exists only if that commits).`;

export const OCCURRED_AT: Readonly<Record<EventType, string>> = {
  "vacancy.created": `When the primary system stamped the vacancy: its modification time (the vacancy's \`updated_at\`), when the change was found through it; ${DETECTED}, or a vacancy without one.`,
  "vacancy.updated": `When the primary system stamped the change: the vacancy's modification time (its \`updated_at\`), when the change was found through it; ${DETECTED}, or \`published\` turning true on the display date.`,
  "vacancy.deleted":
    "A soft delete that moved the vacancy's modification time: that time. A hard delete, or a soft delete that left the time alone: when the service detected it (usually in the full sweep).",
  "practice.created": `When the primary system stamped the practice: the latest modification time among its rows (its practice rows and its CRM record), when the change was found through it; ${DETECTED}.`,
  "practice.updated": `When the primary system stamped the change: the latest modification time among the practice's rows (its practice rows and its CRM record), when the change was found through it; ${DETECTED} (a TDM link, for one), or \`active\` changing on a period date.`,
  "practice.deleted":
    "When the service detected it (usually in the full sweep): a practice gone from both sources leaves no row to stamp.",
  "candidate.created": RECORDED("the new candidate: the candidate's `created_at`"),
  "recruitment_case.created": RECORDED("the case: the recruitment case's `created_at`"),
  "application.created": RECORDED("the application: the application's `created_at`"),
  "application.submitted": RECORDED("the submission: its `submitted_at`"),
  "system.ping": "When the test delivery was asked for.",
};

/** The meanings of one entity type's events, keyed by event type (for its metadata resource). */
export function occurredAtFor(entity: EntityType): Record<string, string> {
  return Object.fromEntries(
    EVENT_TYPES.filter((t) => EVENT_CATALOGUE[t] === entity).map((t) => [t, OCCURRED_AT[t]]),
  );
}
