import { KINDS, SOURCES, type FieldKind, type FieldSource } from "./kinds.ts";

export type JsonType = "string" | "number" | "integer" | "boolean" | "array" | "object";

export interface AllowedValue {
  value: string;
  description: string;
}

export interface ObservedValue {
  value: string;
  note: string;
}

/** One response field: the single description the mapper, the metadata and the OpenAPI follow. */
export interface FieldSpec {
  /** Dotted path in the resource, e.g. `address.city`. */
  path: string;
  /** The JSON type when not null (`reserved` fields are always null: use "null"). */
  type: JsonType | "null";
  /** Element type for `array` fields. */
  items?: JsonType;
  nullable: boolean;
  kind: FieldKind;
  source: FieldSource;
  description: string;
  allowedValues?: AllowedValue[];
  referenceList?: string;
  references?: string;
  example: unknown;
}

/** A metadata `fields` entry, exactly the contract's shape. */
export interface FieldMetadata {
  path: string;
  json_type: string | string[];
  nullable: boolean;
  kind: FieldKind;
  description: string;
  source: FieldSource;
  picklist: boolean;
  allowed_values: AllowedValue[] | null;
  reference_list: string | null;
  references: string | null;
  observed_values: ObservedValue[] | null;
  example: unknown;
}

export interface ResourceInfo {
  resource: string;
  endpoint: string;
  identifier: string;
  schemaVersion: number;
}

export function jsonTypeOf(field: FieldSpec): string | string[] {
  if (field.type === "null") return "null";
  return field.nullable ? [field.type, "null"] : field.type;
}

export function fieldMetadata(field: FieldSpec, observed?: ObservedValue[]): FieldMetadata {
  return {
    path: field.path,
    json_type: jsonTypeOf(field),
    nullable: field.nullable,
    kind: field.kind,
    description: field.description,
    source: field.source,
    picklist: field.kind === "enum" || field.kind === "reference_list",
    allowed_values: field.allowedValues ?? null,
    reference_list: field.referenceList ?? null,
    references: field.references ?? null,
    observed_values: observed ?? null,
    example: field.example,
  };
}

/** The contract's metadata resource for one catalogue. */
export function metadataResource(
  info: ResourceInfo,
  fields: ReadonlyArray<FieldSpec>,
  options: {
    referenceLists?: Record<string, unknown>;
    observedValues?: Record<string, ObservedValue[]>;
    /** Event type → what its `occurred_at` means, for the resource's events. */
    events?: Readonly<Record<string, string>>;
  } = {},
) {
  return {
    resource: info.resource,
    endpoint: info.endpoint,
    identifier: info.identifier,
    schema_version: info.schemaVersion,
    fields: fields.map((f) => fieldMetadata(f, options.observedValues?.[f.path])),
    reference_lists: options.referenceLists ?? {},
    kinds: { ...KINDS },
    sources: { ...SOURCES },
    events: Object.fromEntries(
      Object.entries(options.events ?? {}).map(([type, meaning]) => [
        type,
        { occurred_at: meaning },
      ]),
    ),
  };
}
