/** The event catalogue: event type → entity type. */
export const EVENT_CATALOGUE = {
  "vacancy.created": "vacancy",
  "vacancy.updated": "vacancy",
  "vacancy.deleted": "vacancy",
  "practice.created": "practice",
  "practice.updated": "practice",
  "practice.deleted": "practice",
  "candidate.created": "candidate",
  "application.created": "application",
  "application.submitted": "application",
  "recruitment_case.created": "recruitment_case",
  "system.ping": "system",
} as const;

export type EventType = keyof typeof EVENT_CATALOGUE;
export type EntityType = (typeof EVENT_CATALOGUE)[EventType];

export const EVENT_TYPES = Object.keys(EVENT_CATALOGUE) as EventType[];

/** The sandbox catalogue omits `application.submitted` (the sandbox has no submissions). */
export function eventTypesFor(environment: "production" | "sandbox"): ReadonlyArray<EventType> {
  return environment === "sandbox"
    ? EVENT_TYPES.filter((t) => t !== "application.submitted")
    : EVENT_TYPES;
}

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(EVENT_CATALOGUE, value);
}

/** Where the current state of an entity is read (`links.self`), relative to the public base URL. */
const SELF_PATHS: Record<EntityType, (id: string) => string> = {
  vacancy: (id) => `/v1/vacancies/${encodeURIComponent(id)}`,
  practice: (id) => `/v1/practices/${encodeURIComponent(id)}`,
  candidate: (id) => `/v1/candidates/${encodeURIComponent(id)}`,
  application: (id) => `/v1/applications/${encodeURIComponent(id)}`,
  recruitment_case: (id) => `/v1/recruitment-cases/${encodeURIComponent(id)}`,
  system: () => "/v1/health",
};

export function selfLink(publicBaseUrl: string, entity: EntityType, id: string): string {
  return `${publicBaseUrl.replace(/\/+$/, "")}${SELF_PATHS[entity](id)}`;
}
