/**
 * @svc/legacy: the legacy primary database model (MySQL/MariaDB DDL), the deterministic synthetic
 * sandbox data set, its fixture catalogue, and the launcher's ensureSandbox. Legacy table and
 * column names are allowed here; see README.md for the column → API field map.
 */
export {
  applyLegacySchema,
  DATA_TABLES,
  LEGACY_SCHEMA_VERSION,
  legacySchemaSql,
  legacySchemaStatements,
  TABLES,
} from "./schema.ts";
export type { LegacyTable } from "./schema.ts";
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
