/**
 * The descriptor of one public operation. Each service declares its operations once, in a module
 * its router also reads (paths, query shapes, body schemas), and the generator turns every
 * service's descriptors into the OpenAPI document. Shapes are never written twice: query
 * parameters are the zod shapes `parseQuery` validates, bodies the zod schemas the handlers parse,
 * responses the field catalogues or the services' response schemas.
 */
import type { z } from "zod";
import { UUID_PARAMETER_SCHEMA } from "@svc/http";

export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";
export type Environment = "production" | "sandbox";
export type JsonSchema = Record<string, unknown>;

/** A zod schema (converted with z.toJSONSchema) or a JSON Schema (2020-12) as it is. */
export type SchemaSource = z.ZodType | JsonSchema;

/** A schema published under components.schemas and referenced by name. */
export interface NamedSchema {
  name: string;
  schema: SchemaSource;
  description?: string;
}

export type SchemaRef = NamedSchema | SchemaSource;

export interface ParameterSpec {
  description: string;
  schema: SchemaSource;
  required?: boolean;
  example?: unknown;
}

export interface HeaderSpec {
  description: string;
  schema: JsonSchema;
  /**
   * A required response header is checked by the contract tests on every response of its status.
   */
  required?: boolean;
}

export type ResponseBody =
  /** The contract's success envelope around one resource. */
  | { envelope: "data"; schema: SchemaRef }
  /** The success envelope around a list page, with meta.pagination. */
  | { envelope: "page"; items: SchemaRef }
  /**
   * A list page walked by an opaque cursor: meta.pagination adds `next_cursor` and `has_more`
   * (the events feed).
   */
  | { envelope: "cursorPage"; items: SchemaRef }
  /**
   * Not in the envelope (health, OAuth token, the document itself); `contentType` default
   * `application/json`, several: the same schema under each (files of different types).
   */
  | { raw: SchemaRef; contentType?: string | ReadonlyArray<string> };

export interface ResponseSpec {
  description: string;
  body: ResponseBody;
  headers?: Record<string, HeaderSpec>;
}

/** Error statuses an operation can answer, each with its possible `error.code` values. */
export type ErrorCodes = Partial<Record<number, ReadonlyArray<string>>>;

export type Auth =
  /** A bearer token with this scope. */
  | { scope: string }
  /** Public, no token (health and version, and the document). */
  | { public: true }
  /** HTTP Basic client credentials (the token endpoint). */
  | { clientCredentials: true };

export interface OperationSpec {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI path template, e.g. `/v1/vacancies/{uuid}`; `expressPath` gives the router's form. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  auth: Auth;
  /**
   * Where the route exists; absent: every environment. The document of an environment the list
   * leaves out omits the operation (`x-environments` marks it in the others).
   */
  environments?: ReadonlyArray<Environment>;
  pathParams?: Record<string, ParameterSpec>;
  /** The shape the handler gives `parseQuery` (the same object, not a copy). */
  query?: Readonly<Record<string, z.ZodType>>;
  /** Request headers the operation reads. */
  headers?: Record<string, ParameterSpec>;
  requestBody?: {
    description?: string;
    contentType?: string;
    schema: SchemaRef;
    required?: boolean;
  };
  /**
   * Success responses by status; an operation that answers an error in a form of its own (the
   * token endpoint's RFC 6749 bodies) lists that status here too.
   */
  responses: Record<number, ResponseSpec>;
  /**
   * How the path answers a method none of its operations takes (the path item's
   * `x-other-methods`); absent: 405 METHOD_NOT_ALLOWED in the envelope, with `Allow`.
   */
  otherMethods?: ResponseSpec;
  /**
   * Error statuses beyond those every operation of its kind answers (`baseErrors`: 408 and 431 on
   * every operation; 400, 413, 415, 500 and 503 SERVICE_UNAVAILABLE on every public and guarded
   * one; 401 and 403 on every guarded one), with their codes.
   */
  errors?: ErrorCodes;
}

/** A group of operations (an OpenAPI tag) with its description. */
export interface TagSpec {
  name: string;
  description: string;
}

/**
 * What one service contributes to the OpenAPI document: its tags and operations, and (the token
 * issuer only) the description of every scope. Each service's `src/http/operations.ts` exports
 * it as `OPENAPI`; the generator reads every service the manifest names.
 */
export interface ServiceOpenApi {
  tags: ReadonlyArray<TagSpec>;
  operations: ReadonlyArray<OperationSpec>;
  scopes?: Readonly<Record<string, string>>;
}

/**
 * `/v1/vacancies/{uuid}` → `/v1/vacancies/:uuid`; a literal colon (`accounts:bulk`) is escaped for
 * path-to-regexp.
 */
export function expressPath(path: string): string {
  return path.replace(/:/g, "\\:").replace(/\{([A-Za-z0-9_]+)\}/g, ":$1");
}

/**
 * Path parameters that are uuids (`{ webhook_uuid: "subscription" }`), described and constrained
 * alike; the router reads each with `uuidParam` of @svc/http (one rule, docs/decisions/uuid-case.md).
 */
export function uuidPathParams(
  what: Readonly<Record<string, string>>,
): Record<string, ParameterSpec> {
  return Object.fromEntries(
    Object.entries(what).map(([name, entity]) => [
      name,
      {
        description: `The ${entity}'s uuid, in either case (answers write it in lower case); anything else is 422.`,
        schema: { ...UUID_PARAMETER_SCHEMA },
      },
    ]),
  );
}
