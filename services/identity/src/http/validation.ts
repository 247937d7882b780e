import type { z } from "zod";
import type { FieldIssue } from "@svc/errors";
import { UUID_PATTERN } from "@svc/http";

/** Any RFC 4122-shaped UUID in either case (the rule of `uuidParam` in @svc/http). */
export const UUID_SHAPE = new RegExp(UUID_PATTERN);

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
