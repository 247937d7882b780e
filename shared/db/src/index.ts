export {
  createLegacyDb,
  isLegacyConnectionFailure,
  type LegacyDb,
  type LegacyDbOptions,
} from "./legacy-mysql.ts";
export {
  createPgPool,
  createDrizzle,
  runMigrations,
  guardPg,
  isPgConnectionFailure,
  openPgConnections,
  type PgOptions,
} from "./pg.ts";
