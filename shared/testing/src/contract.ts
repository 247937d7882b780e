/**
 * Contract tests: every response a test receives from a documented path and method is checked
 * against the checked-in OpenAPI document (@svc/openapi): its status must be documented, the
 * documented required headers present and valid, the body valid against the documented schema
 * (ajv, JSON Schema 2020-12, formats on). An error from an undocumented /v1 path must still be
 * the error envelope. `installFetchContractValidation` applies this to every `fetch` of a test
 * process (vitest setup file), so the document and the behaviour cannot part.
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
    const operation = this.document.paths[match.template]?.[method] as Obj | undefined;
    if (!operation) return this.#fallback(res, where, match.template === "/oauth/token");

    this.#count(`${method.toUpperCase()} ${match.template} ${res.status}`);
    const responses = operation.responses as Obj;
    const key = [String(res.status), `${String(res.status)[0]}XX`, "default"].find(
      (k) => responses[k] !== undefined,
    );
    if (!key)
      return [
        `${where}: status ${res.status} is not documented for ${method.toUpperCase()} ${match.template} (documented: ${Object.keys(responses).join(", ")})`,
      ];
    const { node: response, at } = this.#resolve(responses[key] as Obj, [
      "paths",
      match.template,
      method,
      "responses",
      key,
    ]);

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

let shared: ContractValidator | undefined;

/** The validator over the checked-in document (built once per test process). */
export function contractValidator(): ContractValidator {
  shared ??= new ContractValidator(readOpenApiDocument());
  return shared;
}

/** Throws (failing the test) when a received webhook payload does not match the document. */
export function validateWebhookPayload(eventType: string, body: unknown): void {
  const problems = contractValidator().webhookPayloadProblems(eventType, body);
  if (problems.length > 0) throw new Error(problems.join("\n"));
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);
const INSTALLED = Symbol.for("svc.contract.fetch");

export interface ContractValidation {
  /**
   * Waits (bounded) for the checks of responses already received, then returns and forgets the
   * violations.
   */
  takeViolations(): Promise<string[]>;
  /**
   * Returns and forgets what was checked, by `METHOD /template status` (`* /v1/… status` for
   * envelope-only checks).
   */
  takeCoverage(): Record<string, number>;
}

type Installed = typeof fetch & { [INSTALLED]?: ContractValidation };

function requestOf(
  input: Parameters<typeof fetch>[0],
  init: Parameters<typeof fetch>[1],
): { url: URL; method: string } {
  const url = new URL(input instanceof Request ? input.url : String(input));
  const method = init?.method ?? (input instanceof Request ? input.method : "GET");
  return { url, method: method.toUpperCase() };
}

/**
 * Wraps globalThis.fetch: every response from a loopback server is checked in the background
 * (the caller gets the response untouched) and violations are kept until `takeViolations`.
 * Idempotent per process.
 */
export function installFetchContractValidation(
  validator: () => ContractValidator = contractValidator,
): ContractValidation {
  const current = globalThis.fetch as Installed;
  const existing = current[INSTALLED];
  if (existing) return existing;
  const original = current;
  const pending = new Set<Promise<void>>();
  let violations: string[] = [];

  const check = async (request: { url: URL; method: string }, response: Response) => {
    const body = await response.text();
    const problems = validator().problems({
      method: request.method,
      path: `${request.url.pathname}${request.url.search}`,
      status: response.status,
      headers: response.headers,
      body,
    });
    if (problems && problems.length > 0)
      violations.push(`contract violation (shared/openapi/openapi.json):\n${problems.join("\n")}`);
  };

  const wrapped = (async (
    input: Parameters<typeof fetch>[0],
    init?: Parameters<typeof fetch>[1],
  ) => {
    const response = await original(input, init);
    let request: { url: URL; method: string } | undefined;
    try {
      request = requestOf(input, init);
    } catch {
      return response;
    }
    if (!LOOPBACK.has(request.url.hostname) || !request.url.protocol.startsWith("http"))
      return response;
    // A body the caller abandons (an aborted or cut stream) cannot be checked; that is not a
    // violation.
    const task = check(request, response.clone()).catch(() => undefined);
    pending.add(task);
    void task.finally(() => pending.delete(task));
    return response;
  }) as Installed;

  const validation: ContractValidation = {
    async takeViolations() {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...pending]),
        new Promise((resolve) => (timer = setTimeout(resolve, 5_000))),
      ]);
      clearTimeout(timer);
      const taken = violations;
      violations = [];
      return taken;
    },
    takeCoverage() {
      const taken = Object.fromEntries(validator().checked);
      validator().checked.clear();
      return taken;
    },
  };
  wrapped[INSTALLED] = validation;
  globalThis.fetch = wrapped;
  return validation;
}
