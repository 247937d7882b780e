import { z } from "zod";
import type { JsonSchema, ParameterSpec, SchemaSource } from "./operation.ts";

function isZod(source: SchemaSource): source is z.ZodType {
  return source instanceof z.ZodType;
}

/**
 * A regular expression's source made case-insensitive without flags (JSON Schema patterns have
 * none): `[0-9a-f]` → `[0-9a-fA-F]`, a letter outside a class → `[xX]`. Escapes are kept as they
 * are.
 */
export function caseInsensitivePattern(source: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < source.length; i += 1) {
    const c = source[i] as string;
    if (c === "\\") {
      out += c + (source[i + 1] ?? "");
      i += 1;
    } else if (inClass) {
      if (c === "]") inClass = false;
      const range = /^([a-z])-([a-z])/.exec(source.slice(i));
      if (range) {
        out += `${range[0]}${(range[1] as string).toUpperCase()}-${(range[2] as string).toUpperCase()}`;
        i += 2;
      } else out += /[a-z]/.test(c) ? c + c.toUpperCase() : c;
    } else {
      if (c === "[") inClass = true;
      out += /[a-zA-Z]/.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c;
    }
  }
  return out;
}

type Bag = { _zod?: { bag?: { patterns?: Set<RegExp> } } };

/**
 * zod drops a regex's `i` flag when it writes `pattern`; put the case-insensitivity into the
 * pattern itself.
 */
function keepCaseInsensitivity(ctx: { zodSchema: unknown; jsonSchema: JsonSchema }): void {
  const patterns = [...((ctx.zodSchema as Bag)._zod?.bag?.patterns ?? [])];
  const caseless = patterns.find((p) => p.flags.includes("i"));
  if (caseless && patterns.length === 1)
    ctx.jsonSchema.pattern = caseInsensitivePattern(caseless.source);
}

/**
 * JSON Schema 2020-12 of a zod schema: `input` for what a client sends (query strings, bodies),
 * `output` for what a parser yields (a query parameter's number or boolean). Transforms that zod
 * cannot describe carry their schema in `.meta()` (see @svc/http `q`).
 */
export function toSchema(source: SchemaSource, io: "input" | "output"): JsonSchema {
  if (!isZod(source)) return structuredClone(source);
  const schema = z.toJSONSchema(source, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
    override: keepCaseInsensitivity,
  }) as JsonSchema;
  delete schema.$schema;
  return schema;
}

export interface OpenApiParameter {
  name: string;
  in: "path" | "query" | "header";
  description: string;
  required: boolean;
  schema: JsonSchema;
  /** An array in the query: its items comma-separated in one value (`q.list` of @svc/http). */
  style?: "form";
  explode?: false;
  example?: unknown;
}

/**
 * The query parameters of a `parseQuery` shape: the parsed value's schema (an integer with its
 * bounds and default, a boolean, a string with its limits), required when the shape requires it.
 * Every parameter must describe itself (`.meta({ description })`), so the document explains each.
 */
export function queryParameters(
  operationId: string,
  shape: Readonly<Record<string, z.ZodType>>,
): OpenApiParameter[] {
  const object = z.object(shape);
  const output = toSchema(object, "output");
  const required = new Set((toSchema(object, "input").required as string[] | undefined) ?? []);
  const properties = (output.properties ?? {}) as Record<string, JsonSchema>;
  return Object.keys(shape).map((name) => {
    const schema = { ...(properties[name] ?? {}) };
    const description = schema.description;
    if (typeof description !== "string" || description === "")
      throw new Error(
        `${operationId}: query parameter '${name}' has no description (.meta({ description }))`,
      );
    delete schema.description;
    const list = schema.type === "array" ? { style: "form" as const, explode: false as const } : {};
    return {
      name,
      in: "query" as const,
      description,
      required: required.has(name),
      ...list,
      schema,
    };
  });
}

/** Path and header parameters from their descriptors. */
export function namedParameters(
  where: "path" | "header",
  specs: Record<string, ParameterSpec> | undefined,
): OpenApiParameter[] {
  return Object.entries(specs ?? {}).map(([name, spec]) => ({
    name,
    in: where,
    description: spec.description,
    required: where === "path" ? true : spec.required === true,
    schema: toSchema(spec.schema, "input"),
    ...(spec.example === undefined ? {} : { example: spec.example }),
  }));
}
