/**
 * Hostile text: unicode edge cases, traversal, injection-looking strings, very long values, and
 * their percent-encodings (well-formed and broken) for paths and query strings.
 */
import fc from "fast-check";

/**
 * Percent-encodes every byte outside unreserved ASCII; lone surrogates become their CESU-8 bytes
 * (invalid UTF-8).
 */
export function percentEncode(text: string): string {
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (/^[A-Za-z0-9\-._~]$/.test(ch)) out += ch;
    else if (code >= 0xd800 && code <= 0xdfff)
      out +=
        `%${(0xe0 | (code >> 12)).toString(16)}%${(0x80 | ((code >> 6) & 0x3f)).toString(16)}%${(0x80 | (code & 0x3f)).toString(16)}`.toUpperCase();
    else
      for (const byte of Buffer.from(ch, "utf8"))
        out += `%${byte.toString(16).padStart(2, "0").toUpperCase()}`;
  }
  return out;
}

/** Characters and sequences that break naive handling. */
export const SPECIAL = [
  "\u0000",
  "\u0001",
  "\u001f",
  "\u007f",
  "\u0085",
  "\u00a0",
  "\u2028",
  "\u2029",
  "\ufeff",
  "\ufffe",
  "\uffff",
  "\u202e",
  "\u202d",
  "\u200f",
  "\u200e",
  "\u2066",
  "\u200b",
  "\u200d",
  "\u034f",
  "\ud800",
  "\udfff",
  "\udbff\udfff",
  "é",
  "e\u0301",
  "Å",
  "A\u030a",
  "ﬁ",
  "ß",
  "İ",
  "ı",
  "ǅ",
  "😀",
  "👩‍👩‍👧‍👦",
  "🇧🇪",
  "\u{1f3fb}",
  "𝕏",
  "\u{10ffff}",
  "\u{e0041}",
  "שלום",
  "مرحبا",
  "日本語",
  "Ω",
  "\u0130",
  "'",
  '"',
  "`",
  "\\",
  "/",
  "%",
  "&",
  "=",
  "?",
  "#",
  ";",
  ",",
  "+",
  " ",
  "\t",
  "\r",
  "\n",
  "<",
  ">",
  "{",
  "}",
  "|",
  "^",
  "[",
  "]",
  "$",
  "*",
  "@",
  ":",
] as const;

export const INJECTIONS = [
  "' OR '1'='1",
  "1; DROP TABLE vacancies;--",
  '" OR 1=1 --',
  "%' --",
  "' UNION SELECT NULL--",
  "1' AND SLEEP(5)--",
  "pg_sleep(5)",
  "${7*7}",
  "{{7*7}}",
  "#{7*7}",
  "<script>alert(1)</script>",
  "javascript:alert(1)",
  "../../../../etc/passwd",
  "..\\..\\windows\\win.ini",
  "$where",
  '{"$gt":""}',
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "null",
  "undefined",
  "NaN",
  "Infinity",
  "-0",
  "true",
  "false",
  "[]",
  "{}",
  "0x10",
  "1e309",
  "９",
  "①",
  "٣",
  "%s%s%s%n",
  "\u0000admin",
  "admin\u0000",
  "a".repeat(64) + "\u0000",
] as const;

const ascii = fc.string({ unit: "grapheme-ascii", maxLength: 40 });
const anyUnicode = fc.string({ unit: "binary", maxLength: 30 });
const graphemes = fc.string({ unit: "grapheme", maxLength: 20 });
const special = fc.constantFrom(...SPECIAL);
const mixed = fc
  .array(fc.oneof(special, ascii, graphemes), { minLength: 1, maxLength: 6 })
  .map((parts) => parts.join(""));

/** A value of 1 to `max` characters made of one repeated unit (long ids, huge parameters). */
export const longText = (max: number) =>
  fc
    .tuple(
      fc.oneof(
        fc.constantFrom("a", "é", "😀", "/", "%", "\u0000", "0", "-", " "),
        fc.string({ minLength: 1, maxLength: 4 }),
      ),
      fc.integer({ min: 256, max }),
    )
    .map(([unit, n]) => unit.repeat(Math.max(1, Math.floor(n / unit.length))));

/** Any text a hostile client might send, from harmless to nasty. */
export const hostileText = fc.oneof(
  { weight: 3, arbitrary: mixed },
  { weight: 2, arbitrary: fc.constantFrom(...INJECTIONS) },
  { weight: 2, arbitrary: anyUnicode },
  { weight: 1, arbitrary: special },
  { weight: 1, arbitrary: fc.constant("") },
  { weight: 1, arbitrary: longText(2_000) },
);

/** Percent-encoding sequences that decode to nothing valid (or to something unexpected). */
export const BROKEN_ENCODINGS = [
  "%",
  "%%",
  "%zz",
  "%2",
  "%G0",
  "%u0041",
  "%C0%AE",
  "%C0%AF",
  "%E0%80%AF",
  "%ED%A0%80",
  "%ED%BF%BF",
  "%F4%90%80%80",
  "%FF",
  "%FE%FF",
  "%80",
  "%C3",
  "%E2%82",
  "%F0%9F%98",
  "%00",
  "%0d%0a",
  "%0D%0ASet-Cookie:%20x=1",
  "%252e%252e%252f",
  "%%32%65",
  "%c0%80",
] as const;

/**
 * A path segment standing where an id belongs: traversal, NUL, encodings, unicode, very long ids.
 */
export const hostileSegment = fc.oneof(
  { weight: 3, arbitrary: hostileText.map(percentEncode) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "..",
      ".",
      "%2e%2e",
      "%2E%2E%2F",
      "..%2f",
      "..%2F..%2F..%2Fetc%2Fpasswd",
      "%2e%2e%2f%2e%2e%2f",
      "..%5c..%5c",
      "....%2F%2F",
      "%2fetc%2fpasswd",
      "..;",
      "%3B",
      ";jsessionid=1",
      "%20",
      "+",
      "%2B",
      "~",
      "-",
      "_",
      "%7B%7D",
      "%5B%5D",
      "%23",
      "%3F",
      "a%00b",
      "%00",
      "%C0%AE%C0%AE%2F",
      "00000000-0000-0000-0000-000000000000",
      "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
      "%7B00000000-0000-4000-8000-000000000000%7D",
      "00000000000040008000000000000000",
      "00000000-0000-4000-8000-0000000000000",
      "0000000-0000-4000-8000-000000000000",
      "g0000000-0000-4000-8000-000000000000",
      "%2000000000-0000-4000-8000-000000000000",
      "00000000-0000-4000-8000-000000000000%20",
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .array(
        fc.oneof(fc.constantFrom(...BROKEN_ENCODINGS), fc.stringMatching(/^[a-z0-9-]{0,8}$/)),
        { minLength: 1, maxLength: 4 },
      )
      .map((p) => p.join("")),
  },
  {
    weight: 2,
    arbitrary: fc
      .uuid()
      .chain((u) =>
        fc.constantFrom(
          u,
          u.toUpperCase(),
          `${u}%00`,
          `${u}.json`,
          `${u}/`,
          `${u}%2F..`,
          u.replaceAll("-", ""),
          ` ${u}`.replace(" ", "%20"),
        ),
      ),
  },
  {
    weight: 1,
    arbitrary: longText(10_000)
      .map(percentEncode)
      .map((s) => s.slice(0, 12_000)),
  },
);

/**
 * A query string built from tokens: known and unknown names, array syntax, duplicates, broken
 * encodings, huge values.
 */
export function hostileQuery(
  known: ReadonlyArray<string>,
  validValues: Readonly<Record<string, ReadonlyArray<string>>>,
): fc.Arbitrary<string> {
  const name = fc.oneof(
    { weight: 4, arbitrary: known.length > 0 ? fc.constantFrom(...known) : fc.constant("page") },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "sort",
        "limit",
        "offset",
        "fields",
        "include",
        "__proto__",
        "constructor",
        "q",
        "filter[status]",
        "a.b",
        "",
      ),
    },
    { weight: 1, arbitrary: hostileText.map(percentEncode) },
  );
  const arraySuffix = fc.constantFrom(
    "",
    "",
    "",
    "[]",
    "[0]",
    "[a]",
    "[__proto__]",
    "%5B%5D",
    "[][]",
    "[",
  );
  const value = (n: string) =>
    fc.oneof(
      {
        weight: 3,
        arbitrary:
          Object.hasOwn(validValues, n) && (validValues[n]?.length ?? 0) > 0
            ? fc.constantFrom(...(validValues[n] ?? []))
            : fc.constant("1"),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          "",
          "-1",
          "0",
          "1.5",
          "1e3",
          "0x10",
          "99999999999999999999",
          "NaN",
          "null",
          "true",
          "TRUE",
          "yes",
          "1 ",
          " 1",
          "01",
          "+1",
          "2024-02-30",
          "2024-13-01",
          "2024-01-01T25:00:00Z",
          "2024-01-01T10:00:00",
          "9999-12-31T23:59:59.9999999999Z",
          "0000-00-00",
        ),
      },
      { weight: 3, arbitrary: hostileText.map(percentEncode) },
      { weight: 1, arbitrary: fc.constantFrom(...BROKEN_ENCODINGS) },
      {
        weight: 1,
        arbitrary: longText(9_000)
          .map(percentEncode)
          .map((s) => s.slice(0, 9_000)),
      },
    );
  const pair = name
    .chain((n) =>
      fc.tuple(fc.constant(n), arraySuffix, fc.option(value(n), { nil: undefined, freq: 8 })),
    )
    .map(([n, s, v]) => (v === undefined ? `${n}${s}` : `${n}${s}=${v}`));
  const separator = fc.constantFrom("&", "&", "&", "&&", ";", "&amp;");
  return fc
    .array(fc.tuple(pair, separator), { minLength: 1, maxLength: 6 })
    .map((pairs) => pairs.map(([p, s], i) => (i === 0 ? p : `${s}${p}`)).join(""));
}
