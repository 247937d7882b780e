import type pg from "pg";
import { createLegacyDb } from "@svc/db";
import type { LegacyDb } from "@svc/db";
import { createTempMysqlDatabase, createTempPgDatabase } from "@svc/testing";
import type { TempDatabase } from "@svc/testing";
import { localOfInstant } from "@svc/time";
import { createChangeDetector } from "../../src/index.ts";
import type { ChangeDetectorOptions } from "../../src/index.ts";
import { recordingLogger } from "./nats.ts";
import { freshSchema } from "./outbox-fixtures.ts";
import { createLegacyTables, TestVacancySource } from "./vacancy-source.ts";
import { testPool } from "./pg.ts";

export const TZ = "Europe/Brussels";
export const BASE_URL = "https://api.example.test";

/** One PostgreSQL and one MariaDB database per test file; each scenario gets its own tables. */
export type DetectorWorld = {
  pool: pg.Pool;
  legacy: LegacyDb;
  mysqlUrl: string;
  close(): Promise<void>;
};

export async function openWorld(): Promise<DetectorWorld> {
  const [pgDb, myDb]: TempDatabase[] = await Promise.all([
    createTempPgDatabase("events"),
    createTempMysqlDatabase("events"),
  ]);
  const pool = testPool(pgDb!.url);
  const legacy = createLegacyDb({ url: myDb!.url });
  const writers: Array<{ end(): Promise<void> }> = [];
  return {
    pool,
    legacy,
    mysqlUrl: myDb!.url,
    close: async () => {
      for (const w of writers) await w.end();
      await legacy.close();
      await pool.end();
      await Promise.all([pgDb!.drop(), myDb!.drop()]);
    },
  };
}

export type VacancyFields = {
  title?: string | null;
  internal_note?: string;
  practice_id?: number | null;
  visible?: number;
  display_date?: string | null;
  deleted?: number;
  modified?: string | null;
};

/** A scenario: fresh tables, a test source, a fake clock and the detector under test. */
/** `digests`: the test source offers sweep digests (a sweep by digest). */
export async function scenario(
  world: DetectorWorld,
  options: Partial<ChangeDetectorOptions> = {},
  sourceOptions: { digests?: boolean } = {},
) {
  const schema = await freshSchema(world.pool);
  const tables = await createLegacyTables(world.mysqlUrl);
  const clock = { ms: Date.parse("2024-06-10T08:00:00Z") };
  const source = new TestVacancySource(world.legacy, tables, { pageSize: 50, ...sourceOptions });
  const detectorOptions: ChangeDetectorOptions = {
    pool: world.pool,
    schema,
    source,
    logger: recordingLogger(),
    publicBaseUrl: BASE_URL,
    timeZone: TZ,
    now: () => clock.ms,
    ...options,
  };
  const detector = createChangeDetector(detectorOptions);
  const local = (offsetMs = 0) => localOfInstant(clock.ms + offsetMs, TZ);
  const w = tables.writer;
  return {
    schema,
    tables,
    clock,
    source,
    detector,
    detectorOptions,
    local,
    advance: (ms: number) => void (clock.ms += ms),
    insert: (id: string, fields: VacancyFields = {}) =>
      w.query(`INSERT INTO ${tables.vacancy} SET ?`, [
        { id, title: `Title ${id}`, modified: local(), ...fields },
      ]),
    update: (id: string, fields: VacancyFields) =>
      w.query(`UPDATE ${tables.vacancy} SET ? WHERE id = ?`, [fields, id]),
    remove: (id: string) => w.query(`DELETE FROM ${tables.vacancy} WHERE id = ?`, [id]),
    practice: (id: number, name: string) =>
      w.query(
        `INSERT INTO ${tables.practice} (id, name) VALUES (?, ?) ON DUPLICATE KEY UPDATE name = VALUES(name)`,
        [id, name],
      ),
    /** The outbox as "<event type> <entity id>", in write order. */
    events: async () =>
      (
        await world.pool.query<{ e: string }>(
          `SELECT event_type || ' ' || (payload->'entity'->>'id') AS e FROM "${schema}".outbox ORDER BY id`,
        )
      ).rows.map((r) => r.e),
    close: () => w.end(),
  };
}
