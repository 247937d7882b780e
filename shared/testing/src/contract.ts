/**
 * Contract tests: every response a test receives from a documented path and method is checked
 * against the checked-in OpenAPI document (@svc/openapi): its status must be documented, the
 * documented required headers present and valid, the body valid against the documented schema
 * (ajv, JSON Schema 2020-12, formats on). A method the path does not take is checked against
 * the path item's `x-other-methods`. An error from an undocumented /v1 path must still be the
 * error envelope. A response matches when it matches production's document or the sandbox's (a
 * sandbox answers 404 where production has a route). `installFetchContractValidation` (contract-fetch.ts) applies this to every
 * `fetch` of a test process (vitest setup file), so the document and the behaviour cannot part.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import {
  createPathMatcher,
  eventSchemaName,
  readOpenApiDocument,
  type OpenApiDocument,
  type PathMatch,
} from "@svc/openapi";

// ajv-formats is CommonJS with a default export; under NodeNext its callable is the module itself.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

export interface ObservedResponse {
  method: string;
  /** The server-relative path as sent (still percent-encoded), query string allowed. */
  path: string;
  status: number;
  headers: Headers;
  /** The body text ("" when none). */
  body: string;
}

type Obj = Record<string, unknown>;

const DOC_ID = "openapi.json";
const pointer = (...parts: string[]) =>
  `${DOC_ID}#/${parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`;
const mediaType = (contentType: string | null) =>
  (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";

function describeErrors(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? [])
    .slice(0, 10)
    .map(
      (e) =>
        `  ${e.instancePath || "(body)"} ${e.message ?? e.keyword}${e.params && Object.keys(e.params).length > 0 ? ` ${JSON.stringify(e.params)}` : ""} [${e.schemaPath}]`,
    );
}

export class ContractValidator {
  readonly document: OpenApiDocument;
  readonly #ajv: Ajv2020;
  readonly #match: (path: string) => PathMatch | undefined;
  readonly #compiled = new Map<string, ValidateFunction>();
  /** What was checked, by `METHOD /template status`; envelope-only checks as `* /v1/… status`. */
  readonly checked = new Map<string, number>();

  #count(key: string): void {
    this.checked.set(key, (this.checked.get(key) ?? 0) + 1);
  }

  constructor(document: OpenApiDocument) {
    this.document = document;
    // strict off: the document holds OpenAPI keywords (description, examples) beside the schemas.
    this.#ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.#ajv);
    this.#ajv.addSchema(document as object, DOC_ID);
    this.#match = createPathMatcher(Object.keys(document.paths));
  }

  #validator(ref: string): ValidateFunction {
    let fn = this.#compiled.get(ref);
    if (!fn) {
      fn = this.#ajv.getSchema(ref);
      if (!fn) throw new Error(`no schema at ${ref}`);
      this.#compiled.set(ref, fn);
    }
    return fn;
  }

  /** Follows a `$ref` inside the document (components.responses, components.headers). */
  #resolve(node: Obj, base: string[]): { node: Obj; at: string[] } {
    const ref = node.$ref;
    if (typeof ref !== "string") return { node, at: base };
    const at = ref
      .replace(/^#\//, "")
      .split("/")
      .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
    let target: unknown = this.document;
    for (const part of at) target = (target as Obj)[part];
    return { node: target as Obj, at };
  }

  #checkJson(ref: string, body: string, where: string): string[] {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return [`${where}: the body is not JSON: ${JSON.stringify(body.slice(0, 200))}`];
    }
    const validate = this.#validator(ref);
    if (validate(value)) return [];
    return [
      `${where}: the body does not match the document:`,
      ...describeErrors(validate.errors),
      `  body: ${body.slice(0, 600)}`,
    ];
  }

  #fallback(res: ObservedResponse, where: string, oauth: boolean): string[] | undefined {
    if (res.status < 400) return undefined;
    this.#count(`* ${oauth ? "/oauth/token" : "/v1/…"} ${res.status}`);
    const ref = oauth
      ? pointer("components", "schemas", "OAuthError")
      : pointer("components", "schemas", "ErrorEnvelope");
    return this.#checkJson(ref, res.body, where);
  }

  /** Problems with one response; undefined when the document says nothing about it. */
  problems(res: ObservedResponse): string[] | undefined {
    const method = res.method.toLowerCase();
    // HEAD has no body to check; its GET twin is checked.
    if (method === "head") return undefined;
    const path = res.path.split("?")[0] ?? "";
    const where = `${res.method.toUpperCase()} ${res.path} → ${res.status}`;
    const match = this.#match(path);
    if (!match) return path.startsWith("/v1/") ? this.#fallback(res, where, false) : undefined;
    const item = this.document.paths[match.template] as Obj;
    const operation = item[method] as Obj | undefined;
    if (!operation) {
      // Other errors (the body parser's, the listener's) come before the method is looked at.
      if (res.status !== 405 || item["x-other-methods"] === undefined)
        return this.#fallback(res, where, match.template === "/oauth/token");
      this.#count(`${method.toUpperCase()} ${match.template} ${res.status}`);
      const at = ["paths", match.template, "x-other-methods"];
      return this.#responseProblems(res, where, item["x-other-methods"] as Obj, at);
    }

    this.#count(`${method.toUpperCase()} ${match.template} ${res.status}`);
    const responses = operation.responses as Obj;
    const key = [String(res.status), `${String(res.status)[0]}XX`, "default"].find(
      (k) => responses[k] !== undefined,
    );
    if (!key)
      return [
        `${where}: status ${res.status} is not documented for ${method.toUpperCase()} ${match.template} (documented: ${Object.keys(responses).join(", ")})`,
      ];
    return this.#responseProblems(res, where, responses[key] as Obj, [
      "paths",
      match.template,
      method,
      "responses",
      key,
    ]);
  }

  /** Problems with a response against one documented response object (headers and body). */
  #responseProblems(res: ObservedResponse, where: string, node: Obj, base: string[]): string[] {
    const { node: response, at } = this.#resolve(node, base);
    const problems: string[] = [];
    for (const [name, header] of Object.entries((response.headers ?? {}) as Obj)) {
      const { node: spec, at: headerAt } = this.#resolve(header as Obj, [...at, "headers", name]);
      const value = res.headers.get(name);
      if (value === null) {
        if (spec.required === true)
          problems.push(`${where}: the required header ${name} is missing`);
        continue;
      }
      const validate = this.#validator(pointer(...headerAt, "schema"));
      if (!validate(value))
        problems.push(
          `${where}: header ${name}: ${JSON.stringify(value)} does not match the document`,
          ...describeErrors(validate.errors),
        );
    }

    const content = response.content as Obj | undefined;
    if (content) {
      const type = mediaType(res.headers.get("content-type"));
      if (!content[type])
        problems.push(
          `${where}: Content-Type ${type || "(none)"} is not documented (documented: ${Object.keys(content).join(", ")})`,
        );
      else if (type.endsWith("json"))
        problems.push(
          ...this.#checkJson(pointer(...at, "content", type, "schema"), res.body, where),
        );
    }
    return problems;
  }

  /** Whether a value is valid against one of the document's `components.schemas`. */
  schemaAccepts(name: string, value: unknown): boolean {
    if (!this.document.components.schemas[name]) throw new Error(`no schema ${name}`);
    return this.#validator(pointer("components", "schemas", name))(value) === true;
  }

  /** The document's verdict on a value of one operation's parameter (`in` path, query or header). */
  parameterAccepts(method: string, template: string, name: string, value: unknown): boolean {
    const operation = (this.document.paths[template] as Obj | undefined)?.[method] as Obj;
    const parameters = (operation?.parameters ?? []) as Array<{ name: string }>;
    const index = parameters.findIndex((p) => p.name === name);
    if (index < 0) throw new Error(`${method.toUpperCase()} ${template} has no parameter ${name}`);
    const at = pointer("paths", template, method, "parameters", String(index), "schema");
    return this.#validator(at)(value) === true;
  }

  /** Problems with a webhook delivery's payload against the document's `webhooks`. */
  webhookPayloadProblems(eventType: string, body: unknown): string[] {
    const name = eventSchemaName(eventType as Parameters<typeof eventSchemaName>[0]);
    if (!this.document.components.schemas[name])
      return [`${eventType} is not an event type of the document`];
    const validate = this.#validator(pointer("components", "schemas", name));
    if (validate(body)) return [];
    return [
      `webhook payload (${eventType}) does not match the document:`,
      ...describeErrors(validate.errors),
      `  payload: ${JSON.stringify(body).slice(0, 600)}`,
    ];
  }
}

/**
 * Checks against production's document and, where that finds problems, the sandbox's: a response
 * matching either matches (the tests run both environments; production's document is the
 * complete one, the sandbox answers 404 where only production has a route).
 */
export class EnvironmentsContractValidator extends ContractValidator {
  readonly #sandbox: ContractValidator;

  constructor(production: OpenApiDocument, sandbox: OpenApiDocument) {
    super(production);
    this.#sandbox = new ContractValidator(sandbox);
  }

  override problems(res: ObservedResponse): string[] | undefined {
    const found = super.problems(res);
    if (found === undefined || found.length === 0) return found;
    return this.#sandbox.problems(res)?.length === 0 ? [] : found;
  }
}

let shared: ContractValidator | undefined;

/** The validator over the checked-in documents (built once per test process). */
export function contractValidator(): ContractValidator {
  shared ??= new EnvironmentsContractValidator(
    readOpenApiDocument("production"),
    readOpenApiDocument("sandbox"),
  );
  return shared;
}

/** Throws (failing the test) when a received webhook payload does not match the document. */
export function validateWebhookPayload(eventType: string, body: unknown): void {
  const problems = contractValidator().webhookPayloadProblems(eventType, body);
  if (problems.length > 0) throw new Error(problems.join("\n"));
}
