import { z } from "zod";
import { ValidationError, type FieldIssue } from "@svc/errors";
import { uuidQuery } from "./uuid.ts";
import { calendarDateProblem, storableText } from "./fields.ts";

/**
 * Query-string validation (our reading where the contract is silent): unknown parameters, repeated
 * parameters, booleans other than true/false, non-integers, page < 1, per_page outside 1..100 and
 * impossible dates are all 422 VALIDATION_ERROR naming the parameter.
 */
export const DEFAULT_PER_PAGE = 25;
export const MAX_PER_PAGE = 100;

const INTEGER = /^(0|[1-9]\d{0,8})$/;

function intParam(min: number, max: number) {
  return (
    z
      .string()
      .regex(INTEGER, { message: "must be a whole number" })
      .transform(Number)
      .pipe(
        z
          .number()
          .min(min, { message: `must be at least ${min}` })
          .max(max, { message: `must be at most ${max}` }),
      )
      // What the OpenAPI document says (@svc/openapi; z.toJSONSchema cannot see through the
      // transform).
      .meta({ type: "integer" })
  );
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.\d{1,9})?)?(Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

/**
 * A calendar date (YYYY-MM-DD) or an instant; what a date means (which zone's midnight) is the
 * caller's rule.
 */
export type DateOrInstant = { kind: "date"; date: string } | { kind: "instant"; instant: Date };

export function parseDateOrDateTime(value: string): DateOrInstant | string {
  const date = DATE.exec(value);
  if (date) {
    return (
      calendarDateProblem(Number(date[1]), Number(date[2]), Number(date[3])) ?? {
        kind: "date",
        date: value,
      }
    );
  }
  const dt = DATE_TIME.exec(value);
  if (dt) {
    return (
      calendarDateProblem(Number(dt[1]), Number(dt[2]), Number(dt[3])) ?? {
        kind: "instant",
        instant: new Date(value),
      }
    );
  }
  if (/^\d{4}-\d{2}-\d{2}T[\d:.]+$/.test(value))
    return "date-time must carry an offset (Z or ±hh:mm)";
  return "must be an ISO 8601 date (YYYY-MM-DD) or date-time with offset";
}

export const q = {
  page: () => intParam(1, 1_000_000).default(1).meta({ description: "Page number, from 1." }),
  perPage: () =>
    intParam(1, MAX_PER_PAGE)
      .default(DEFAULT_PER_PAGE)
      .meta({ description: `Items per page, 1 to ${MAX_PER_PAGE}.` }),
  bool: () =>
    z
      .enum(["true", "false"], { message: "must be true or false" })
      .transform((v) => v === "true")
      .meta({ type: "boolean" }),
  oneOf: <const T extends readonly [string, ...string[]]>(values: T) =>
    z.enum(values, { message: `must be one of: ${values.join(", ")}` }),
  text: (max = 200) =>
    storableText(
      z
        .string()
        .min(1, { message: "must not be empty" })
        .max(max, { message: `must be at most ${max} characters` }),
    ),
  /**
   * Some of `values`, comma-separated without spaces (repeats collapse), read as an array: the
   * document's `style: form, explode: false` array of the enum (@svc/openapi).
   */
  list: <const T extends readonly [string, ...string[]]>(values: T) =>
    z
      .string()
      .transform((value, ctx) => {
        const items = [...new Set(value.split(","))];
        if (items.every((item) => values.includes(item))) return items as Array<T[number]>;
        ctx.addIssue({
          code: "custom",
          message:
            "must be one or more of the values the API reference lists for it, comma-separated without spaces",
        });
        return z.NEVER;
      })
      .meta({ type: "array", minItems: 1, items: { type: "string", enum: [...values] } }),
  /** A uuid in either case, read in lower case (./uuid.ts). */
  uuid: uuidQuery,
  dateOrDateTime: () =>
    z
      .string()
      .transform((value, ctx) => {
        const parsed = parseDateOrDateTime(value);
        if (typeof parsed === "string") {
          ctx.addIssue({ code: "custom", message: parsed });
          return z.NEVER;
        }
        return parsed;
      })
      .meta({
        anyOf: [
          { type: "string", format: "date" },
          { type: "string", format: "date-time" },
        ],
      }),
};

type QueryShape = Record<string, z.ZodType<unknown, string | undefined>>;

// Building a zod object costs far more than using it; shapes are usually module constants.
const compiled = new WeakMap<QueryShape, z.ZodObject>();

/** Validates req.query against a shape of named parameters; ValidationError names each bad one. */
export function parseQuery<S extends QueryShape>(
  shape: S,
  query: unknown,
): z.output<z.ZodObject<S>> {
  const raw = (query ?? {}) as Record<string, unknown>;
  const issues: FieldIssue[] = [];
  const single: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!(key in shape)) issues.push({ field: key, message: "is not a known parameter" });
    else if (typeof value !== "string")
      issues.push({ field: key, message: "must be given once, as a plain value" });
    else single[key] = value;
  }
  let schema = compiled.get(shape);
  if (!schema) {
    schema = z.object(shape);
    compiled.set(shape, schema);
  }
  const result = schema.safeParse(single);
  if (!result.success) {
    for (const issue of result.error.issues)
      issues.push({ field: issue.path.map(String).join("."), message: issue.message });
  }
  if (issues.length > 0 || !result.success) throw new ValidationError(issues);
  return result.data as z.output<z.ZodObject<S>>;
}
