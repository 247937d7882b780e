export { claimSpec, holderOf, isAcquirable, releaseSpec, renewSpec } from "./lease-record.ts";
export { formatMicroTime, microTimeOf, parseMicroTime, type EpochMicros } from "./micro-time.ts";
export {
  ReconcileLoop,
  type Reconcile,
  type ReconcileLoopOptions,
  type ReconcileRequest,
} from "./reconcile-loop.ts";
export {
  ListWatch,
  objectKey,
  type ListWatchOptions,
  type ResourceKind,
  type WatchEventType,
} from "./list-watch.ts";
export { WorkQueue, type WorkQueueOptions } from "./work-queue.ts";
export { withSignal, withTimeout } from "./request-options.ts";
export { statusCodeOf, isConflict, isGone, isNotFound, describeError } from "./api-errors.ts";
export {
  DISPATCHER_PERMISSIONS,
  missingPermissions,
  unusedGrants,
  type Permission,
  type PolicyRule,
} from "./rbac.ts";
export type { Logger } from "./logger.ts";
export {
  InvalidSubscriptionError,
  type DesiredSubscription,
  type EnsureOptions,
  type EnsureResult,
  type InvalidSubscriptionReason,
  type SubscriptionPort,
  type SubscriptionRef,
} from "./webhook-subscription/port.ts";
export {
  WebhookSubscriptionReconciler,
  type WebhookSubscriptionReconcilerOptions,
} from "./webhook-subscription/reconciler.ts";
export {
  createWebhookSubscriptionController,
  type WebhookSubscriptionControllerOptions,
} from "./webhook-subscription/controller.ts";
export {
  SECRET_KEY,
  SUBSCRIPTION_FINALIZER,
  WEBHOOK_SUBSCRIPTION,
  webhookSubscriptionKind,
  type Condition,
  type WebhookSubscription,
  type WebhookSubscriptionSpec,
  type WebhookSubscriptionStatus,
} from "./webhook-subscription/types.ts";
