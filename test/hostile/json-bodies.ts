/**
 * JSON request bodies that a service must reject: a valid base per endpoint with at least one
 * breaking mutation applied last (so noise cannot repair it), plus malformed text, deep nesting
 * and bodies beyond the size limit. Objects are ordered entry lists, so `__proto__` and
 * `constructor` keys are sent as real JSON members.
 */
import fc from "fast-check";
import { hostileText, INJECTIONS, longText } from "./strings.ts";

export type J = null | boolean | number | string | { raw: string } | J[] | JObject;
export interface JObject {
  entries: Array<[string, J]>;
}

export const obj = (record: Record<string, J>): JObject => ({ entries: Object.entries(record) });
export const isObject = (v: J): v is JObject =>
  typeof v === "object" && v !== null && !Array.isArray(v) && "entries" in v;

export function serialize(value: J): string {
  if (Array.isArray(value)) return `[${value.map(serialize).join(",")}]`;
  if (isObject(value))
    return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${serialize(v)}`).join(",")}}`;
  if (typeof value === "object" && value !== null) return value.raw;
  return JSON.stringify(value) ?? "null";
}

function clone(value: J): J {
  if (Array.isArray(value)) return value.map(clone);
  if (isObject(value)) return { entries: value.entries.map(([k, v]) => [k, clone(v)]) };
  return value;
}

/** The object at a dotted path (created when missing, replacing a non-object). */
function objectAt(root: JObject, path: string[]): JObject {
  let at = root;
  for (const key of path) {
    const entry = at.entries.find(([k]) => k === key);
    if (entry && isObject(entry[1])) at = entry[1];
    else {
      const fresh: JObject = { entries: [] };
      if (entry) entry[1] = fresh;
      else at.entries.push([key, fresh]);
      at = fresh;
    }
  }
  return at;
}

export type Mutation =
  | { op: "set"; path: string[]; value: J }
  | { op: "delete"; path: string[] }
  | { op: "replace"; value: J };

export function mutate(base: J, mutations: ReadonlyArray<Mutation>): J {
  let root = clone(base);
  for (const m of mutations) {
    if (m.op === "replace") {
      root = clone(m.value);
      continue;
    }
    if (!isObject(root)) root = { entries: [] };
    const parent = objectAt(root, m.path.slice(0, -1));
    const key = m.path[m.path.length - 1] ?? "";
    parent.entries = parent.entries.filter(([k]) => k !== key);
    if (m.op === "set") parent.entries.push([key, m.value]);
  }
  return root;
}

/** Any JSON value, including the odd numbers JSON allows and unicode strings. */
export const anyJson: fc.Arbitrary<J> = fc.letrec<{ value: J }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })),
    fc.constantFrom<J>(
      { raw: "1e400" },
      { raw: "-0" },
      { raw: "123456789012345678901234567890" },
      { raw: "0.1e-999" },
      { raw: "-1E+308" },
    ),
    hostileText,
    fc.array(tie("value"), { maxLength: 4 }),
    fc
      .array(
        fc.tuple(
          fc.oneof(
            fc.string({ maxLength: 8 }),
            fc.constantFrom("__proto__", "constructor", "prototype"),
          ),
          tie("value"),
        ),
        { maxLength: 4 },
      )
      .map((entries) => ({ entries })),
  ),
})).value;

/** A value of the wrong kind for a field expecting `expected`. */
export const wrongType = (expected: "string" | "boolean" | "object" | "array") =>
  fc.oneof(
    ...(expected !== "string" ? [fc.oneof(hostileText, fc.constant("true"))] : []),
    ...(expected !== "boolean"
      ? [fc.boolean()]
      : [fc.constantFrom<J>("true", 1, 0, "false", "yes")]),
    fc.constantFrom<J>(0, -1, 1.5, { raw: "1e400" }),
    ...(expected !== "object" ? [fc.constant<J>({ entries: [] })] : []),
    ...(expected !== "array" ? [fc.constant<J>([])] : []),
    fc.constant<J>([null]),
  );

/** A key no endpoint knows, including prototype-pollution names. */
export const unknownKey = fc.oneof(
  fc.constantFrom(
    "__proto__",
    "constructor",
    "prototype",
    "isAdmin",
    "id",
    "owner",
    "client_id",
    "created_at",
    "$where",
    "",
    " ",
    "vacancy_uuid ",
    "Consent",
    "url\u0000",
  ),
  fc.string({ unit: "binary", minLength: 1, maxLength: 10 }),
);

export const protoPayload: fc.Arbitrary<J> = fc.constantFrom<J>(
  obj({ polluted: true, isAdmin: true }),
  obj({ prototype: obj({ polluted: true }) }),
  obj({ toString: "x", valueOf: 1 }),
);

/**
 * Noise: valid-looking changes that do not make a body valid again (they never touch the field a
 * breaking mutation breaks last).
 */
export function breakingBody(
  base: J,
  breaking: fc.Arbitrary<Mutation>,
  noise: fc.Arbitrary<Mutation>,
): fc.Arbitrary<J> {
  return fc
    .tuple(fc.array(noise, { maxLength: 2 }), fc.array(breaking, { minLength: 1, maxLength: 3 }))
    .map(([n, b]) => mutate(base, [...n, ...b]));
}

/** Body texts that are not JSON at all, or not quite. */
export const malformedJson = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "{",
    "}",
    "[",
    '{"a":}',
    '{"a" 1}',
    "{'a':1}",
    "{a:1}",
    '{"a":1,}',
    "[1,]",
    '{"a":1}}',
    '{"a":1}{"b":2}',
    "nul",
    "tru",
    "NaN",
    "Infinity",
    "undefined",
    '"unterminated',
    '{"a":"\\x41"}',
    '{"a":"\\u12"}',
    '{"a":"\\ud800"}',
    '{"a":01}',
    '{"a":.5}',
    '{"a":+1}',
    '{"a":0x10}',
    "\ufeff{}",
    '{"a":"\u0000"}',
    "// comment\n{}",
    '{"a":1 /* c */}',
    "\u0000",
    '<?xml version="1.0"?><a/>',
    "a=1&b=2",
    '{"__proto__":{"polluted":true}}',
    "[]",
    "null",
    "0",
    '"text"',
    "true",
  ),
  fc.string({ unit: "binary", maxLength: 60 }),
  fc.tuple(anyJson, fc.integer({ min: 0, max: 40 })).map(([v, cut]) => {
    const text = serialize(v);
    return text.length > 1 ? text.slice(0, Math.max(1, text.length - 1 - cut)) : `${text}{`;
  }),
);

export type BodySpec =
  | { kind: "json"; value: J }
  | { kind: "text"; text: string }
  /** Invalid UTF-8 (or other encodings) inside an otherwise JSON-looking body. */
  | { kind: "bytes"; hex: string }
  | { kind: "nested"; depth: number; open: "[" | '{"a":' }
  | { kind: "huge"; bytes: number; json: boolean };

export function renderBody(body: BodySpec): Buffer {
  switch (body.kind) {
    case "json":
      return Buffer.from(serialize(body.value), "utf8");
    case "text":
      return Buffer.from(body.text, "utf8");
    case "bytes":
      return Buffer.from(body.hex, "hex");
    case "nested": {
      const close = body.open === "[" ? "]" : "}";
      return Buffer.from(`${body.open.repeat(body.depth)}1${close.repeat(body.depth)}`, "utf8");
    }
    case "huge": {
      if (!body.json) return Buffer.alloc(body.bytes, 0x61);
      const filler = Math.max(0, body.bytes - 12);
      return Buffer.from(`{"a":"${"x".repeat(filler)}"}`, "utf8");
    }
  }
}

export function describeBody(body: BodySpec): string {
  switch (body.kind) {
    case "json": {
      const text = serialize(body.value);
      return text.length > 600 ? `${text.slice(0, 600)}… (${text.length} chars)` : text;
    }
    case "text":
      return `text ${JSON.stringify(body.text.length > 300 ? `${body.text.slice(0, 300)}…` : body.text)}`;
    case "bytes":
      return `bytes 0x${body.hex.slice(0, 200)}`;
    case "nested":
      return `${body.depth} levels of ${body.open}`;
    case "huge":
      return `${body.bytes} bytes${body.json ? " of JSON" : ""}`;
  }
}

/**
 * Mostly a depth whose body still fits the limit (so it is parsed), sometimes one beyond it; up to
 * 100,000 levels.
 */
function nestedDepth(limitBytes: number, open: string): fc.Arbitrary<number> {
  const fits = Math.min(100_000, Math.floor((limitBytes - 1) / (open.length + 1)));
  return fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: Math.min(1_000, fits), max: fits }) },
    { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 100_000 }) },
  );
}

/**
 * Bodies that are never valid whatever the endpoint: broken text, invalid UTF-8, deep nesting,
 * beyond the limit.
 */
export function structurallyBadBody(limitBytes: number): fc.Arbitrary<BodySpec> {
  return fc.oneof(
    { weight: 4, arbitrary: malformedJson.map((text): BodySpec => ({ kind: "text", text })) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<BodySpec>(
        { kind: "bytes", hex: "7b2261223a22ff227d" },
        { kind: "bytes", hex: "7b2261223a22c0ae227d" },
        { kind: "bytes", hex: "fffe7b007d00" },
        { kind: "bytes", hex: "7b2261223a22eda080227d" },
      ),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom<"[" | '{"a":'>("[", '{"a":')
        .chain((open) =>
          nestedDepth(limitBytes, open).map((depth): BodySpec => ({ kind: "nested", depth, open })),
        ),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.integer({ min: limitBytes + 1, max: Math.min(limitBytes * 4, 6 * 1024 * 1024) }),
          fc.boolean(),
        )
        .map(([bytes, json]): BodySpec => ({ kind: "huge", bytes, json })),
    },
  );
}

export { hostileText, INJECTIONS, longText };
