/**
 * Generators for the write-operation properties: strings from every Unicode category (NUL and the
 * other C0 and C1 controls, unpaired surrogates, non-characters, format and private-use characters,
 * astral characters, very long), every date and date-time the patterns admit (years 0000 to 9999,
 * 29 February of any year, offsets up to ±23:59) and numbers at their limits.
 */
import fc from "fast-check";

const range = (from: number, to: number) =>
  fc.integer({ min: from, max: to }).map((cp) => String.fromCodePoint(cp));
const one = (...chars: string[]) => fc.constantFrom(...chars);

/** Characters PostgreSQL cannot store: NUL and unpaired surrogates. */
const unstorable = [
  one("\u0000"), // NUL
  range(0xd800, 0xdbff), // a high surrogate alone
  range(0xdc00, 0xdfff), // a low surrogate alone
];

/** Every other category (controls too: text fields store them, identifiers refuse them). */
const storable = [
  range(0x20, 0x7e), // printable ASCII
  range(0x01, 0x1f), // other C0 controls (tab, line feed, escape, ...)
  one("\u007f"), // DEL
  range(0x80, 0x9f), // C1 controls (NEL is U+0085)
  range(0xfdd0, 0xfdef), // non-characters
  fc
    .integer({ min: 0, max: 16 })
    .chain((plane) =>
      one(
        String.fromCodePoint(plane * 0x10000 + 0xfffe),
        String.fromCodePoint(plane * 0x10000 + 0xffff),
      ),
    ), // the two non-characters ending every plane
  one("\u00a0", "\u2000", "\u2028", "\u2029", "\u3000", "\u1680"), // spaces and separators
  one("\u200b", "\u200d", "\u200e", "\u202e", "\u2066", "\ufeff", "\u00ad"), // format characters
  range(0x0300, 0x036f), // combining marks
  range(0x00a1, 0x024f), // Latin-1 and Latin Extended letters
  range(0x0590, 0x06ff), // right-to-left scripts
  range(0x4e00, 0x4fff), // CJK
  range(0xe000, 0xf8ff), // private use
  range(0x1f300, 0x1faff), // astral symbols (surrogate pairs)
  range(0xe0000, 0xe007f), // tags
  range(0xf0000, 0x10ffff), // supplementary private use and the last code point
  one("\u0378", "\u05ff", "\u{30000}", "\u{2fffd}"), // unassigned
];

/** One UTF-16 character or pair, by Unicode category; each category is equally likely. */
export const character: fc.Arbitrary<string> = fc.oneof(...unstorable, ...storable);
/** The same without the unstorable categories, so that many strings are stored. */
const storableCharacter: fc.Arbitrary<string> = fc.oneof(...storable);

/** Lengths around a field's limit and far beyond it (UTF-16 units, as the limits count). */
const longLength = (limit: number) =>
  fc.constantFrom(limit - 1, limit, limit + 1, limit * 2, 70_000).filter((n) => n > 0);

/**
 * Any string: short mixes of every category, one character repeated to around `limit` and beyond,
 * and strings that are one hostile character inside ordinary text or at either edge.
 */
export function anyString(limit = 255): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 2, arbitrary: fc.array(character, { maxLength: 24 }).map((cs) => cs.join("")) },
    {
      weight: 3,
      arbitrary: fc.array(storableCharacter, { maxLength: 24 }).map((cs) => cs.join("")),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(character, longLength(limit))
        .map(([c, n]) => c.repeat(Math.max(1, Math.floor(n / c.length)))),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(character, fc.constantFrom("start", "middle", "end"))
        .map(([c, at]) => (at === "start" ? `${c}text` : at === "end" ? `text${c}` : `te${c}xt`)),
    },
  );
}

/** Numbers at their limits, for fields that take a number or do not. */
export const limitNumber: fc.Arbitrary<number> = fc.constantFrom(
  0,
  -0,
  1,
  -1,
  0.5,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  Number.MIN_SAFE_INTEGER,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Number.MIN_VALUE,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 63,
  1e21,
);

/** Any JSON value in a field's place: a string, a number at a limit, null, a boolean, a container. */
export function anyValue(limit = 255): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 6, arbitrary: anyString(limit) },
    { weight: 2, arbitrary: limitNumber },
    { weight: 1, arbitrary: fc.constantFrom(null, true, false, {}, [], [""]) },
  );
}

const pad = (n: number, width: number) => String(n).padStart(width, "0");

/** Years the patterns admit, with the edges and the leap-year rules' cases well represented. */
const year = fc.oneof(
  fc.constantFrom(0, 1, 99, 100, 400, 1582, 1900, 1969, 1970, 2000, 2023, 2024, 2100, 9999),
  fc.integer({ min: 0, max: 9999 }),
);
/** Month and day as the pattern admits them (two digits), mostly real ones, 29 February often. */
const monthDay = fc.oneof(
  fc.constant([2, 29] as const),
  fc.tuple(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 28, max: 31 })),
  fc.tuple(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 31 })),
  fc.tuple(fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 })),
);

/** `YYYY-MM-DD` for any year 0000-9999 and any two-digit month and day. */
export const patternDate: fc.Arbitrary<string> = fc
  .tuple(year, monthDay)
  .map(([y, [m, d]]) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`);

/** An offset the patterns admit: Z or ±00:00 to ±23:59, the limits often. */
const offset = fc.oneof(
  fc.constant("Z"),
  fc.constantFrom("+23:59", "-23:59", "+15:59", "-15:59", "+16:00", "-16:00", "+14:00", "-00:00"),
  fc
    .tuple(
      fc.constantFrom("+", "-"),
      fc.integer({ min: 0, max: 23 }),
      fc.integer({ min: 0, max: 59 }),
    )
    .map(([s, h, m]) => `${s}${pad(h, 2)}:${pad(m, 2)}`),
);

/**
 * `YYYY-MM-DDTHH:MM:SS[.f{1,9}]±HH:MM` over the same dates, any time of day and offset; `recent`
 * keeps most of them near `now` (fields bounded to a window around the present).
 */
export function patternDateTime(now: number): fc.Arbitrary<string> {
  const near = fc
    .integer({ min: -5 * 365 * 86_400, max: 2 * 3_600 })
    .map((s) => new Date(now + s * 1000).toISOString().slice(0, 10));
  const date = fc.oneof({ weight: 2, arbitrary: patternDate }, { weight: 3, arbitrary: near });
  const time = fc
    .tuple(
      fc.integer({ min: 0, max: 23 }),
      fc.integer({ min: 0, max: 59 }),
      fc.integer({ min: 0, max: 59 }),
    )
    .map(([h, m, s]) => `${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}`);
  const fraction = fc.option(fc.stringMatching(/^\.\d{1,9}$/), { nil: "" });
  return fc.tuple(date, time, fraction, offset).map(([d, t, f, o]) => `${d}T${t}${f}${o}`);
}

/**
 * Microseconds since the epoch of a pattern date-time (no calendar check: the caller stores only
 * what the service accepted), computed apart from the service's own parser.
 */
export function microsOf(dateTime: string): bigint {
  const m = /^(.{19})(?:\.(\d+))?(.*)$/.exec(dateTime);
  if (!m) throw new Error(`not a date-time: ${dateTime}`);
  const ms = Date.parse(`${m[1]}${m[3]}`);
  return BigInt(ms) * 1000n + BigInt((m[2] ?? "").padEnd(6, "0").slice(0, 6));
}

/** A field path (`a.b[2].c`) is `field` or inside it. */
export function within(path: string, field: string): boolean {
  return path === field || path.startsWith(`${field}.`) || path.startsWith(`${field}[`);
}

/**
 * Percent-encodes a path segment byte for byte; an unpaired surrogate as the three bytes a UTF-8
 * encoder without the well-formedness check would send (no valid UTF-8 carries it).
 */
export function encodeSegment(value: string): string {
  let out = "";
  for (const ch of value) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0xd800 && cp <= 0xdfff)
      out += [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join("");
    else out += encodeURIComponent(ch);
  }
  return out;
}
