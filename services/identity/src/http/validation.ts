import type { z } from "zod";
import { ValidationError, type FieldIssue } from "@svc/errors";

/** Any RFC 4122-shaped UUID (the primary system's vacancy uuids and our own v4 ids). */
export const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A zod `error` option: "is required" for a missing field, "must be …" for a wrong type. */
export const expected =
  (what: string) =>
  (issue: { input?: unknown }): string =>
    issue.input === undefined ? "is required" : `must be ${what}`;

/** Zod issues as the envelope's `details`, one per bad field (unknown fields each named). */
export function fieldIssuesOf(error: z.ZodError, root = "body"): FieldIssue[] {
  return error.issues.flatMap((issue) => {
    const path = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({
        field: path ? `${path}.${key}` : key,
        message: "is not a known field",
      }));
    }
    return [{ field: path || root, message: issue.message }];
  });
}

/** Validates a path parameter that must be a UUID; 422 naming it otherwise (not a 404). */
export function uuidParam(value: string | string[] | undefined, name: string): string {
  if (typeof value !== "string" || !UUID_SHAPE.test(value))
    throw new ValidationError([{ field: name, message: "must be a UUID" }]);
  return value.toLowerCase();
}
