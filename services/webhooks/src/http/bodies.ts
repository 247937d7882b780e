import { z } from "zod";
import { ValidationError, type FieldIssue } from "@svc/errors";
import { MAX_URL_LENGTH } from "../outbound/url-guard.ts";

const url = z
  .string({ message: "must be a string" })
  .min(1, { message: "must not be empty" })
  .max(MAX_URL_LENGTH, { message: `must be at most ${MAX_URL_LENGTH} characters` });
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
