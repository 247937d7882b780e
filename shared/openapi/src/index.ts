export {
  expressPath,
  type Auth,
  type Environment,
  type ErrorCodes,
  type HeaderSpec,
  type HttpMethod,
  type JsonSchema,
  type NamedSchema,
  type OperationSpec,
  type ParameterSpec,
  type ResponseBody,
  type ResponseSpec,
  type SchemaRef,
  type SchemaSource,
  type ServiceOpenApi,
  type TagSpec,
  uuidPathParams,
} from "./operation.ts";
export {
  baseErrors,
  buildOpenApiDocument,
  eventDescription,
  existsIn,
  eventSchemaName,
  serializeDocument,
  type DocumentInput,
  type OpenApiDocument,
} from "./document.ts";
export { caseInsensitivePattern, queryParameters, toSchema } from "./convert.ts";
export {
  catalogueSchema,
  doc,
  ERROR_CODES,
  eventPayloadSchema,
  metadataResourceSchema,
  type ErrorCode,
} from "./schemas.ts";
export { PLATFORM_OPERATIONS } from "./platform.ts";
export { createPathMatcher, type PathMatch } from "./path-match.ts";
export {
  OPENAPI_JSON_PATH,
  OPENAPI_JSON_PATHS,
  readOpenApiDocument,
  readOpenApiJson,
} from "./checked-in.ts";
export type { SameKeys, SameUnion } from "./same-keys.ts";
