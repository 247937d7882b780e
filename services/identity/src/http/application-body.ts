import { z } from "zod";
import { ValidationError } from "@svc/errors";
import { IDENTIFIER_TEXT, identifierText, STORABLE_TEXT, storableText } from "@svc/http";
import type { ApplicationRequest } from "../domain/create-application.ts";
import { normalisePhone } from "../domain/identifiers/normalise-phone.ts";
import { expected, fieldIssuesOf, UUID_SHAPE } from "./validation.ts";

const notBlank = (v: string) => v.trim().length > 0;
/**
 * The document's one pattern for a text that is not blank and follows `rule` (a second `pattern`
 * would replace the rule's).
 */
const notBlankAnd = (rule: RegExp) => ({ pattern: `^(?=[\\s\\S]*\\S)${rule.source.slice(1)}` });

const identifier = (max: number) =>
  storableText(
    z
      .string({ error: expected("a string or null") })
      .max(max, { message: `must be at most ${max} characters` }),
  )
    .refine(notBlank, { message: "must not be blank; send null or leave it out" })
    .meta(notBlankAnd(STORABLE_TEXT))
    .nullable()
    .optional();

const candidate = z
  .strictObject({ email: identifier(320), phone: identifier(64) }, { error: expected("an object") })
  .refine((c) => (c.email ?? null) !== null || (c.phone ?? null) !== null, {
    message: "needs an email or a phone (at least one)",
  })
  // The same rule for the document.
  .meta({
    anyOf: ["email", "phone"].map((key) => ({
      required: [key],
      properties: { [key]: { type: "string" } },
    })),
  });

const EMAIL_INSIDE = /[^\s@]+@[^\s@]+\.[^\s@]+/u;

/**
 * The entrypoint is stored as received, so it must not smuggle in what this service never stores.
 */
function carriesPersonalData(entrypoint: string, phone: string | null | undefined): boolean {
  if (EMAIL_INSIDE.test(entrypoint)) return true;
  const normalised = phone ? normalisePhone(phone) : null;
  return normalised !== null && entrypoint.replace(/\D/g, "").includes(normalised.slice(-8));
}

/**
 * The POST /v1/applications body (the service README describes it). Strict: unknown fields, wrong
 * types and missing required fields are 422, each field named. Identifier *content* is not judged
 * here: an address or number that does not normalise is simply unusable for resolution.
 */
export const applicationBody = z
  .strictObject(
    {
      vacancy_uuid: z
        .string({ error: expected("a string") })
        .regex(UUID_SHAPE, { message: "must be a UUID" }),
      practice_id: identifierText(
        z
          .string({ error: expected("a string or null") })
          .max(100, { message: "must be at most 100 characters" }),
      )
        .refine(notBlank, { message: "must not be blank; send null or leave it out" })
        .meta(notBlankAnd(IDENTIFIER_TEXT))
        .nullable()
        .optional(),
      candidate,
      consent: z.boolean({ error: expected("true or false") }),
      entrypoint: storableText(
        z
          .string({ error: expected("a string or null") })
          .max(200, { message: "must be at most 200 characters" }),
      )
        .nullable()
        .optional(),
    },
    { error: expected("a JSON object") },
  )
  .superRefine((body, ctx) => {
    if (body.entrypoint && carriesPersonalData(body.entrypoint, body.candidate.phone)) {
      ctx.addIssue({
        code: "custom",
        path: ["entrypoint"],
        message: "must not contain personal data such as an e-mail address or phone number",
      });
    }
  });

export function parseApplicationBody(body: unknown): ApplicationRequest {
  const result = applicationBody.safeParse(body);
  if (!result.success) throw new ValidationError(fieldIssuesOf(result.error));
  const b = result.data;
  return {
    vacancyUuid: b.vacancy_uuid.toLowerCase(),
    practiceId: b.practice_id ?? null,
    email: b.candidate.email ?? null,
    phone: b.candidate.phone ?? null,
    consent: b.consent,
    entrypoint: b.entrypoint ?? null,
  };
}
