// A small validator for the OpenAPI v3 subset a structural CRD schema uses, strict about
// unknown fields like `kubectl apply --validate=strict`. CEL rules (x-kubernetes-validations)
// need the API server and are not evaluated here.

export interface SchemaNode {
  type?: "object" | "array" | "string" | "integer" | "number" | "boolean";
  properties?: Record<string, SchemaNode>;
  required?: string[];
  additionalProperties?: boolean | SchemaNode;
  items?: SchemaNode;
  enum?: unknown[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
  format?: string;
  nullable?: boolean;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-list-type"?: "atomic" | "set" | "map";
  "x-kubernetes-list-map-keys"?: string[];
}

const dateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function checkScalar(schema: SchemaNode, value: unknown, path: string, errors: string[]): void {
  if (schema.enum && !schema.enum.includes(value))
    errors.push(`${path}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  if (typeof value === "string") {
    if (schema.minLength !== undefined && value.length < schema.minLength)
      errors.push(`${path}: shorter than ${schema.minLength}`);
    if (schema.maxLength !== undefined && value.length > schema.maxLength)
      errors.push(`${path}: longer than ${schema.maxLength}`);
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, "u").test(value))
      errors.push(`${path}: does not match ${schema.pattern}`);
    if (schema.format === "date-time" && !dateTime.test(value))
      errors.push(`${path}: not a date-time`);
  }
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum)
      errors.push(`${path}: below ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum)
      errors.push(`${path}: above ${schema.maximum}`);
  }
}

function checkObject(
  schema: SchemaNode,
  value: Record<string, unknown>,
  path: string,
  errors: string[],
): void {
  for (const key of schema.required ?? [])
    if (!(key in value)) errors.push(`${path}: missing required field ${key}`);
  for (const [key, child] of Object.entries(value)) {
    const sub =
      schema.properties?.[key] ??
      (typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined);
    // The API server validates ObjectMeta itself; a CRD schema only types it as an object.
    if (path === "" && key === "metadata") {
      if (typeOf(child) !== "object") errors.push("/metadata: expected object");
    } else if (sub) validateNode(sub, child, `${path}/${key}`, errors);
    else if (
      !schema["x-kubernetes-preserve-unknown-fields"] &&
      schema.additionalProperties !== true
    )
      errors.push(`${path}/${key}: unknown field`);
  }
}

function checkArray(schema: SchemaNode, value: unknown[], path: string, errors: string[]): void {
  if (schema.minItems !== undefined && value.length < schema.minItems)
    errors.push(`${path}: fewer than ${schema.minItems} items`);
  if (schema.maxItems !== undefined && value.length > schema.maxItems)
    errors.push(`${path}: more than ${schema.maxItems} items`);
  const listType = schema["x-kubernetes-list-type"];
  const keyOf = (item: unknown): string =>
    listType === "map"
      ? JSON.stringify(
          (schema["x-kubernetes-list-map-keys"] ?? []).map(
            (k) => (item as Record<string, unknown>)[k],
          ),
        )
      : JSON.stringify(item);
  if (listType === "set" || listType === "map") {
    const keys = value.map(keyOf);
    if (new Set(keys).size !== keys.length)
      errors.push(`${path}: duplicate items in a list of type ${listType}`);
  }
  value.forEach(
    (item, i) => schema.items && validateNode(schema.items, item, `${path}/${i}`, errors),
  );
}

function validateNode(schema: SchemaNode, value: unknown, path: string, errors: string[]): void {
  if (value === null && schema.nullable) return;
  const actual = typeOf(value);
  const expected = schema.type;
  if (expected === undefined) {
    if (!schema["x-kubernetes-preserve-unknown-fields"])
      errors.push(`${path}: schema has no type (not structural)`);
    return;
  }
  if (actual !== expected && !(expected === "number" && actual === "integer")) {
    errors.push(`${path}: expected ${expected}, got ${actual}`);
    return;
  }
  if (actual === "object") checkObject(schema, value as Record<string, unknown>, path, errors);
  else if (actual === "array") checkArray(schema, value as unknown[], path, errors);
  else checkScalar(schema, value, path, errors);
}

/** Every problem of `value` against `schema`, as "path: problem" strings; empty when valid. */
export function validateAgainst(schema: SchemaNode, value: unknown): string[] {
  const errors: string[] = [];
  validateNode(schema, value, "", errors);
  return errors;
}
