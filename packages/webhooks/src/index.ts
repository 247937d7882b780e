export {
  DEFAULT_TOLERANCE_SECONDS,
  sign,
  verify,
  WebhookVerificationError,
  type SignedHeaders,
  type VerificationFailure,
  type VerifyOptions,
} from "./verify.ts";
export { createWebhookHandler, type Delivery, type HandlerOptions } from "./handler.ts";
export * from "./generated/events.ts";
