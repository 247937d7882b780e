export { KINDS, SOURCES, type FieldKind, type FieldSource } from "./kinds.ts";
export {
  fieldMetadata,
  jsonTypeOf,
  metadataResource,
  type AllowedValue,
  type FieldMetadata,
  type FieldSpec,
  type JsonType,
  type ObservedValue,
  type ResourceInfo,
} from "./catalogue.ts";
export { toJsonSchema, type JsonSchema } from "./json-schema.ts";
export { conformanceProblems } from "./conformance.ts";
