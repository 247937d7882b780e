export { canonicalHash, canonicalJson } from "./canonical-hash.ts";
export {
  checkSource,
  type ChangeRecord,
  type ChangeStamp,
  type ChangeSource,
  type PassContext,
  type SourceDigest,
  type SweepDigests,
} from "./change-source.ts";
export type { PassKind, PassResult } from "./detection-pass.ts";
export {
  createChangeDetector,
  type ChangeDetector,
  type ChangeDetectorOptions,
  type PassControl,
} from "./engine.ts";
export {
  addDetector,
  startDetector,
  type DetectorOptions,
  type DetectorSchedule,
  type DetectorStats,
  type LeadingDetector,
  type RunningDetector,
} from "./start-detector.ts";
export {
  changeCursorTable,
  changeStateTable,
  type ChangeCursorTable,
  type ChangeStateTable,
} from "./tables.ts";
