/**
 * Builds the OpenAPI 3.1 document from the services' operation descriptors, the shared shapes
 * and the event catalogue. Deterministic: the same descriptors give the same bytes (paths,
 * components and webhooks sorted; everything else in a fixed order).
 */
import { z } from "zod";
import { EVENT_TYPES, eventTypesFor, EVENT_CATALOGUE, type EventType } from "@svc/events";
import { namedParameters, queryParameters, toSchema, type OpenApiParameter } from "./convert.ts";
import type {
  Auth,
  Environment,
  ErrorCodes,
  HeaderSpec,
  JsonSchema,
  NamedSchema,
  OperationSpec,
  ResponseSpec,
  SchemaRef,
  TagSpec,
} from "./operation.ts";
import {
  envelopeSchema,
  ERROR_CODES,
  ERROR_HEADERS,
  errorEnvelopeSchema,
  eventPayloadSchema,
  FIELD_METADATA_SCHEMA,
  metaSchema,
  paginationSchema,
  cursorPaginationSchema,
  REQUEST_ID_HEADER,
  requestIdSchema,
  type ErrorCode,
} from "./schemas.ts";

export interface DocumentInput {
  /**
   * The environment the document describes: its operations (an operation's `environments`), its
   * event types (`eventTypesFor`) and the scopes passed in.
   */
  environment: Environment;
  /** The installation's semantic version, `installationVersion` of @svc/config. */
  version: string;
  title: string;
  description: string;
  tags: ReadonlyArray<TagSpec>;
  /** Every scope of the environment with what it grants. */
  scopes: Readonly<Record<string, string>>;
  operations: ReadonlyArray<OperationSpec>;
}

export type OpenApiDocument = Record<string, unknown> & {
  openapi: string;
  info: { version: string } & Record<string, unknown>;
  paths: Record<string, Record<string, Record<string, unknown>>>;
  webhooks: Record<string, Record<string, Record<string, unknown>>>;
  components: { schemas: Record<string, JsonSchema> } & Record<string, unknown>;
};

const METHOD_ORDER = ["get", "put", "post", "patch", "delete"];
const SECURITY = { oauth2: "oauth2", basic: "clientBasic" } as const;

/**
 * Error statuses every HTTP listener answers before any route (@svc/http protocol errors):
 * headers or a body that do not arrive in time, headers too large.
 */
const LISTENER_ERRORS: ErrorCodes = {
  408: ["REQUEST_TIMEOUT"],
  431: ["REQUEST_HEADERS_TOO_LARGE"],
};
/**
 * And every operation of the services' apps (@svc/http `createHttpApp`), whatever it does: the
 * JSON body parser runs before every route (a JSON body that does not parse, is too large or not
 * UTF-8), an unexpected error, and the gateway's answer when the service behind it is unreachable.
 */
const PUBLIC_ERRORS: ErrorCodes = {
  ...LISTENER_ERRORS,
  400: ["MALFORMED_REQUEST"],
  413: ["PAYLOAD_TOO_LARGE"],
  415: ["UNSUPPORTED_MEDIA_TYPE"],
  500: ["INTERNAL_ERROR"],
  503: ["SERVICE_UNAVAILABLE"],
};
/**
 * And every guarded /v1 operation: no or a bad token, a missing scope; the token verifier needs
 * auth's keys and the revocation list (fails closed without them: 503).
 */
const GUARDED_ERRORS: ErrorCodes = {
  ...PUBLIC_ERRORS,
  401: ["UNAUTHENTICATED"],
  403: ["INSUFFICIENT_SCOPE"],
};

/** Error statuses an operation of this kind answers whatever it does (`errors` adds its own). */
export function baseErrors(auth: Auth): ErrorCodes {
  if ("public" in auth) return PUBLIC_ERRORS;
  if ("scope" in auth) return GUARDED_ERRORS;
  // The token endpoint answers RFC 6749 bodies itself (its `responses`); only the listener's are
  // the envelope.
  return LISTENER_ERRORS;
}

/** Whether an operation exists in an environment (absent `environments`: in every one). */
export function existsIn(op: Pick<OperationSpec, "environments">, environment: Environment) {
  return op.environments === undefined || op.environments.includes(environment);
}

const pascal = (code: string) =>
  code.toLowerCase().replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase());

function sortedObject<T>(entries: Iterable<[string, T]>): Record<string, T> {
  return Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function mergeErrors(...tables: Array<ErrorCodes | undefined>): Map<number, string[]> {
  const merged = new Map<number, string[]>();
  for (const table of tables) {
    for (const [status, codes] of Object.entries(table ?? {})) {
      const list = merged.get(Number(status)) ?? [];
      for (const code of codes ?? []) {
        const known = ERROR_CODES[code as ErrorCode];
        if (!known) throw new Error(`unknown error code ${code}`);
        if (known.status !== Number(status))
          throw new Error(`${code} is a ${known.status}, not a ${status}`);
        if (!list.includes(code)) list.push(code);
      }
      merged.set(Number(status), list);
    }
  }
  return merged;
}

function isNamed(ref: SchemaRef): ref is NamedSchema {
  return (
    !(ref instanceof z.ZodType) &&
    typeof ref.name === "string" &&
    typeof ref.schema === "object" &&
    ref.schema !== null
  );
}

class Builder {
  readonly schemas = new Map<string, JsonSchema>();
  readonly responses = new Map<string, Record<string, unknown>>();

  /**
   * A named schema goes to components once (the same name must mean the same schema); others are
   * inlined.
   */
  schema(ref: SchemaRef, io: "input" | "output"): JsonSchema {
    if (isNamed(ref)) {
      const schema = toSchema(ref.schema, io);
      if (ref.description) schema.description = ref.description;
      this.register(ref.name, schema);
      return { $ref: `#/components/schemas/${ref.name}` };
    }
    return toSchema(ref, io);
  }

  register(name: string, schema: JsonSchema): void {
    const existing = this.schemas.get(name);
    if (existing && JSON.stringify(existing) !== JSON.stringify(schema))
      throw new Error(`two different schemas are named ${name}`);
    this.schemas.set(name, schema);
  }

  /** Response headers; the request id every response carries is one shared component. */
  headers(specs: Record<string, HeaderSpec> | undefined): Record<string, unknown> {
    const own = Object.entries(specs ?? {}).map(([name, h]) => [
      name,
      { description: h.description, required: h.required === true, schema: h.schema },
    ]);
    return Object.fromEntries([
      ...Object.keys(REQUEST_ID_HEADER).map((name) => [
        name,
        { $ref: `#/components/headers/${name}` },
      ]),
      ...own,
    ]);
  }

  success(spec: ResponseSpec): Record<string, unknown> {
    const body = spec.body;
    let contentTypes: ReadonlyArray<string> = ["application/json"];
    let schema: JsonSchema;
    if ("raw" in body) {
      if (body.contentType !== undefined)
        contentTypes = typeof body.contentType === "string" ? [body.contentType] : body.contentType;
      schema = this.schema(body.raw, "output");
    } else if (body.envelope === "page") {
      schema = envelopeSchema(this.schema(body.items, "output"), true);
    } else if (body.envelope === "cursorPage") {
      schema = envelopeSchema(this.schema(body.items, "output"), "cursor");
    } else {
      schema = envelopeSchema(this.schema(body.schema, "output"), false);
    }
    return {
      description: spec.description,
      headers: this.headers(spec.headers),
      content: Object.fromEntries(contentTypes.map((type) => [type, { schema }])),
    };
  }

  /** One code: a shared component response; several: inline, with the code restricted to them. */
  error(status: number, codes: string[]): Record<string, unknown> {
    if (codes.length === 1) {
      const code = codes[0] as ErrorCode;
      const name = pascal(code);
      if (!this.responses.has(name)) this.responses.set(name, this.errorResponse(status, [code]));
      return { $ref: `#/components/responses/${name}` };
    }
    return this.errorResponse(status, codes as ErrorCode[]);
  }

  errorResponse(status: number, codes: ErrorCode[]): Record<string, unknown> {
    const description = codes.map((c) => `\`${c}\`: ${ERROR_CODES[c].description}`).join(" ");
    const schema = {
      allOf: [
        { $ref: "#/components/schemas/ErrorEnvelope" },
        { properties: { error: { properties: { code: { enum: codes } } } } },
      ],
    };
    return {
      description,
      headers: this.headers(ERROR_HEADERS[status]),
      content: { "application/json": { schema } },
    };
  }
}

function security(auth: Auth): Array<Record<string, string[]>> {
  if ("scope" in auth) return [{ [SECURITY.oauth2]: [auth.scope] }];
  if ("clientCredentials" in auth) return [{ [SECURITY.basic]: [] }];
  return [];
}

function environmentNote(op: OperationSpec): string | undefined {
  if (!op.environments) return undefined;
  const missing = (["production", "sandbox"] as const).filter((e) => !op.environments?.includes(e));
  return missing.length === 0
    ? undefined
    : `Exists in ${op.environments.join(" and ")} only: the ${missing.join(" and ")} has no such route (its document leaves it out, and a request is 404 NOT_FOUND there).`;
}

function operationObject(b: Builder, op: OperationSpec): Record<string, unknown> {
  const parameters: OpenApiParameter[] = [
    ...namedParameters("path", op.pathParams),
    ...(op.query ? queryParameters(op.operationId, op.query) : []),
    ...namedParameters("header", op.headers),
  ];
  const declared = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  const described = Object.keys(op.pathParams ?? {});
  if (declared.join() !== described.join())
    throw new Error(
      `${op.operationId}: path parameters ${declared.join()} but described ${described.join()}`,
    );

  const responses: Record<string, unknown> = {};
  for (const [status, spec] of Object.entries(op.responses)) responses[status] = b.success(spec);
  const note = environmentNote(op);
  const errors = mergeErrors(baseErrors(op.auth), op.errors);
  for (const [status, codes] of [...errors.entries()].sort(([a], [b]) => a - b)) {
    if (responses[String(status)])
      throw new Error(`${op.operationId}: status ${status} is both a success and an error`);
    responses[String(status)] = b.error(status, codes);
  }

  const description = [op.description, note].filter(Boolean).join("\n\n");
  return {
    operationId: op.operationId,
    summary: op.summary,
    ...(description ? { description } : {}),
    tags: [op.tag],
    security: security(op.auth),
    ...(op.environments ? { "x-environments": [...op.environments] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(op.requestBody
      ? {
          requestBody: {
            ...(op.requestBody.description ? { description: op.requestBody.description } : {}),
            required: op.requestBody.required !== false,
            content: {
              [op.requestBody.contentType ?? "application/json"]: {
                schema: b.schema(op.requestBody.schema, "input"),
              },
            },
          },
        }
      : {}),
    responses: sortedObject(Object.entries(responses)),
  };
}

const EVENT_HEADERS: Array<[string, string, JsonSchema]> = [
  [
    "X-SVC-Event-Id",
    "The event_uuid; deduplicate on it (delivery is at least once).",
    { type: "string", format: "uuid" },
  ],
  ["X-SVC-Event-Type", "The event type.", { type: "string" }],
  [
    "X-SVC-Timestamp",
    "Unix seconds (UTC) of this attempt; reject a delivery more than 300 s from your clock.",
    { type: "string", pattern: "^\\d+$" },
  ],
  [
    "X-SVC-Signature",
    "`v1=` + hex HMAC-SHA256 of `<timestamp>.<raw body>` keyed with the subscription secret; during a secret rotation overlap two values, newest first (`v1=<new>,v1=<old>`). Verify over the raw body, in constant time.",
    { type: "string", pattern: "^v1=[0-9a-f]{64}(,v1=[0-9a-f]{64})*$" },
  ],
  [
    "X-SVC-Delivery-Id",
    "The delivery record's id (one per subscription and event).",
    { type: "string", format: "uuid" },
  ],
];

/** What an event type tells a subscriber (the document's webhooks, the event catalogue route). */
export function eventDescription(type: EventType): string {
  const entity = EVENT_CATALOGUE[type];
  return type === "system.ping"
    ? "A test event sent by `POST /v1/webhooks/{webhook_uuid}/test`."
    : `A ${entity.replace("_", " ")} was ${type.split(".")[1]}; fetch its current state from \`links.self\`.`;
}

function webhookObject(type: EventType): Record<string, unknown> {
  const production = !eventTypesFor("sandbox").includes(type);
  const what = eventDescription(type);
  return {
    post: {
      operationId: `event_${type.replace(/[.]/g, "_")}`,
      summary: `${type} event`,
      description: `${what} Webhooks are notifications, not data.${production ? " Production only: the sandbox catalogue omits it." : ""}`,
      tags: ["Webhook events"],
      // Deliveries carry no token: the receiver verifies X-SVC-Signature with the subscription
      // secret.
      security: [],
      ...(production ? { "x-environments": ["production"] } : {}),
      parameters: EVENT_HEADERS.map(([name, description, schema]) => ({
        name,
        in: "header",
        required: true,
        description,
        schema,
      })),
      requestBody: {
        required: true,
        content: {
          "application/json": { schema: { $ref: `#/components/schemas/${eventSchemaName(type)}` } },
        },
      },
      responses: {
        "2XX": { description: "Received; any 2xx is success (answer 2xx to a duplicate as well)." },
        "4XX": {
          description: "Final failure, not retried, except 408, 425 and 429, which are retried.",
        },
        "5XX": {
          description:
            "Retried on the retry schedule (+1 min, +5 min, +15 min, +1 h, +6 h); the sixth failure is `dead`.",
        },
      },
    },
  };
}

export function eventSchemaName(type: EventType): string {
  return `Event_${type.replace(/[.]/g, "_")}`;
}

/**
 * How a path answers a method none of its operations takes: one operation's `otherMethods`, or
 * 405 METHOD_NOT_ALLOWED with `Allow`.
 */
function otherMethods(b: Builder, ops: ReadonlyArray<OperationSpec>): unknown {
  const own = ops.map((op) => op.otherMethods).filter((answer) => answer !== undefined);
  if (own.length > 1) throw new Error(`${ops[0]?.path}: more than one otherMethods`);
  // Inline: a linter counts no reference from an extension as a use of a component.
  return own[0] ? b.success(own[0]) : b.errorResponse(405, ["METHOD_NOT_ALLOWED"]);
}

/**
 * The event types of other environments leave the document entirely: from every `enum` (the
 * subscription's `event_types`, the feed's `event_type`) and every `oneOf` of references.
 */
function withoutEventTypes(node: unknown, absent: ReadonlySet<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) withoutEventTypes(item, absent);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  const object = node as Record<string, unknown>;
  if (Array.isArray(object.enum))
    object.enum = object.enum.filter((value) => typeof value !== "string" || !absent.has(value));
  if (Array.isArray(object.oneOf)) {
    const refs = [...absent].map((t) => `#/components/schemas/${eventSchemaName(t as EventType)}`);
    object.oneOf = object.oneOf.filter(
      (item) => !refs.includes((item as { $ref?: string } | null)?.$ref ?? ""),
    );
  }
  for (const value of Object.values(object)) withoutEventTypes(value, absent);
}

/** The OpenAPI 3.1 document of the public API of one environment. */
export function buildOpenApiDocument(input: DocumentInput): OpenApiDocument {
  const b = new Builder();
  const eventTypes = eventTypesFor(input.environment);
  const operations = input.operations.filter((op) => existsIn(op, input.environment));
  b.register("RequestId", requestIdSchema);
  b.register("Pagination", paginationSchema);
  b.register("Meta", metaSchema(false));
  b.register("PageMeta", metaSchema(true));
  b.register("CursorPagination", cursorPaginationSchema);
  b.register("CursorPageMeta", metaSchema("cursor"));
  b.register("ErrorEnvelope", errorEnvelopeSchema);
  b.register("FieldMetadata", FIELD_METADATA_SCHEMA);
  for (const type of eventTypes) b.register(eventSchemaName(type), eventPayloadSchema(type));

  const ids = new Set<string>();
  const paths = new Map<string, Record<string, unknown>>();
  for (const op of operations) {
    if (ids.has(op.operationId)) throw new Error(`duplicate operationId ${op.operationId}`);
    ids.add(op.operationId);
    const item = paths.get(op.path) ?? {};
    if (item[op.method]) throw new Error(`${op.method.toUpperCase()} ${op.path} is declared twice`);
    item[op.method] = operationObject(b, op);
    paths.set(op.path, item);
  }
  const orderedPaths = sortedObject(
    [...paths].map(
      ([path, item]) =>
        [
          path,
          {
            ...Object.fromEntries(METHOD_ORDER.filter((m) => item[m]).map((m) => [m, item[m]])),
            "x-other-methods": otherMethods(
              b,
              operations.filter((op) => op.path === path),
            ),
          },
        ] as [string, Record<string, Record<string, unknown>>],
    ),
  );

  const usedTags = new Set(operations.map((o) => o.tag));
  const tags = input.tags
    .filter((t) => usedTags.has(t.name))
    .map((t) => ({ name: t.name, description: t.description }));
  const missing = [...usedTags].filter((t) => !input.tags.some((d) => d.name === t));
  if (missing.length > 0) throw new Error(`tags without a description: ${missing.join(", ")}`);
  tags.push({
    name: "Webhook events",
    description: "What a subscription's endpoint receives: a signed POST per event.",
  });

  const document: OpenApiDocument = {
    openapi: "3.1.0",
    info: {
      title: input.title,
      version: input.version,
      description: input.description,
      "x-environment": input.environment,
    },
    servers: [
      {
        url: "/",
        description:
          "This installation (production and the sandbox each have their own base address).",
      },
    ],
    tags,
    paths: orderedPaths,
    webhooks: sortedObject(
      eventTypes.map(
        (type) => [type, webhookObject(type)] as [string, Record<string, Record<string, unknown>>],
      ),
    ),
    components: {
      schemas: sortedObject(b.schemas),
      responses: sortedObject(b.responses),
      headers: Object.fromEntries(
        Object.entries(REQUEST_ID_HEADER).map(([name, h]) => [
          name,
          { description: h.description, required: h.required === true, schema: h.schema },
        ]),
      ),
      securitySchemes: {
        [SECURITY.oauth2]: {
          type: "oauth2",
          description:
            "OAuth 2.0 client credentials: send the token as `Authorization: Bearer <token>`. A token without the operation's scope is 403 INSUFFICIENT_SCOPE.",
          flows: { clientCredentials: { tokenUrl: "/oauth/token", scopes: { ...input.scopes } } },
        },
        [SECURITY.basic]: {
          type: "http",
          scheme: "basic",
          description: "The client id and secret as HTTP Basic credentials (token endpoint only).",
        },
      },
    },
  };
  withoutEventTypes(document, new Set(EVENT_TYPES.filter((type) => !eventTypes.includes(type))));
  return document;
}

/** The document as the checked-in file holds it: two-space JSON and a trailing newline. */
export function serializeDocument(document: OpenApiDocument): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
