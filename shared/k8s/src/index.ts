export { claimSpec, holderOf, isAcquirable, releaseSpec, renewSpec } from "./lease-record.ts";
export { formatMicroTime, microTimeOf, parseMicroTime, type EpochMicros } from "./micro-time.ts";
export {
  ReconcileLoop,
  type Reconcile,
  type ReconcileLoopOptions,
  type ReconcileRequest,
  type SecondaryWatch,
} from "./reconcile-loop.ts";
export {
  controllerMetrics,
  NO_METRICS,
  type ControllerMetrics,
  type ReconcileResult,
} from "./controller-metrics.ts";
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
export { grantList, missingPermissions, type Permission, type PolicyRule } from "./rbac.ts";
export { EventRecorder, type EventType as KubernetesEventType } from "./event-recorder.ts";
export { loadKubeConfig } from "./kube-config.ts";
