import type { Connection, RowDataPacket } from "mysql2/promise";
import { applyLegacySchema, DATA_TABLES, LEGACY_SCHEMA_VERSION } from "@svc/legacy";
import type { LegacyTable } from "@svc/legacy";
import { generateDataset, validateDatasetOptions } from "../generator/dataset.ts";
import type { DatasetOptions } from "../generator/dataset.ts";
import { COLUMNS } from "../generator/rows.ts";
import { insertRows } from "./insert-rows.ts";
import {
  assertDatabaseName,
  GENERATOR_NAME,
  inspectDatabase,
  MARKER_DDL,
  MARKER_TABLE,
  SandboxRefusedError,
} from "./sandbox-guard.ts";
import type { DatabaseState } from "./sandbox-guard.ts";

/**
 * `replace`: (re)load whatever sandbox is there. `if-absent`: keep a complete sandbox of the
 * current schema version.
 */
export type SeedMode = "replace" | "if-absent";

export type SeedResult = {
  action: "created" | "replaced" | "kept";
  database: string;
  /** The options the data in the database was generated with (the existing ones when kept). */
  options: DatasetOptions;
  /** Rows per table; only when data was loaded. */
  counts?: Readonly<Record<LegacyTable, number>>;
  durationMs: number;
};

export type SeedLog = (message: string) => void;

const LOCK_TIMEOUT_SECONDS = 120;

/**
 * Creates `database` if needed and loads schema and data into it, under a named server lock so two
 * launchers starting together do not load twice. Refuses (SandboxRefusedError, nothing written)
 * when the database holds tables this generator did not create.
 */
export async function seedDatabase(
  connection: Connection,
  database: string,
  options: DatasetOptions,
  mode: SeedMode,
  log: SeedLog = () => undefined,
): Promise<SeedResult> {
  validateDatasetOptions(options);
  assertDatabaseName(database);
  const lock = `svc-legacy-sandbox:${database}`;
  const [locked] = await connection.query<RowDataPacket[]>("SELECT GET_LOCK(?, ?) AS ok", [
    lock,
    LOCK_TIMEOUT_SECONDS,
  ]);
  if (Number(locked[0]?.ok) !== 1)
    throw new Error(
      `could not take the sandbox lock for "${database}" within ${LOCK_TIMEOUT_SECONDS}s`,
    );
  try {
    return await seedLocked(connection, database, options, mode, log);
  } finally {
    await connection.query("SELECT RELEASE_LOCK(?)", [lock]);
  }
}

async function seedLocked(
  connection: Connection,
  database: string,
  options: DatasetOptions,
  mode: SeedMode,
  log: SeedLog,
): Promise<SeedResult> {
  const started = performance.now();
  const state = await inspectDatabase(connection, database);
  if (state.kind === "foreign") throw new SandboxRefusedError(database, state.tables, state.reason);
  if (mode === "if-absent" && isCurrentCompleteSandbox(state)) {
    const { seed, scale, today } = state.marker;
    log(
      `sandbox database "${database}" already loaded (seed ${seed}, scale ${scale}, today ${today}); keeping it`,
    );
    return {
      action: "kept",
      database,
      options: { seed, scale, today },
      durationMs: performance.now() - started,
    };
  }
  if (state.kind === "missing") {
    await connection.query(
      `CREATE DATABASE ${connection.escapeId(database)} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    );
  }
  await connection.query(`USE ${connection.escapeId(database)}`);
  await claim(connection, state, options);
  const counts = await load(connection, options, log);
  await connection.query(
    `UPDATE ${MARKER_TABLE} SET status = 'complete', completed_at = UTC_TIMESTAMP() WHERE id = 1`,
  );
  const durationMs = performance.now() - started;
  log(
    `sandbox database "${database}" loaded in ${(durationMs / 1000).toFixed(1)}s (seed ${options.seed}, scale ${options.scale}, today ${options.today})`,
  );
  return {
    action: state.kind === "sandbox" ? "replaced" : "created",
    database,
    options: { ...options },
    counts,
    durationMs,
  };
}

function isCurrentCompleteSandbox(
  state: DatabaseState,
): state is Extract<DatabaseState, { kind: "sandbox" }> {
  return (
    state.kind === "sandbox" &&
    state.marker.status === "complete" &&
    state.marker.schemaVersion === LEGACY_SCHEMA_VERSION
  );
}

/** Marks the database as ours before creating anything else in it, then clears our old tables. */
async function claim(
  connection: Connection,
  state: DatabaseState,
  options: DatasetOptions,
): Promise<void> {
  if (state.kind !== "sandbox") await connection.query(MARKER_DDL);
  await connection.query(
    `REPLACE INTO ${MARKER_TABLE} (id, generator, schema_version, seed, scale, reference_date, status, started_at, completed_at)
     VALUES (1, ?, ?, ?, ?, ?, 'loading', UTC_TIMESTAMP(), NULL)`,
    [GENERATOR_NAME, LEGACY_SCHEMA_VERSION, options.seed, options.scale, options.today],
  );
  for (const table of [...DATA_TABLES].reverse())
    await connection.query(`DROP TABLE IF EXISTS ${connection.escapeId(table)}`);
}

async function load(
  connection: Connection,
  options: DatasetOptions,
  log: SeedLog,
): Promise<Record<LegacyTable, number>> {
  await applyLegacySchema(connection);
  const dataset = generateDataset(options);
  const counts = {} as Record<LegacyTable, number>;
  for (const table of DATA_TABLES) {
    const started = performance.now();
    counts[table] = await insertRows(
      connection,
      table,
      COLUMNS[table] as readonly string[],
      dataset.rows(table) as Iterable<object>,
    );
    log(
      `  ${table}: ${counts[table]} rows in ${((performance.now() - started) / 1000).toFixed(2)}s`,
    );
  }
  return counts;
}
