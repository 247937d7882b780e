import type { FieldSpec } from "./catalogue.ts";

function typeOfValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function leaves(value: unknown, prefix = ""): Array<[string, unknown]> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return [[prefix, value]];
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
    leaves(v, prefix ? `${prefix}.${k}` : k),
  );
}

/**
 * Every way a response object disagrees with its catalogue: a field the catalogue does not know,
 * a catalogued field missing, a wrong type, a null where null is not allowed, a value outside an
 * enum. Empty means the object conforms.
 */
export function conformanceProblems(fields: ReadonlyArray<FieldSpec>, resource: unknown): string[] {
  const byPath = new Map(fields.map((f) => [f.path, f]));
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const [path, value] of leaves(resource)) {
    const field = byPath.get(path);
    if (!field) {
      problems.push(`${path}: not in the catalogue`);
      continue;
    }
    seen.add(path);
    const actual = typeOfValue(value);
    if (actual === "null") {
      if (!field.nullable && field.type !== "null") problems.push(`${path}: null but not nullable`);
      continue;
    }
    const fits = actual === field.type || (field.type === "number" && actual === "integer");
    if (!fits) problems.push(`${path}: ${actual}, catalogue says ${field.type}`);
    // For a list, the allowed values apply to its items.
    const allowed = (v: unknown) =>
      !field.allowedValues || field.allowedValues.some((a) => a.value === v);
    if (field.type !== "array" && !allowed(value))
      problems.push(`${path}: '${String(value)}' not an allowed value`);
    if (field.type === "array" && Array.isArray(value)) {
      for (const item of value) {
        if (field.items && typeOfValue(item) !== field.items)
          problems.push(`${path}[]: ${typeOfValue(item)}, catalogue says ${field.items}`);
        if (!allowed(item)) problems.push(`${path}[]: '${String(item)}' not an allowed value`);
      }
    }
  }
  for (const path of byPath.keys())
    if (!seen.has(path)) problems.push(`${path}: missing from the response`);
  return problems;
}
