import { describe, expect, it } from "vitest";
import { guideSteps, unattachedResponses } from "./guide-steps.ts";
import type { FencedBlock } from "./markdown.ts";
import { parseHttp, responseProblems, sameShape } from "./same-shape.ts";

const shown = {
  success: true,
  data: [{ uuid: "f1c7b000-0000-4000-8000-000000000001", title: "Tandarts", visible: true }],
  meta: {
    request_id: "6108c400-4fc3-4b13-aab7-1b31792efe63",
    api_version: "v1",
    pagination: { page: 1, per_page: 1, total: 1977, total_pages: 1977 },
  },
};
const copy = () => structuredClone(shown);

describe("sameShape", () => {
  it("accepts the same structure with other run-dependent values", () => {
    const actual = copy();
    actual.data[0]!.uuid = "84c05d45-373a-44cf-9d4f-b2d1d9b1f391";
    actual.data[0]!.title = "Another title";
    actual.meta.request_id = "929d564b-72a6-45cb-9c20-ed3c82017556";
    actual.meta.pagination.total = 12;
    expect(sameShape(shown, actual)).toEqual([]);
  });

  it("fails on a missing key, naming its path", () => {
    const actual = copy() as { data: Array<Record<string, unknown>> };
    delete actual.data[0]!.visible;
    expect(sameShape(shown, actual)).toEqual(["$.data[0].visible: missing"]);
  });

  it("fails on a key the guide does not show", () => {
    const actual = copy() as { data: Array<Record<string, unknown>> };
    actual.data[0]!.slug = "vacatures/tandarts";
    expect(sameShape(shown, actual)).toEqual(["$.data[0].slug: not shown in the guide"]);
  });

  it("fails on a wrong type, null included", () => {
    const actual = copy() as { data: Array<Record<string, unknown>> };
    actual.data[0]!.visible = "true";
    actual.data[0]!.title = null;
    expect(sameShape(shown, actual)).toEqual([
      "$.data[0].title: expected string, got null",
      "$.data[0].visible: expected boolean, got string",
    ]);
  });

  it("fails on a different fixed value", () => {
    const actual = copy();
    actual.meta.api_version = "v2";
    actual.meta.pagination.per_page = 25;
    expect(sameShape(shown, actual)).toEqual([
      '$.meta.api_version: expected "v1", got "v2"',
      "$.meta.pagination.per_page: expected 1, got 25",
    ]);
    const error = { success: false, error: { code: "NOT_FOUND", message: "vacancy not found" } };
    const other = { success: false, error: { code: "VALIDATION_ERROR", message: "invalid" } };
    expect(sameShape(error, other)).toEqual([
      '$.error.code: expected "NOT_FOUND", got "VALIDATION_ERROR"',
    ]);
  });

  it("compares a value as fixed only under the key path it names", () => {
    // `error.code` is fixed; a vacancy's `position.code` is data.
    const vacancy = { position: { code: "TA", label: "Tandarts" } };
    expect(sameShape(vacancy, { position: { code: "TAS", label: "Assistent" } })).toEqual([]);
    const details = { details: [{ field: "per_page", message: "must be at most 100" }] };
    expect(sameShape(details, { details: [{ field: "page", message: "x" }] })).toEqual([
      '$.details[0].field: expected "per_page", got "page"',
    ]);
  });

  it("fails on a different number of elements unless the shown array is trimmed", () => {
    expect(sameShape({ data: [1, 2] }, { data: [1, 2, 3] })).toEqual([
      "$.data: expected 2 elements, got 3",
    ]);
    expect(sameShape({ data: [1, "…"] }, { data: [4, 5, 6] })).toEqual([]);
    expect(sameShape({ data: [1, 2, "…"] }, { data: [4] })).toEqual([
      "$.data: expected at least 2 elements, got 1",
    ]);
    expect(sameShape({ data: [1, "…"] }, { data: ["4", 5] })).toEqual([
      "$.data[0]: expected number, got string",
    ]);
  });

  it("allows keys the guide left out only where it says so", () => {
    expect(sameShape({ a: 1, "…": "…" }, { a: 2, b: 3 })).toEqual([]);
    expect(sameShape({ a: 1, "…": "…" }, { b: 3 })).toEqual(["$.a: missing"]);
  });
});

describe("responseProblems", () => {
  const curlOutput = [
    "HTTP/1.1 401 Unauthorized",
    "x-request-id: 929d564b-72a6-45cb-9c20-ed3c82017556",
    'www-authenticate: Bearer realm="integration-service"',
    "content-type: application/json; charset=utf-8",
    "",
    '{"success":false,"error":{"code":"UNAUTHENTICATED","message":"a bearer access token is required"},"meta":{"request_id":"929d564b-72a6-45cb-9c20-ed3c82017556","api_version":"v1"}}',
  ].join("\r\n");
  const shownHttp = [
    "HTTP/1.1 401 Unauthorized",
    'www-authenticate: Bearer realm="integration-service"',
    "",
    '{ "success": false, "error": { "code": "UNAUTHENTICATED", "message": "…" },',
    '  "meta": { "request_id": "…", "api_version": "v1" } }',
  ].join("\n");

  it("reads curl -i output", () => {
    const parsed = parseHttp(curlOutput);
    expect(parsed.status).toBe("HTTP/1.1 401 Unauthorized");
    expect(parsed.headers.get("www-authenticate")).toBe('Bearer realm="integration-service"');
    expect(JSON.parse(parsed.body).error.code).toBe("UNAUTHENTICATED");
  });

  it("compares HTTP answers by status line, the headers shown and the body's shape", () => {
    expect(responseProblems("http", shownHttp, curlOutput)).toEqual([]);
    const other = curlOutput
      .replace("401 Unauthorized", "403 Forbidden")
      .replace('realm="integration-service"', 'realm="x"')
      .replace("UNAUTHENTICATED", "INSUFFICIENT_SCOPE");
    expect(responseProblems("http", shownHttp, other)).toEqual([
      'status line: expected "HTTP/1.1 401 Unauthorized", got "HTTP/1.1 403 Forbidden"',
      'header www-authenticate: expected "Bearer realm=\\"integration-service\\"", got "Bearer realm=\\"x\\""',
      'body.error.code: expected "UNAUTHENTICATED", got "INSUFFICIENT_SCOPE"',
    ]);
    const withoutHeader = curlOutput.replace(/www-authenticate:[^\r]*\r\n/, "");
    expect(responseProblems("http", shownHttp, withoutHeader)).toEqual([
      "header www-authenticate: missing",
    ]);
  });

  it("compares JSON structurally and text exactly", () => {
    expect(responseProblems("json", '{"a": 1}', '{"a": 2}\n')).toEqual([]);
    expect(responseProblems("json", '{"a": 1}', "not json")[0]).toMatch(/the output is not JSON/);
    expect(responseProblems("text", "201\n201 true\n", "201 \n201 true")).toEqual([]);
    expect(responseProblems("text", "201\n201 true", "201\n200")).toHaveLength(1);
    expect(responseProblems("yaml", "a: 1", "a: 1")).toHaveLength(1);
  });
});

describe("guideSteps", () => {
  const block = (line: number, lang: string, ...tags: string[]): FencedBlock => ({
    file: "guide.md",
    line,
    lang,
    tags,
    code: "",
  });

  it("pairs each tested command with the response right after it", () => {
    const blocks = [
      block(1, "sh"),
      block(5, "sh", "tested"),
      block(9, "json", "response"),
      block(20, "sh", "tested"),
      block(24, "sh", "tested"),
      block(28, "http", "response"),
    ];
    expect(guideSteps(blocks).map((s) => [s.command.line, s.response?.line])).toEqual([
      [5, 9],
      [20, undefined],
      [24, 28],
    ]);
    expect(unattachedResponses(blocks)).toEqual([]);
    expect(unattachedResponses([block(1, "sh"), block(3, "json", "response")])).toHaveLength(1);
  });
});
