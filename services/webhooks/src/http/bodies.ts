import { z } from "zod";
import { ValidationError, type FieldIssue } from "@svc/errors";
import { parseDateOrDateTime, storableText } from "@svc/http";
import { MAX_URL_LENGTH } from "../domain/url-policy.ts";

// Stored normalised by the URL parser, which would encode an unpaired surrogate as U+FFFD.
const url = storableText(
  z
    .string({ message: "must be a string" })
    .min(1, { message: "must not be empty" })
    .max(MAX_URL_LENGTH, { message: `must be at most ${MAX_URL_LENGTH} characters` })
    // What the URL policy (domain/url-policy.ts) refuses by syntax, for the document: https only,
    // no white space or control character. Names and addresses are checked by the service.
    .meta({ pattern: "^[hH][tT][tT][pP][sS]://[^\\u0000-\\u0020\\u007f-\\u009f]+$" }),
);
const eventTypes = z
  .array(z.string({ message: "must be a string" }), {
    message: "must be an array of event type strings",
  })
  .min(1, { message: "must name at least one event type" })
  .max(50, { message: "must name at most 50 event types" });

export const createBody = z.strictObject({ url, event_types: eventTypes });

export const patchBody = z
  .strictObject({
    url: url.optional(),
    event_types: eventTypes.optional(),
    enabled: z.boolean({ message: "must be true or false" }).optional(),
  })
  .refine((b) => b.url !== undefined || b.event_types !== undefined || b.enabled !== undefined, {
    message: "must change at least one of url, event_types, enabled",
  });

/** An RFC 3339 date-time with an offset (`Z` or ±hh:mm) that exists on the calendar. */
const instant = z
  .string({ message: "must be a date-time string" })
  .meta({ format: "date-time" })
  .transform((value, ctx) => {
    const parsed = parseDateOrDateTime(value);
    if (typeof parsed !== "string" && parsed.kind === "instant") return parsed.instant;
    ctx.addIssue({
      code: "custom",
      message:
        typeof parsed === "string" ? parsed : "must be a date-time with an offset, not a date",
    });
    return z.NEVER;
  });

/** Bulk recovery's window over the deliveries' creation time: since ≤ created_at < until. */
export const recoverBody = z.strictObject({
  since: instant.meta({
    description:
      "Start of the window (inclusive): at or after the time of the call minus the retention period, and before `until`.",
  }),
  until: instant.optional().meta({
    description: "End of the window (exclusive), later than `since`; default the time of the call.",
  }),
});

/** Validates a JSON body; every problem is named (unknown fields included) in one 422. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const issues: FieldIssue[] = result.error.issues.flatMap((issue) => {
    const path = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys")
      return issue.keys.map((k) => ({
        field: path ? `${path}.${k}` : k,
        message: "is not a known field",
      }));
    return [{ field: path || "body", message: issue.message }];
  });
  throw new ValidationError(issues);
}
