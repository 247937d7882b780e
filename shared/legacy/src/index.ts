/**
 * @svc/legacy: the legacy primary database model (MySQL/MariaDB DDL) that the practice and vacancy
 * reads follow; what they read is listed in @svc/legacy/reads. Legacy table and column names are
 * allowed here; see README.md.
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
