/**
 * Compares a response shown in a guide with the one a command really printed, by structure: the
 * same keys, the same JSON types, and equal values where the request or the contract fixes them.
 * Values that vary per run (ids, timestamps, request ids, tokens, totals) may differ.
 */

/** Marks a shortened response: an array's last element, or an object's key. */
export const TRIMMED = "…";

/**
 * Values fixed by the contract or by the request (`success`, `api_version`, `error.code`, the
 * field a validation error names, the page asked for, ...): a guide that shows another value is
 * wrong even though the type matches. An entry names a key, or a key under its parent's key
 * (`error.code` is the `code` of an `error` object, not a vacancy's `position.code`).
 */
export const FIXED_KEYS: ReadonlySet<string> = new Set([
  "success",
  "api_version",
  "error.code",
  "details.field",
  "error",
  "token_type",
  "expires_in",
  "scope",
  "pagination.page",
  "pagination.per_page",
  "resolution",
  "application_created",
  "candidate_created",
]);

/** Response headers whose values are fixed (others need only be present). */
export const FIXED_HEADERS: ReadonlySet<string> = new Set([
  "www-authenticate",
  "idempotent-replayed",
  "allow",
  "cache-control",
  "content-type",
]);

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

const isScalar = (value: unknown) => value === null || typeof value !== "object";

/**
 * Where `actual` differs in shape from `expected`, one line per difference naming its JSON path
 * (`$.data[0].uuid`); empty when they have the same shape.
 *
 * - objects: the same keys (an `expected` key `"…"` allows more keys in `actual`);
 * - arrays: the same length, compared element by element (a last `expected` element `"…"` allows
 *   `actual` to have more elements than those shown);
 * - scalars: the same JSON type, and the same value where `fixedKeys` names the key.
 */
export function sameShape(
  expected: unknown,
  actual: unknown,
  options: { fixedKeys?: ReadonlySet<string>; path?: string } = {},
): string[] {
  const fixedKeys = options.fixedKeys ?? FIXED_KEYS;
  const problems: string[] = [];
  const fixed = (keys: string[]) =>
    [...fixedKeys].some((entry) => {
      const want = entry.split(".");
      return want.every((k, i) => keys[keys.length - want.length + i] === k);
    });
  const walk = (exp: unknown, act: unknown, path: string, keys: string[]): void => {
    const [te, ta] = [typeOf(exp), typeOf(act)];
    if (te !== ta) {
      problems.push(`${path}: expected ${te}, got ${ta}`);
      return;
    }
    if (Array.isArray(exp)) {
      const arr = act as unknown[];
      const trimmed = exp.length > 0 && exp[exp.length - 1] === TRIMMED;
      const shown = trimmed ? exp.slice(0, -1) : exp;
      if (trimmed ? arr.length < shown.length : arr.length !== shown.length)
        problems.push(
          `${path}: expected ${trimmed ? "at least " : ""}${shown.length} elements, got ${arr.length}`,
        );
      shown.forEach((e, i) => {
        if (i < arr.length) walk(e, arr[i], `${path}[${i}]`, keys);
      });
      return;
    }
    if (te === "object") {
      const e = exp as Record<string, unknown>;
      const a = act as Record<string, unknown>;
      for (const k of Object.keys(e)) {
        if (k === TRIMMED) continue;
        if (!(k in a)) problems.push(`${path}.${k}: missing`);
        else walk(e[k], a[k], `${path}.${k}`, [...keys, k]);
      }
      if (!(TRIMMED in e))
        for (const k of Object.keys(a))
          if (!(k in e)) problems.push(`${path}.${k}: not shown in the guide`);
      return;
    }
    if (keys.length > 0 && isScalar(exp) && exp !== act && fixed(keys))
      problems.push(`${path}: expected ${JSON.stringify(exp)}, got ${JSON.stringify(act)}`);
  };
  walk(expected, actual, options.path ?? "$", []);
  return problems;
}

function parseJson(text: string, what: string): { value?: unknown; problem?: string } {
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    return { problem: `${what} is not JSON (${(err as Error).message}): ${text.slice(0, 300)}` };
  }
}

/** Status line, headers (lower-case names) and body of `curl -i` output or a shown HTTP response. */
export function parseHttp(text: string): {
  status: string;
  headers: Map<string, string>;
  body: string;
} {
  const normalised = text.replace(/\r\n/g, "\n").trimStart();
  const split = normalised.indexOf("\n\n");
  const head = split === -1 ? normalised : normalised.slice(0, split);
  const body = split === -1 ? "" : normalised.slice(split + 2).trim();
  const [status = "", ...lines] = head.split("\n");
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0)
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { status: status.trim(), headers, body };
}

/**
 * Problems with a command's output against the response block shown after it:
 * `json` structurally (`sameShape`); `http` (`curl -i`) by its status line, the headers shown
 * (present, and equal where `FIXED_HEADERS` says so) and the body structurally; `text` exactly
 * (trailing spaces ignored).
 */
export function responseProblems(lang: string, shown: string, output: string): string[] {
  if (lang === "json") {
    const expected = parseJson(shown, "the shown response");
    if (expected.problem) return [expected.problem];
    const actual = parseJson(output, "the output");
    if (actual.problem) return [actual.problem];
    return sameShape(expected.value, actual.value);
  }
  if (lang === "http") {
    const expected = parseHttp(shown);
    const actual = parseHttp(output);
    const problems: string[] = [];
    if (actual.status !== expected.status)
      problems.push(
        `status line: expected ${JSON.stringify(expected.status)}, got ${JSON.stringify(actual.status)}`,
      );
    for (const [name, value] of expected.headers) {
      const got = actual.headers.get(name);
      if (got === undefined) problems.push(`header ${name}: missing`);
      else if (FIXED_HEADERS.has(name) && got !== value)
        problems.push(
          `header ${name}: expected ${JSON.stringify(value)}, got ${JSON.stringify(got)}`,
        );
    }
    if (expected.body !== "") {
      const e = parseJson(expected.body, "the shown body");
      const a = parseJson(actual.body, "the body");
      if (e.problem || a.problem)
        problems.push(...[e.problem, a.problem].filter((p) => p !== undefined));
      else problems.push(...sameShape(e.value, a.value, { path: "body" }));
    }
    return problems;
  }
  if (lang === "text") {
    const tidy = (s: string) =>
      s
        .split("\n")
        .map((l) => l.trimEnd())
        .join("\n")
        .trim();
    return tidy(shown) === tidy(output) ? [] : [`expected:\n${tidy(shown)}\ngot:\n${tidy(output)}`];
  }
  return [
    `a response block in ${lang || "no language"} cannot be compared (use json, http or text)`,
  ];
}
