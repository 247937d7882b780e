export {
  IntegrationClient,
  type ApiResult,
  type CallParams,
  type ClientOptions,
  type OperationId,
  type PagedOperationId,
} from "./client.ts";
export * from "./errors.ts";
export type { RetryOptions } from "./retry.ts";
export * from "./generated/api.ts";
