import { describe, expect, it } from "vitest";
import { z } from "zod";
import { q } from "@svc/http";
import {
  buildOpenApiDocument,
  caseInsensitivePattern,
  createPathMatcher,
  expressPath,
  queryParameters,
  serializeDocument,
  type Environment,
  type OperationSpec,
} from "../src/index.ts";

const op = (over: Partial<OperationSpec> = {}): OperationSpec => ({
  operationId: "listThings",
  method: "get",
  path: "/v1/things",
  summary: "List things",
  description: "Things.",
  tag: "Things",
  auth: { scope: "things:read" },
  responses: {
    200: {
      description: "Things.",
      body: {
        envelope: "page",
        items: { name: "Thing", schema: z.strictObject({ id: z.string() }) },
      },
    },
  },
  ...over,
});

const build = (operations: OperationSpec[], environment: Environment = "production") =>
  buildOpenApiDocument({
    environment,
    version: "0.1.0",
    title: "t",
    description: "d",
    tags: [{ name: "Things", description: "Things." }],
    scopes: { "things:read": "Read things." },
    operations,
  });

describe("expressPath", () => {
  it("turns template parameters into express parameters and escapes a literal colon", () => {
    expect(expressPath("/v1/vacancies/{uuid}")).toBe("/v1/vacancies/:uuid");
    expect(expressPath("/v1/webhooks/{webhook_uuid}/deliveries/{delivery_uuid}")).toBe(
      "/v1/webhooks/:webhook_uuid/deliveries/:delivery_uuid",
    );
    expect(expressPath("/v1/crm-mirror/accounts:bulk")).toBe("/v1/crm-mirror/accounts\\:bulk");
  });
});

describe("caseInsensitivePattern", () => {
  it("accepts the upper-case spellings the i flag accepted, and nothing more", () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
    const pattern = new RegExp(caseInsensitivePattern(uuid.source));
    for (const value of [
      "3f2b8c1e-7d4a-4e2b-9c51-0a6d2e8f4b17",
      "3F2B8C1E-7D4A-4E2B-9C51-0A6D2E8F4B17",
      "3f2B8c1E-7d4A-4e2B-9c51-0a6D2e8F4b17",
      "x",
      "3f2b8c1g-7d4a-4e2b-9c51-0a6d2e8f4b17",
    ]) {
      expect(pattern.test(value), value).toBe(uuid.test(value));
    }
    expect(new RegExp(caseInsensitivePattern("^ab\\d$")).test("AB1")).toBe(true);
  });
});

describe("createPathMatcher", () => {
  const match = createPathMatcher([
    "/v1/practices/{practice_id}",
    "/v1/meta/practices",
    "/v1/crm-mirror/accounts/{crm_id}",
    "/v1/crm-mirror/accounts:bulk",
    "/v1/{any}/practices",
  ]);

  it("matches one raw segment per parameter, literal segments first", () => {
    expect(match("/v1/practices/ACC%2F2009%2F117")).toEqual({
      template: "/v1/practices/{practice_id}",
      params: { practice_id: "ACC%2F2009%2F117" },
    });
    expect(match("/v1/meta/practices")?.template).toBe("/v1/meta/practices");
    expect(match("/v1/crm-mirror/accounts:bulk")?.template).toBe("/v1/crm-mirror/accounts:bulk");
    expect(match("/v1/crm-mirror/accounts/abc?x=1")?.template).toBe(
      "/v1/crm-mirror/accounts/{crm_id}",
    );
  });

  it("does not match an empty parameter, an extra segment or another prefix", () => {
    expect(match("/v1/practices/")).toBeUndefined();
    expect(match("/v1/practices/a/b")).toBeUndefined();
    expect(match("/v2/practices/a")).toBeUndefined();
  });
});

describe("queryParameters", () => {
  it("describes what parseQuery accepts: integers with bounds and defaults, booleans, dates, enums", () => {
    const shape = {
      page: q.page(),
      per_page: q.perPage(),
      published: q.bool().optional().meta({ description: "Published." }),
      since: q.dateOrDateTime().optional().meta({ description: "Since." }),
      status: q.oneOf(["a", "b"]).meta({ description: "Status." }),
    };
    const byName = Object.fromEntries(queryParameters("op", shape).map((p) => [p.name, p]));
    expect(byName.page).toMatchObject({
      in: "query",
      required: false,
      schema: { type: "integer", minimum: 1, default: 1 },
    });
    expect(byName.per_page?.schema).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 100,
      default: 25,
    });
    expect(byName.published).toMatchObject({
      required: false,
      description: "Published.",
      schema: { type: "boolean" },
    });
    expect(byName.since?.schema).toEqual({
      anyOf: [
        { type: "string", format: "date" },
        { type: "string", format: "date-time" },
      ],
    });
    expect(byName.status).toMatchObject({
      required: true,
      schema: { type: "string", enum: ["a", "b"] },
    });
  });

  it("refuses a parameter without a description", () => {
    expect(() => queryParameters("listThings", { search: q.text().optional() })).toThrow(
      "listThings: query parameter 'search' has no description",
    );
  });
});

describe("buildOpenApiDocument", () => {
  it("gives every guarded /v1 operation its scope and the errors every such operation can answer", () => {
    const document = build([op({ errors: { 422: ["VALIDATION_ERROR"] } })]);
    const operation = document.paths["/v1/things"]?.get as {
      security: unknown;
      responses: Record<string, unknown>;
    };
    expect(operation.security).toEqual([{ oauth2: ["things:read"] }]);
    expect(Object.keys(operation.responses)).toEqual([
      "200",
      "400",
      "401",
      "403",
      "408",
      "413",
      "415",
      "422",
      "431",
      "500",
      "503",
    ]);
    expect(operation.responses["401"]).toEqual({ $ref: "#/components/responses/Unauthenticated" });
    expect(document.components.schemas.Thing).toEqual({
      type: "object",
      properties: { id: { type: "string" } },
      required: ["id"],
      additionalProperties: false,
    });
  });

  it("marks a production-only operation in production's document and leaves it out of the sandbox's", () => {
    const productionOnly = op({
      operationId: "putThing",
      method: "put",
      requestBody: { schema: { name: "ThingBody", schema: z.strictObject({ id: z.string() }) } },
      environments: ["production"],
    });
    const production = build([op(), productionOnly]);
    const operation = production.paths["/v1/things"]?.put as Record<string, unknown>;
    expect(operation["x-environments"]).toEqual(["production"]);
    expect(Object.keys(operation.responses as object)).not.toContain("404");
    expect(operation.description).toMatch(/the sandbox has no such route/);

    const sandbox = build([op(), productionOnly], "sandbox");
    expect(Object.keys(sandbox.paths["/v1/things"] ?? {})).toEqual(["get", "x-other-methods"]);
    expect(sandbox.components.schemas.ThingBody).toBeUndefined();
    expect(sandbox.info["x-environment"]).toBe("sandbox");
  });

  it("leaves the other environments' event types out of the webhooks, the schemas and every enum", () => {
    const withTypes = op({
      responses: {
        200: {
          description: "Types.",
          body: {
            envelope: "data",
            schema: { type: "string", enum: ["vacancy.created", "application.submitted"] },
          },
        },
      },
    });
    const production = build([withTypes]);
    const sandbox = build([withTypes], "sandbox");
    expect(Object.keys(production.webhooks)).toContain("application.submitted");
    expect(Object.keys(sandbox.webhooks)).not.toContain("application.submitted");
    expect(sandbox.components.schemas.Event_application_submitted).toBeUndefined();
    expect(JSON.stringify(sandbox)).not.toContain("application.submitted");
    expect(JSON.stringify(sandbox)).toContain('"enum":["vacancy.created"]');
  });

  it("answers other methods of a path with 405 and Allow unless an operation says otherwise", () => {
    const item = build([op()]).paths["/v1/things"] as Record<string, unknown>;
    const other = item["x-other-methods"] as { headers: Record<string, unknown>; content: object };
    expect(Object.keys(other.headers)).toContain("Allow");
    expect(JSON.stringify(other.content)).toContain('"enum":["METHOD_NOT_ALLOWED"]');
    const own = {
      description: "Not POST.",
      body: { raw: { type: "object" } },
    };
    const tokenLike = build([op({ otherMethods: own })]).paths["/v1/things"] as Record<
      string,
      unknown
    >;
    expect(tokenLike["x-other-methods"]).toMatchObject({ description: "Not POST." });
  });

  it("describes a raw body under its content type, or under each of several", () => {
    const file = (contentType?: string | string[]) => {
      const document = build([
        op({
          auth: { public: true },
          responses: {
            200: {
              description: "A file.",
              body: { raw: { type: "string" }, ...(contentType && { contentType }) },
            },
          },
        }),
      ]);
      const ok = (document.paths["/v1/things"]?.get as { responses: Record<string, unknown> })
        .responses["200"] as { content: Record<string, unknown> };
      return ok.content;
    };
    expect(file()).toEqual({ "application/json": { schema: { type: "string" } } });
    expect(file("text/html")).toEqual({ "text/html": { schema: { type: "string" } } });
    expect(file(["text/javascript", "text/css"])).toEqual({
      "text/javascript": { schema: { type: "string" } },
      "text/css": { schema: { type: "string" } },
    });
  });

  it("is the same bytes whatever the order of the operations", () => {
    const a = op();
    const b = op({
      operationId: "getThing",
      path: "/v1/things/{id}",
      pathParams: { id: { description: "Id.", schema: { type: "string" } } },
    });
    expect(serializeDocument(build([a, b]))).toBe(serializeDocument(build([b, a])));
  });

  it("refuses inconsistent descriptors", () => {
    expect(() => build([op(), op({ path: "/v1/other" })])).toThrow(
      "duplicate operationId listThings",
    );
    expect(() => build([op({ path: "/v1/things/{id}" })])).toThrow(
      "path parameters id but described",
    );
    expect(() => build([op({ errors: { 404: ["NO_SUCH_CODE"] } })])).toThrow(
      "unknown error code NO_SUCH_CODE",
    );
    expect(() => build([op({ errors: { 404: ["VALIDATION_ERROR"] } })])).toThrow(
      "VALIDATION_ERROR is a 422, not a 404",
    );
    expect(() => build([op({ tag: "Undescribed" })])).toThrow(
      "tags without a description: Undescribed",
    );
    const other = { name: "Thing", schema: z.strictObject({ other: z.string() }) };
    expect(() =>
      build([
        op(),
        op({
          operationId: "x",
          path: "/v1/x",
          responses: { 200: { description: "x", body: { envelope: "data", schema: other } } },
        }),
      ]),
    ).toThrow("two different schemas are named Thing");
  });
});
