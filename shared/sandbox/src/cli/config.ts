/**
 * Where `npm run sandbox:seed` writes when no --url or --database is given: the legacy database
 * the services read (LEGACY_DATABASE_URL, as the chart's seeding Job sets it), else the local
 * default server and `legacy_sandbox`.
 */
export interface SeedTarget {
  /** The server, without a database: `mysql://user:password@host:port`. */
  url: string;
  database: string;
}

export const LOCAL_SEED_TARGET: SeedTarget = Object.freeze({
  url: "mysql://root@127.0.0.1:3306",
  database: "legacy_sandbox",
});

/** The server and database of a `mysql://…/<database>` URL; the local default when unset. */
export function seedTargetFrom(legacyDatabaseUrl: string | undefined): SeedTarget {
  if (!legacyDatabaseUrl) return LOCAL_SEED_TARGET;
  const parsed = new URL(legacyDatabaseUrl);
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ""));
  parsed.pathname = "";
  parsed.search = "";
  return {
    url: parsed.toString().replace(/\/$/, ""),
    database: database === "" ? LOCAL_SEED_TARGET.database : database,
  };
}

export function seedTarget(): SeedTarget {
  return seedTargetFrom(process.env.LEGACY_DATABASE_URL);
}
