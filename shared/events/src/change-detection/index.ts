export { canonicalHash, canonicalJson } from "./canonical-hash.ts";
export {
  checkSource,
  type ChangeRecord,
  type ChangeSource,
  type PassContext,
} from "./change-source.ts";
export type { Fence } from "./change-store.ts";
export type { PassKind, PassResult } from "./detection-pass.ts";
export {
  createChangeDetector,
  type ChangeDetector,
  type ChangeDetectorOptions,
  type PassControl,
} from "./engine.ts";
export { LeadershipLostError, SoloElector, type LeaderElector } from "./leader.ts";
export {
  PgAdvisoryLockElector,
  advisoryLockKey,
  type PgAdvisoryLockElectorOptions,
} from "./pg-advisory-lock-elector.ts";
export {
  startDetector,
  type DetectorOptions,
  type DetectorStats,
  type RunningDetector,
} from "./start-detector.ts";
export {
  changeCursorTable,
  changeStateTable,
  type ChangeCursorTable,
  type ChangeStateTable,
} from "./tables.ts";
