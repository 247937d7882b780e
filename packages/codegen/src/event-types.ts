/**
 * The webhooks package's generated module: one type per event payload schema of the document
 * (`Event_vacancy_updated` → `VacancyUpdatedEvent`) and their union, `WebhookEvent`.
 */
import { HEADER, type OpenApiDocument } from "./client-types.ts";
import { typeDeclaration } from "./schema-to-ts.ts";

function typeName(schemaName: string): string {
  const words = schemaName.replace(/^Event_/, "").split("_");
  return `${words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join("")}Event`;
}

/** The whole generated module for @integration-service/webhooks. */
export function eventTypes(doc: OpenApiDocument): string {
  const events = Object.entries(doc.components.schemas)
    .filter(([name]) => name.startsWith("Event_"))
    .map(([name, schema]) => ({ name: typeName(name), schema }));
  if (events.length === 0) throw new Error("the document has no Event_* schemas");
  const types = events.map((e) => String(e.schema.properties?.event_type?.const));
  return [
    HEADER,
    ...events.map((e) => typeDeclaration(e.name, e.schema)),
    `/** Any event a delivery can carry. */`,
    `export type WebhookEvent =\n${events.map((e) => `  | ${e.name}`).join("\n")};\n`,
    `/** Every event type of the contract. */`,
    `export const EVENT_TYPES = ${JSON.stringify(types)} as const;`,
    `export type EventType = WebhookEvent["event_type"];`,
    "",
  ].join("\n");
}
