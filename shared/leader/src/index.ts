export {
  LeadershipLostError,
  SoloElector,
  type Fence,
  type LeaderElector,
  type PgExecutor,
} from "./leader.ts";
export {
  PgAdvisoryLockElector,
  advisoryLockKey,
  type PgAdvisoryLockElectorOptions,
} from "./pg-advisory-lock-elector.ts";
export { LeaderGroup, type LeaderGroupOptions, type LeaderTask } from "./leader-group.ts";
export { createLeaderElector, createLeaderGroup, type ElectionSettings } from "./choose-elector.ts";
// LeaseElector itself is `@svc/leader/lease`: it loads the Kubernetes client (seconds to import),
// which the chooser loads only for LEADER_ELECTION=lease.
export type { LeaseElectorOptions } from "./lease-elector.ts";
