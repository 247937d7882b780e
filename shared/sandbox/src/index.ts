/**
 * @svc/sandbox: the deterministic synthetic data set of the legacy database (@svc/legacy's
 * model), its fixture catalogue, the bulk load and the launcher's ensureSandbox. Development,
 * tests and benchmarks only; production code never imports it.
 */
export { COLUMNS, PRIMARY_KEYS } from "./generator/rows.ts";
export type * from "./generator/rows.ts";
export { generateDataset, PER_SCALE } from "./generator/dataset.ts";
export type { Dataset, DatasetOptions } from "./generator/dataset.ts";
export {
  CHOICE_LIST,
  EMPLOYMENT_TIMES,
  CONTRACTS,
  OPEN_ENDED,
  POSITIONS,
  PROVINCES,
} from "./generator/reference-data.ts";
export { fixtures } from "./fixtures.ts";
export type { PracticeFixture, VacancyFixture } from "./fixtures.ts";
export {
  addDays,
  brusselsDate,
  brusselsOffsetMinutes,
  toBrusselsDateTime,
} from "./brussels-time.ts";
export { openServerConnection } from "./load/connection.ts";
export { seedDatabase } from "./load/seed-database.ts";
export type { SeedLog, SeedMode, SeedResult } from "./load/seed-database.ts";
export { ensureSandbox } from "./load/ensure-sandbox.ts";
export type { EnsureSandboxOptions } from "./load/ensure-sandbox.ts";
export { inspectDatabase, MARKER_TABLE, SandboxRefusedError } from "./load/sandbox-guard.ts";
export type { DatabaseState, Marker } from "./load/sandbox-guard.ts";
export { isSandboxChange, makeSandboxChange, SANDBOX_CHANGES } from "./load/sandbox-change.ts";
export type { SandboxChange, SandboxChangeResult } from "./load/sandbox-change.ts";
