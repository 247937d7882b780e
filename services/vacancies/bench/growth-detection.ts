/**
 * growth-bench.ts, the change-detection part: the vacancy feed's walking rate, and the detector
 * (@svc/events createChangeDetector, its public API) over the real feed with its state in a
 * private PostgreSQL database: baseline, full sweep, idle incremental passes.
 */
import { createLegacyDb, createPgPool, runMigrations, type LegacyDb } from "@svc/db";
import { createChangeDetector, type ChangeDetector } from "@svc/events";
import { loadAverage, round1, summarise, type BenchRow, type GrowthSize } from "@svc/bench";
import { createTempPgDatabase, type TempDatabase } from "@svc/testing";
import { dateIn } from "@svc/time";
import { SERVICE_NAME } from "../src/config.ts";
import { MIGRATIONS_FOLDER } from "../src/store/migrations.ts";
import { MysqlVacancyFeed } from "../src/source/mysql-vacancy-feed.ts";
import { VacancyChangeSource } from "../src/workers/vacancy-change-source.ts";

export interface DetectionOptions {
  zone: string;
  /** Idle incremental passes to time. */
  passes: number;
  sweepTargetS: number;
  idlePassTargetMs: number;
  out: (line?: string) => void;
}

const quiet = { info: () => {}, warn: () => {}, error: () => {} };

const WALK_ROWS = 20_000;

/**
 * The sweep's reads alone: the first WALK_ROWS live rows through the vacancy feed, pages of 500
 * as the change source reads them. Flat rows a second across sizes means a sweep grows with the
 * rows only, so a size whose full sweep is not run is projected from a smaller one's.
 */
export async function measureFeedWalk(
  size: GrowthSize,
  legacyUrl: string,
  o: DetectionOptions,
): Promise<BenchRow[]> {
  const db = createLegacyDb({ url: legacyUrl });
  const feed = new MysqlVacancyFeed(db, o.zone);
  try {
    const started = performance.now();
    let rows = 0;
    for (let after: number | null = null; rows < WALK_ROWS;) {
      const page = await feed.live(after, 500, { today: dateIn(o.zone, Date.now()) });
      rows += page.length;
      if (page.length < 500) break;
      after = page[page.length - 1]!.rowKey;
    }
    const perS = rows / ((performance.now() - started) / 1000);
    o.out(
      `\n[${size.name}] feed walk: ${rows} rows at ${perS.toFixed(0)} rows/s; load ${loadAverage()}`,
    );
    return [
      {
        scenario: `${size.label} vacancies: change detection`,
        metric: `feed walk, first ${rows} rows`,
        value: Math.round(perS),
        unit: "rows/s",
      },
    ];
  } finally {
    await db.close();
  }
}

/**
 * Change detection through the public detector API, its state in a private PostgreSQL database
 * that is handed back (the service runs on it next, past its baseline).
 */
export async function measureDetection(
  size: GrowthSize,
  legacyUrl: string,
  o: DetectionOptions,
  smallUrl?: string,
): Promise<{ rows: BenchRow[]; database: TempDatabase }> {
  const database = await createTempPgDatabase("growth");
  const pool = createPgPool({ url: database.url, schema: SERVICE_NAME });
  // As the service runs it: its pool settings (main.ts) and its feed.
  const legacy = createLegacyDb({ url: legacyUrl });
  const small = smallUrl ? createLegacyDb({ url: smallUrl }) : undefined;
  const detectorOn = (db: LegacyDb): ChangeDetector =>
    createChangeDetector({
      pool,
      schema: SERVICE_NAME,
      source: new VacancyChangeSource(new MysqlVacancyFeed(db, o.zone)),
      logger: quiet,
      publicBaseUrl: "https://api.example.test",
      timeZone: o.zone,
    });
  try {
    await runMigrations(pool, { schema: SERVICE_NAME, migrationsFolder: MIGRATIONS_FOLDER });
    const detector = detectorOn(legacy);
    if (small) {
      // Bounded: the state's baseline from the smallest data set, idle passes over this one.
      await detectorOn(small).runSweep();
      const idle: number[] = [];
      for (let i = 0; i < o.passes; i++) idle.push((await detector.runIncremental()).durationMs);
      const passes = summarise(idle);
      o.out(
        `\n[${size.name}] change detection (state from the smallest size): idle pass median ${passes.median.toFixed(1)} ms, p99 ${passes.p99.toFixed(1)} ms; load ${loadAverage()}`,
      );
      const scenario = `${size.label} vacancies: change detection (state of 10,000)`;
      const rows: BenchRow[] = [
        {
          scenario,
          metric: `idle incremental pass p99 (${o.passes})`,
          value: round1(passes.p99),
          unit: "ms",
          target: `< ${o.idlePassTargetMs} ms`,
          met: passes.p99 < o.idlePassTargetMs,
        },
      ];
      return { rows, database };
    }
    const baseline = await detector.runSweep();
    const sweep = await detector.runSweep();
    const idle: number[] = [];
    for (let i = 0; i < o.passes; i++) idle.push((await detector.runIncremental()).durationMs);
    const passes = summarise(idle);
    o.out(
      `\n[${size.name}] change detection: baseline ${(baseline.durationMs / 1000).toFixed(1)} s (${baseline.examined} examined), full sweep ${(sweep.durationMs / 1000).toFixed(1)} s (${sweep.updated} updated), idle pass median ${passes.median.toFixed(1)} ms, p99 ${passes.p99.toFixed(1)} ms; load ${loadAverage()}`,
    );
    const scenario = `${size.label} vacancies: change detection`;
    const last = size.name === "1m";
    const rows: BenchRow[] = [
      { scenario, metric: "baseline sweep", value: round1(baseline.durationMs / 1000), unit: "s" },
      {
        scenario,
        metric: "full sweep, nothing changed",
        value: round1(sweep.durationMs / 1000),
        unit: "s",
        ...(last
          ? { target: `< ${o.sweepTargetS} s`, met: sweep.durationMs < o.sweepTargetS * 1000 }
          : {}),
      },
      {
        scenario,
        metric: `idle incremental pass p99 (${o.passes})`,
        value: round1(passes.p99),
        unit: "ms",
        ...(last
          ? { target: `< ${o.idlePassTargetMs} ms`, met: passes.p99 < o.idlePassTargetMs }
          : {}),
      },
    ];
    return { rows, database };
  } catch (err) {
    await database.drop();
    throw err;
  } finally {
    await legacy.close();
    await small?.close();
    await pool.end();
  }
}
