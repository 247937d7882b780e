import { conformanceProblems, type FieldSpec } from "@svc/catalogue";
import { TABLES } from "@svc/legacy";
import { COLUMNS } from "@svc/sandbox";
import { PRACTICE_FIELDS } from "../../src/domain/practice-catalogue.ts";

function valueAt(resource: unknown, path: string): unknown {
  return path
    .split(".")
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], resource);
}

/**
 * conformanceProblems against the practice catalogue. @svc/catalogue compares an array field's
 * allowed values with the array itself (so `warnings: []` would always fail); enum arrays are
 * checked element by element here instead.
 */
export function practiceProblems(resource: unknown): string[] {
  const enumArrays = PRACTICE_FIELDS.filter((f) => f.type === "array" && f.allowedValues);
  const fields: FieldSpec[] = PRACTICE_FIELDS.map((f) =>
    enumArrays.includes(f) ? { ...f, allowedValues: undefined } : f,
  );
  const problems = conformanceProblems(fields, resource);
  for (const field of enumArrays) {
    const value = valueAt(resource, field.path);
    for (const item of Array.isArray(value) ? value : []) {
      if (!field.allowedValues?.some((a) => a.value === item))
        problems.push(`${field.path}[]: '${String(item)}' not an allowed value`);
    }
  }
  return problems;
}

// Some legacy column names are also contract field names (`alias`, `email`, `logo`, `crm_id`):
// those are the contract's own keys, so only the others give a legacy name away.
const SPEC_KEYS = new Set(PRACTICE_FIELDS.flatMap((f) => f.path.split(".")));
const LEGACY_NAMES = new Set<string>(
  [...Object.values(TABLES), ...Object.values(COLUMNS).flat()].filter(
    (name) => !SPEC_KEYS.has(name),
  ),
);

/** Every object key anywhere in a response that is a legacy table or column name. */
export function legacyKeysIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(legacyKeysIn);
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, child]) => [
    ...(LEGACY_NAMES.has(key) ? [key] : []),
    ...legacyKeysIn(child),
  ]);
}
