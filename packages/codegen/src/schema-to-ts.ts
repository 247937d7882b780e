/**
 * JSON Schema (the subset the OpenAPI document uses) → TypeScript type text. `{"type":"null"}`
 * and `["string","null"]` become `null` members of the type, so nullable fields stay typed.
 */

export type Schema = {
  $ref?: string;
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  description?: string;
  format?: string;
  pattern?: string;
};

/** A type name from a component reference: `#/components/schemas/Vacancy` → `Vacancy`. */
export function refName(ref: string): string {
  const name = ref.split("/").pop() ?? "";
  return name.replace(/[^A-Za-z0-9_]/g, "_");
}

const PRIMITIVES: Record<string, string> = {
  string: "string",
  integer: "number",
  number: "number",
  boolean: "boolean",
  null: "null",
};

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function union(members: string[]): string {
  const unique = [...new Set(members)];
  if (unique.length === 0) return "never";
  return unique.length === 1 ? unique[0]! : unique.map(parenthesise).join(" | ");
}

function parenthesise(member: string): string {
  return /^[^{(]*[&|]/.test(member) ? `(${member})` : member;
}

function docComment(text: string | undefined, indent: string): string {
  if (!text) return "";
  const body = text.replace(/\*\//g, "*\\/").split("\n");
  if (body.length === 1) return `${indent}/** ${body[0]} */\n`;
  return `${indent}/**\n${body.map((l) => `${indent} * ${l}`.trimEnd()).join("\n")}\n${indent} */\n`;
}

function objectType(schema: Schema, indent: string): string {
  const inner = `${indent}  `;
  const required = new Set(schema.required ?? []);
  const lines = Object.entries(schema.properties ?? {}).map(([key, prop]) => {
    const name = IDENTIFIER.test(key) ? key : JSON.stringify(key);
    const optional = required.has(key) ? "" : "?";
    return `${docComment(prop.description, inner)}${inner}${name}${optional}: ${schemaToTs(prop, inner)};`;
  });
  const extra = schema.additionalProperties;
  if (extra !== false && (extra !== undefined || lines.length === 0)) {
    const value = typeof extra === "object" ? schemaToTs(extra, inner) : "unknown";
    lines.push(`${inner}[key: string]: ${value};`);
  }
  // An object that may have no members at all.
  if (lines.length === 0) return "Record<string, never>";
  return `{\n${lines.join("\n")}\n${indent}}`;
}

function typedMembers(schema: Schema, indent: string): string[] {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type!];
  return types.map((t) => {
    if (t === "object") return objectType(schema, indent);
    if (t === "array")
      return `Array<${schema.items ? schemaToTs(schema.items, indent) : "unknown"}>`;
    return PRIMITIVES[t] ?? "unknown";
  });
}

/** The TypeScript type of one schema; `indent` is the indentation of the line it starts on. */
export function schemaToTs(schema: Schema, indent = ""): string {
  if (schema.$ref) return refName(schema.$ref);
  if ("const" in schema) return JSON.stringify(schema.const);
  if (schema.enum) return union(schema.enum.map((v) => JSON.stringify(v)));
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return union(alternatives.map((s) => schemaToTs(s, indent)));
  if (schema.allOf) {
    // The node's own type, and each member that says more than `unknown` (a `pattern` alone does
    // not).
    const own = schema.type !== undefined ? [union(typedMembers(schema, indent))] : [];
    const parts = [...own, ...schema.allOf.map((s) => schemaToTs(s, indent))];
    const known = parts.filter((part) => part !== "unknown");
    return known.length === 0 ? "unknown" : known.map(parenthesise).join(" & ");
  }
  if (schema.type !== undefined) return union(typedMembers(schema, indent));
  if (schema.properties) return objectType(schema, indent);
  return "unknown";
}

/** `export type Name = …;` with the schema's description as its doc comment. */
export function typeDeclaration(name: string, schema: Schema): string {
  return `${docComment(schema.description, "")}export type ${name} = ${schemaToTs(schema)};\n`;
}
