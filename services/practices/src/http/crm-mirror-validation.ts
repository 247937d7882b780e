/**
 * Strict validation of CRM mirror requests (zod): every field is required (null when the CRM has
 * no value), unknown fields are refused, and a 422 names EVERY bad field, with the record index
 * for bulk requests (`accounts[3].address.city`).
 */
import { z } from "zod";
import { ValidationError, type FieldIssue } from "@svc/errors";
import { calendarDateProblem, identifierText, storableText, utcMillis } from "@svc/http";
import type { AccountWrite, CrmAccount } from "../domain/crm-mirror/account.ts";

export const MAX_BULK_ACCOUNTS = 1_000;
/** How far a CRM clock may run ahead of ours: a later modified_on would beat every future write. */
export const MAX_FUTURE_SKEW_MS = 60 * 60 * 1000;
const MAX_ID_LENGTH = 64;

const required = (what: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? "is required (null when unknown)" : `must be ${what}`;

/** Free text as the CRM holds it; limits match the CRM record's columns in the primary database. */
const text = (max: number) =>
  storableText(
    z
      .string({ error: required("a string or null") })
      .max(max, { error: `must be at most ${max} characters` }),
  ).nullable();

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

const calendarDate = z
  .string({ error: required("a YYYY-MM-DD date or null") })
  .regex(DATE, { error: "must be a YYYY-MM-DD date" })
  .superRefine((value, ctx) => {
    const [, y, m, d] = DATE.exec(value) ?? [];
    const problem = y && calendarDateProblem(Number(y), Number(m), Number(d));
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  .nullable();

/**
 * Neither starts nor ends with white space: ECMA-262's `\s` is exactly what `String#trim` removes,
 * so the document's `pattern` states the rule as the server applies it. The legacy CRM id column
 * ignores trailing spaces in comparisons: such an id could not be told apart.
 */
const TRIMMED = /^(?:\S(?:[\s\S]*\S)?)?$/u;

export const crmIdSchema = identifierText(
  z
    .string({ error: required("a string") })
    .min(1, { error: "must not be empty" })
    .max(MAX_ID_LENGTH, { error: `must be at most ${MAX_ID_LENGTH} characters` }),
).regex(TRIMMED, { error: "must not start or end with whitespace" });

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):([0-5]\d):([0-5]\d)(?:\.(\d{1,9}))?(Z|([+-])([01]\d|2[0-3]):([0-5]\d))$/;

/** ISO 8601 date-time with offset → microseconds since the epoch, or a reason it is not one. */
export function parseModifiedOn(value: string, nowMs: number): number | string {
  const m = DATE_TIME.exec(value);
  if (!m)
    return "must be an ISO 8601 date-time with seconds and an offset, e.g. 2025-06-15T10:12:00Z";
  const [, y, mo, d, h, mi, s, frac = "", zone, sign, oh = "0", om = "0"] = m;
  const dateProblem = calendarDateProblem(Number(y), Number(mo), Number(d));
  if (dateProblem) return dateProblem;
  const offsetMs =
    zone === "Z" ? 0 : (sign === "-" ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60_000;
  const ms =
    utcMillis(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s)) - offsetMs;
  if (ms < 0) return "must not lie before 1970";
  if (ms > nowMs + MAX_FUTURE_SKEW_MS) return "must not lie more than an hour in the future";
  // PostgreSQL keeps microseconds; finer digits are dropped so both sides compare the same value.
  return ms * 1000 + Number(frac.padEnd(6, "0").slice(0, 6));
}

const modifiedOn = (nowMs: number) =>
  z
    .string({ error: required("an ISO 8601 date-time with offset") })
    .transform((value, ctx) => {
      const parsed = parseModifiedOn(value, nowMs);
      if (typeof parsed === "string") {
        ctx.addIssue({ code: "custom", message: parsed });
        return z.NEVER;
      }
      return parsed;
    })
    .meta({
      type: "string",
      format: "date-time",
      description:
        "The CRM's modification time: ISO 8601 with seconds and an offset, from 1970 up to one hour ahead of the service's clock.",
    });

const group = <S extends z.ZodRawShape>(shape: S) =>
  z.strictObject(shape, { error: required("an object") });

const accountShape = (nowMs: number) => ({
  name: text(255),
  alias: text(255),
  organisation_type: text(100),
  language: text(10),
  identifiers: group({ vat: text(30) }),
  address: group({
    street: text(255),
    postal_code: text(12),
    city: text(100),
    province: text(100),
    country: text(60),
  }),
  contact: group({ email: text(255), phone: text(40) }),
  period: group({ start_date: calendarDate, stop_date: calendarDate }),
  modified_on: modifiedOn(nowMs),
});

/**
 * The PUT and bulk bodies (also what the OpenAPI document describes; the clock only bounds
 * modified_on).
 */
export const putBody = (nowMs: number) =>
  z.strictObject(
    { crm_id: crmIdSchema.optional(), ...accountShape(nowMs) },
    { error: "must be a JSON object" },
  );
const bulkItem = (nowMs: number) =>
  z.strictObject(
    { crm_id: crmIdSchema, ...accountShape(nowMs) },
    { error: "must be a JSON object" },
  );
export const bulkBody = (nowMs: number) =>
  z.strictObject(
    {
      accounts: z
        .array(bulkItem(nowMs), { error: required("an array of accounts") })
        .min(1, { error: "must hold at least one account" })
        // The upper bound is checked before the records (parseBulk); stated here for the document.
        .meta({ maxItems: MAX_BULK_ACCOUNTS }),
    },
    { error: "must be a JSON object" },
  );

function fieldName(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>(
    (out, key) =>
      typeof key === "number" ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key),
    "",
  );
}

function issuesOf(error: z.ZodError): FieldIssue[] {
  return error.issues.flatMap((issue) => {
    if (issue.code === "unrecognized_keys")
      return issue.keys.map((key) => ({
        field: fieldName([...issue.path, key]),
        message: "is not a known field",
      }));
    return [{ field: fieldName(issue.path) || "(body)", message: issue.message }];
  });
}

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (!result.success) throw new ValidationError(issuesOf(result.error));
  return result.data;
}

type ParsedAccount = z.output<z.ZodObject<ReturnType<typeof accountShape>>>;

function toWrite(crmId: string, parsed: ParsedAccount): AccountWrite {
  const { modified_on: modifiedOnUs, ...fields } = parsed;
  const account: CrmAccount = fields;
  return { crmId, modifiedOnUs, account };
}

/** A path's crm_id, or 422 naming it. */
export function parseCrmId(pathId: unknown): string {
  const id = crmIdSchema.safeParse(pathId);
  if (!id.success)
    throw new ValidationError(issuesOf(id.error).map((i) => ({ ...i, field: "crm_id" })));
  return id.data;
}

/** PUT /v1/crm-mirror/accounts/{crm_id}: the path names the account; a body crm_id must agree. */
export function parsePut(pathId: unknown, body: unknown, nowMs: number): AccountWrite {
  const id = crmIdSchema.safeParse(pathId);
  if (!id.success)
    throw new ValidationError(issuesOf(id.error).map((i) => ({ ...i, field: "crm_id" })));
  const { crm_id: bodyId, ...parsed } = parse(putBody(nowMs), body);
  if (bodyId !== undefined && bodyId !== id.data)
    throw new ValidationError([
      { field: "crm_id", message: "in the body differs from the crm_id in the path" },
    ]);
  return toWrite(id.data, parsed);
}

export const DELETE_VERSION_HEADER = "CRM-Modified-On";

/** DELETE /v1/crm-mirror/accounts/{crm_id}: the delete's CRM modification time is a header. */
export function parseDelete(
  pathId: unknown,
  header: string | undefined,
  nowMs: number,
): AccountWrite {
  const issues: FieldIssue[] = [];
  const id = crmIdSchema.safeParse(pathId);
  if (!id.success) issues.push(...issuesOf(id.error).map((i) => ({ ...i, field: "crm_id" })));
  const version =
    header === undefined
      ? "header is required: the CRM's modified-on time of the delete"
      : parseModifiedOn(header.trim(), nowMs);
  if (typeof version === "string") issues.push({ field: DELETE_VERSION_HEADER, message: version });
  if (!id.success || typeof version === "string") throw new ValidationError(issues);
  return { crmId: id.data, modifiedOnUs: version, account: null };
}

/** POST /v1/crm-mirror/accounts:bulk: 1 to 1,000 accounts; one bad record rejects them all. */
export function parseBulk(body: unknown, nowMs: number): AccountWrite[] {
  const accounts = (body as { accounts?: unknown } | null)?.accounts;
  // Checked before the records, so an oversized request costs no per-record validation.
  if (Array.isArray(accounts) && accounts.length > MAX_BULK_ACCOUNTS) {
    throw new ValidationError([
      {
        field: "accounts",
        message: `must hold at most ${MAX_BULK_ACCOUNTS} accounts (got ${accounts.length}); split the request`,
      },
    ]);
  }
  return parse(bulkBody(nowMs), body).accounts.map(({ crm_id: crmId, ...parsed }) =>
    toWrite(crmId, parsed),
  );
}
