/**
 * The client's generated module: every component schema as a type, and every `/v1` operation
 * (path, method, parameters, body, success bodies, paging) as a type and a runtime table entry.
 */
import { schemaToTs, typeDeclaration, type Schema } from "./schema-to-ts.ts";

type Parameter = { name: string; in: string; required?: boolean; schema: Schema };
type Response = { $ref?: string; content?: Record<string, { schema: Schema }> };
type Operation = {
  operationId: string;
  summary?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, Response>;
};
export type OpenApiDocument = {
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};

const METHODS = ["get", "post", "put", "patch", "delete"];

export const HEADER = `// Generated from the OpenAPI document by packages/codegen; do not edit. Regenerate: npm run generate.\n`;

function paramsType(params: Parameter[], where: string, indent: string): string | undefined {
  const chosen = params.filter((p) => p.in === where && p.name !== "Idempotency-Key");
  if (chosen.length === 0) return undefined;
  return schemaToTs(
    {
      type: "object",
      additionalProperties: false,
      properties: Object.fromEntries(chosen.map((p) => [p.name, p.schema])),
      required: chosen.filter((p) => p.required).map((p) => p.name),
    },
    indent,
  );
}

function successType(op: Operation, indent: string): string {
  const bodies = Object.entries(op.responses)
    .filter(([status]) => status.startsWith("2"))
    .map(([, r]) => r.content?.["application/json"]?.schema)
    .filter((s): s is Schema => s !== undefined)
    .map((s) => schemaToTs(s, indent));
  return [...new Set(bodies)].join(" | ") || "unknown";
}

type Entry = { id: string; method: string; path: string; op: Operation };

function operations(doc: OpenApiDocument): Entry[] {
  return Object.entries(doc.paths)
    .filter(([path]) => path.startsWith("/v1/"))
    .flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((m) => ({
        id: item[m]!.operationId,
        method: m.toUpperCase(),
        path,
        op: item[m]!,
      })),
    )
    .sort((a, b) => a.id.localeCompare(b.id));
}

function operationType({ id, method, path, op }: Entry): string {
  const i = "    ";
  const params = op.parameters ?? [];
  const body = op.requestBody?.content["application/json"]?.schema;
  const members = [
    `method: ${JSON.stringify(method)};`,
    `path: ${JSON.stringify(path)};`,
    `pathParams: ${paramsType(params, "path", i) ?? "never"};`,
    `query: ${paramsType(params, "query", i) ?? "never"};`,
    `headers: ${paramsType(params, "header", i) ?? "never"};`,
    `body: ${body ? schemaToTs(body, i) : "never"};`,
    `bodyRequired: ${op.requestBody?.required === true};`,
    `idempotencyKey: ${takesIdempotencyKey(op)};`,
    `success: ${successType(op, i)};`,
  ];
  const doc = op.summary ? `  /** ${op.summary} */\n` : "";
  return `${doc}  ${id}: {\n${members.map((m) => `${i}${m}`).join("\n")}\n  };`;
}

function takesIdempotencyKey(op: Operation): boolean {
  return (op.parameters ?? []).some((p) => p.in === "header" && p.name === "Idempotency-Key");
}

function runtimeEntry({ id, method, path, op }: Entry): string {
  return `  ${id}: { method: ${JSON.stringify(method)}, path: ${JSON.stringify(path)}, idempotencyKey: ${takesIdempotencyKey(op)} },`;
}

function errorCodes(doc: OpenApiDocument): string[] {
  const envelope = doc.components.schemas.ErrorEnvelope;
  const codes = envelope?.properties?.error?.properties?.code?.enum;
  if (!codes) throw new Error("the document's ErrorEnvelope has no error.code enum");
  return codes.map(String);
}

/** The whole generated module for @integration-service/client. */
export function clientTypes(doc: OpenApiDocument): string {
  const schemas = Object.entries(doc.components.schemas).map(([name, schema]) =>
    typeDeclaration(name, schema),
  );
  const entries = operations(doc);
  return [
    HEADER,
    `/** The contract version these types were generated from. */`,
    `export const API_VERSION = ${JSON.stringify(doc.info.version)};\n`,
    `/** Every \`error.code\` of the contract. */`,
    `export const ERROR_CODES = ${JSON.stringify(errorCodes(doc))} as const;`,
    `export type ErrorCode = (typeof ERROR_CODES)[number];\n`,
    ...schemas,
    `/** Every /v1 operation by its operationId. */`,
    `export interface Operations {\n${entries.map(operationType).join("\n")}\n}\n`,
    `/** What the client needs at run time about each operation. */`,
    `export const OPERATIONS = {\n${entries.map(runtimeEntry).join("\n")}\n} as const;\n`,
  ].join("\n");
}
