/**
 * The growth benchmarks' change-detection part (services/*\/bench/growth-bench.ts): a feed's
 * walking rate, and the detector (@svc/events createChangeDetector, its public API) over a
 * service's real change source with its state in a private PostgreSQL database: baseline, full
 * sweep, idle incremental passes.
 */
import { createLegacyDb, createPgPool, runMigrations, type LegacyDb } from "@svc/db";
import { createChangeDetector, type ChangeDetector, type ChangeSource } from "@svc/events";
import { createTempPgDatabase, type TempDatabase } from "@svc/testing";
import type { BenchRow } from "./bench-report.ts";
import { GROWTH_SIZES, loadAverage, round1, summarise, type GrowthSize } from "./growth.ts";

export interface DetectionOptions {
  zone: string;
  /** Idle incremental passes to time. */
  passes: number;
  sweepTargetS: number;
  idlePassTargetMs: number;
  out: (line?: string) => void;
}

/** One service's change detection as the service runs it. */
export interface DetectionTarget<T extends object> {
  /** Starts each row's scenario, e.g. "10,000 vacancies". */
  subject: string;
  /** The service's PostgreSQL schema and its migrations (the detector's tables). */
  schema: string;
  migrationsFolder: string;
  /** The service's change source over its real feed on `db`. */
  source: (db: LegacyDb) => ChangeSource<T>;
}

/**
 * One page of a feed's sweep read: up to `limit` rows after `after` (null: from the start), each
 * row's key in order.
 */
export type FeedPage<K> = (after: K | null, limit: number) => Promise<K[]>;

const quiet = { info: () => {}, warn: () => {}, error: () => {} };

const WALK_ROWS = 20_000;
const WALK_PAGE = 500;

/**
 * The sweep's reads alone: the first WALK_ROWS live rows through a feed, pages of 500 as the
 * change sources read them. Flat rows a second across sizes means a sweep grows with the rows
 * only, so a size whose full sweep is not run is projected from a smaller one's.
 */
export async function measureFeedWalk<K>(
  size: GrowthSize,
  subject: string,
  legacyUrl: string,
  feedPage: (db: LegacyDb) => FeedPage<K>,
  o: DetectionOptions,
): Promise<BenchRow[]> {
  const db = createLegacyDb({ url: legacyUrl });
  const page = feedPage(db);
  try {
    const started = performance.now();
    let rows = 0;
    for (let after: K | null = null; rows < WALK_ROWS;) {
      const keys = await page(after, WALK_PAGE);
      rows += keys.length;
      if (keys.length < WALK_PAGE) break;
      after = keys[keys.length - 1]!;
    }
    const perS = rows / ((performance.now() - started) / 1000);
    o.out(
      `\n[${size.name}] ${subject} feed walk: ${rows} rows at ${perS.toFixed(0)} rows/s; load ${loadAverage()}`,
    );
    return [
      {
        scenario: `${subject}: change detection`,
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
 * that is handed back (the service runs on it next, past its baseline). With `smallUrl`, the
 * state's baseline comes from that (smaller) data set and only idle passes over this one are timed.
 */
export async function measureDetection<T extends object>(
  size: GrowthSize,
  legacyUrl: string,
  target: DetectionTarget<T>,
  o: DetectionOptions,
  smallUrl?: string,
): Promise<{ rows: BenchRow[]; database: TempDatabase }> {
  const database = await createTempPgDatabase("growth");
  const pool = createPgPool({
    url: database.url,
    schema: target.schema,
    applicationName: "growth-bench",
  });
  // As the service runs it: its pool settings (main.ts) and its feed.
  const legacy = createLegacyDb({ url: legacyUrl });
  const small = smallUrl ? createLegacyDb({ url: smallUrl }) : undefined;
  const detectorOn = (db: LegacyDb): ChangeDetector =>
    createChangeDetector({
      pool,
      schema: target.schema,
      source: target.source(db),
      logger: quiet,
      publicBaseUrl: "https://api.example.test",
      timeZone: o.zone,
    });
  const idlePasses = async (detector: ChangeDetector) => {
    const idle: number[] = [];
    for (let i = 0; i < o.passes; i++) idle.push((await detector.runIncremental()).durationMs);
    return summarise(idle);
  };
  try {
    await runMigrations(pool, { schema: target.schema, migrationsFolder: target.migrationsFolder });
    const detector = detectorOn(legacy);
    if (small) {
      await detectorOn(small).runSweep();
      const passes = await idlePasses(detector);
      o.out(
        `\n[${size.name}] ${target.subject} change detection (state from the smallest size): idle pass median ${passes.median.toFixed(1)} ms, p99 ${passes.p99.toFixed(1)} ms; load ${loadAverage()}`,
      );
      const rows: BenchRow[] = [
        {
          scenario: `${target.subject}: change detection (state of ${GROWTH_SIZES[0]!.label})`,
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
    const passes = await idlePasses(detector);
    o.out(
      `\n[${size.name}] ${target.subject} change detection: baseline ${(baseline.durationMs / 1000).toFixed(1)} s (${baseline.examined} examined), full sweep ${(sweep.durationMs / 1000).toFixed(1)} s (${sweep.updated} updated), idle pass median ${passes.median.toFixed(1)} ms, p99 ${passes.p99.toFixed(1)} ms; load ${loadAverage()}`,
    );
    const scenario = `${target.subject}: change detection`;
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
