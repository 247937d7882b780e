import { z } from "zod";
import { ValidationError } from "@svc/errors";

/**
 * The one rule for UUIDs in paths and queries (docs/decisions/uuid-case.md): the 8-4-4-4-12 hex
 * shape in either case is accepted and read in lower case, the form every answer writes;
 * anything else is 422 naming the parameter. The pattern is also what the OpenAPI document states.
 */
export const UUID_PATTERN =
  "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";
const UUID = new RegExp(UUID_PATTERN);
const MUST_BE = "must be a UUID";

/** The JSON Schema of a uuid parameter (the OpenAPI document's). */
export const UUID_PARAMETER_SCHEMA = Object.freeze({
  type: "string",
  format: "uuid",
  pattern: UUID_PATTERN,
});

/** The uuid in lower case, or null when the value is not one. */
export function normaliseUuid(value: unknown): string | null {
  return typeof value === "string" && UUID.test(value) ? value.toLowerCase() : null;
}

/** A path parameter that must be a uuid: its lower-case form, or 422 naming it (never a 404). */
export function uuidParam(value: unknown, name: string): string {
  const uuid = normaliseUuid(value);
  if (uuid === null) throw new ValidationError([{ field: name, message: MUST_BE }]);
  return uuid;
}

/** A query parameter (for `parseQuery` shapes, `q.uuid()`): read in lower case, else 422. */
export function uuidQuery() {
  return (
    z
      .string()
      .regex(UUID, { message: MUST_BE })
      .transform((v) => v.toLowerCase())
      // What the OpenAPI document says (z.toJSONSchema cannot see through the transform).
      .meta({ ...UUID_PARAMETER_SCHEMA })
  );
}
