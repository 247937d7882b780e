import type { FieldSpec } from "./catalogue.ts";

export type JsonSchema = Record<string, unknown>;

function leafSchema(field: FieldSpec): JsonSchema {
  if (field.type === "null") return { type: "null", description: field.description };
  const schema: JsonSchema = {
    type: field.nullable ? [field.type, "null"] : field.type,
    description: field.description,
  };
  const values = field.allowedValues?.map((v) => v.value);
  if (field.type === "array")
    schema.items = values
      ? { type: field.items ?? "string", enum: values }
      : { type: field.items ?? "string" };
  else if (values) schema.enum = [...values, ...(field.nullable ? [null] : [])];
  return schema;
}

/**
 * The JSON Schema (2020-12) of a resource, built from its catalogue: nested objects from dotted
 * paths, every property required, nothing else allowed. Tests validate responses with it and the
 * OpenAPI document embeds it, so the response shape is described once.
 */
export function toJsonSchema(fields: ReadonlyArray<FieldSpec>): JsonSchema {
  const root: JsonSchema = {
    type: "object",
    properties: {},
    required: [],
    additionalProperties: false,
  };
  for (const field of fields) {
    const parts = field.path.split(".");
    let node = root;
    for (const part of parts.slice(0, -1)) {
      const props = node.properties as Record<string, JsonSchema>;
      if (!props[part]) {
        props[part] = { type: "object", properties: {}, required: [], additionalProperties: false };
        (node.required as string[]).push(part);
      }
      node = props[part];
    }
    const leaf = parts[parts.length - 1] as string;
    (node.properties as Record<string, JsonSchema>)[leaf] = leafSchema(field);
    (node.required as string[]).push(leaf);
  }
  return root;
}
