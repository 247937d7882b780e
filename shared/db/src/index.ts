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
  type PgOptions,
} from "./pg.ts";
