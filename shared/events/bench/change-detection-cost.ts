import { createConnection } from "mysql2/promise";
import type pg from "pg";
import type { LegacyDb } from "@svc/db";
import { localOfInstant } from "@svc/time";
import { createChangeDetector } from "../src/index.ts";
import { freshSchema } from "../test/support/outbox-fixtures.ts";
import { createLegacyTables, TestVacancySource } from "../test/support/vacancy-source.ts";

const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const TZ = "Europe/Brussels";
const DAY = 86_400_000;

export type CostRow = { step: string; seconds: number; detail: string };

/** A `rows`-row vacancy table (joined to 500 practices), modification times spread over 30 days. */
async function seed(mysqlUrl: string, rows: number) {
  const tables = await createLegacyTables(mysqlUrl);
  const now = Date.now();
  await tables.writer.query(`INSERT INTO ${tables.practice} (id, name) VALUES ?`, [
    Array.from({ length: 500 }, (_, i) => [i, `Practice ${i}`]),
  ]);
  for (let i = 0; i < rows; i += 5_000) {
    const chunk = Array.from({ length: Math.min(5_000, rows - i) }, (_, k) => {
      const n = i + k;
      const id = `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
      return [
        id,
        `Vacancy ${n} in a nice practice`,
        n % 500,
        n % 7 === 0 ? localOfInstant(now + (n % 30) * DAY, TZ).slice(0, 10) : null,
        localOfInstant(now - (n % 30) * DAY - 3_600_000, TZ),
      ];
    });
    await tables.writer.query(
      `INSERT INTO ${tables.vacancy} (id, title, practice_id, display_date, modified) VALUES ?`,
      [chunk],
    );
  }
  return tables;
}

async function timed<T>(work: () => Promise<T>): Promise<[number, T]> {
  const started = performance.now();
  const result = await work();
  return [(performance.now() - started) / 1000, result];
}

export async function measureDetection(o: {
  pool: pg.Pool;
  legacy: LegacyDb;
  mysqlUrl: string;
  rows: number;
}): Promise<CostRow[]> {
  const tables = await seed(o.mysqlUrl, o.rows);
  const schema = await freshSchema(o.pool, "bench");
  const source = new TestVacancySource(o.legacy, tables, { pageSize: 1_000 });
  const detector = createChangeDetector({
    pool: o.pool,
    schema,
    source,
    logger: quiet,
    publicBaseUrl: "https://api.example.test",
    timeZone: TZ,
    batchSize: 1_000,
  });
  const out: CostRow[] = [];
  const [baseline, b] = await timed(() => detector.runSweep());
  out.push({
    step: `baseline sweep (${o.rows} rows, state written)`,
    seconds: baseline,
    detail: `${b.examined} examined`,
  });
  const [sweep, s] = await timed(() => detector.runSweep());
  out.push({
    step: "full sweep, nothing changed",
    seconds: sweep,
    detail: `${s.examined} examined, ${s.updated} updated`,
  });
  await tables.writer.query(
    `UPDATE ${tables.vacancy} SET title = CONCAT(title, '!') WHERE practice_id < 5`,
  );
  const [changed, c] = await timed(() => detector.runSweep());
  out.push({
    step: "full sweep, 1 % changed",
    seconds: changed,
    detail: `${c.updated} updated events`,
  });
  const runs: number[] = [];
  for (let i = 0; i < 30; i++) runs.push((await timed(() => detector.runIncremental()))[0]);
  runs.sort((x, y) => x - y);
  out.push({
    step: "incremental pass, nothing changed (median of 30)",
    seconds: runs[15] as number,
    detail: `p90 ${((runs[27] as number) * 1000).toFixed(1)} ms`,
  });
  await tables.writer.end();
  const dropper = await createConnection({ uri: o.mysqlUrl });
  await dropper.query(`DROP TABLE ${tables.vacancy}, ${tables.practice}`);
  await dropper.end();
  return out;
}
