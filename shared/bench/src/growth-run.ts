/**
 * One growth benchmark run (services/*\/bench/growth-bench.ts): its command line, then per size
 * the data set, the service's list queries through its source, its feed's walking rate, change
 * detection and the service itself; the rows recorded at the end. A service names what differs:
 * its queries, feed, change source and process. Why: docs/decisions/growth.md.
 */
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createLegacyDb, type LegacyDb } from "@svc/db";
import type { ChangeSource } from "@svc/events";
import { build } from "@svc/build";
import { dateIn } from "@svc/time";
import { recordBenchRows, type BenchRow } from "./bench-report.ts";
import { measureFeedWalk, type FeedPage } from "./growth-detection.ts";
import { queryCostPrinter, queryCostRows, type QueryCost } from "./growth-queries.ts";
import {
  ensureGrowthData,
  measureDetectionAndService,
  type SweepProjection,
} from "./growth-service.ts";
import { GROWTH_SIZES, growthSizes, loadAverage, type GrowthSize } from "./growth.ts";

export const GROWTH_ZONE = "Europe/Brussels";

export interface GrowthBench<T extends object, K> {
  /** The rows' bench name, e.g. "practices growth". */
  bench: string;
  /** Starts each row's scenario, e.g. "10,000 vacancies". */
  subjectOf: (size: GrowthSize) => string;
  /** The manifest's component, its entry point and the token scope its lists need. */
  component: string;
  entry: string;
  scope: string;
  /** Its PostgreSQL schema and migrations (the detector's tables). */
  schema: string;
  migrationsFolder: string;
  /** Its change source and its feed's sweep read over a legacy database. */
  source: (db: LegacyDb) => ChangeSource<T>;
  feedPage: (db: LegacyDb) => FeedPage<K>;
  /** Each list scenario's cost through its source, one at a time; each printed by `onCost`. */
  queryCosts: (
    db: LegacyDb,
    today: string,
    runs: number,
    onCost: (cost: QueryCost) => void,
  ) => Promise<QueryCost[]>;
  perPage: number;
  /** The ids a full sweep keeps per unit of the loader's scale, and their length. */
  idsPerScale: number;
  idLength: number;
  /** The largest size whose baseline and full sweeps run (--full-detection-up-to's default). */
  fullDetectionUpTo: string;
}

const LIST_P99_MS = 100;
const CONNECTIONS = 16;
/** Past the service's own query timeout, to see what a slow plan costs; slower is failed. */
const QUERY_CAP_MS = 30_000;
/** The services' LEGACY_QUERY_TIMEOUT_MS default: a step slower fails its request with 503. */
const SERVICE_QUERY_TIMEOUT_MS = 5_000;
const root = fileURLToPath(new URL("../../..", import.meta.url));
const out = (line = "") => process.stdout.write(`${line}\n`);

export async function runGrowthBench<T extends object, K>(b: GrowthBench<T, K>): Promise<void> {
  const { values: args } = parseArgs({
    options: {
      sizes: { type: "string" },
      runs: { type: "string", default: "20" },
      passes: { type: "string", default: "30" },
      url: { type: "string", default: "mysql://root@127.0.0.1:3306" },
      "skip-service": { type: "boolean", default: false },
      "skip-detection": { type: "boolean", default: false },
      "full-detection-up-to": { type: "string", default: b.fullDetectionUpTo },
      "max-seconds": { type: "string", default: "3" },
      "latency-seconds": { type: "string", default: "6" },
    },
  });
  const sizes = growthSizes(args.sizes);
  const fullUpTo = GROWTH_SIZES.findIndex((s) => s.name === args["full-detection-up-to"]);
  const sizesFull = new Set(GROWTH_SIZES.slice(0, fullUpTo + 1).map((s) => s.name));
  const detection = {
    zone: GROWTH_ZONE,
    passes: Number(args.passes),
    sweepTargetS: 30,
    idlePassTargetMs: 50,
    out,
  };
  const ensureData = (size: GrowthSize) => ensureGrowthData(args.url, size, GROWTH_ZONE, out);

  out(`${b.bench} bench: sizes ${sizes.map((s) => s.name).join(", ")}; load ${loadAverage()}`);
  if (!args["skip-service"]) await build();
  const rows: BenchRow[] = [];
  // A full sweep keeps every id it sees: a size whose sweep is not run is projected.
  const projection: SweepProjection = {
    ids: (size) => size.scale * b.idsPerScale,
    idLength: b.idLength,
  };
  for (const size of sizes) {
    const subject = b.subjectOf(size);
    const legacyUrl = await ensureData(size);
    const today = dateIn(GROWTH_ZONE, Date.now());
    const db = createLegacyDb({ url: legacyUrl, queryTimeoutMs: QUERY_CAP_MS });
    let costs: QueryCost[];
    try {
      out(
        `\n[${size.name}] ${subject}: queries, one at a time (median/p99 ms; ! failed), load ${loadAverage()}`,
      );
      costs = await b.queryCosts(db, today, Number(args.runs), queryCostPrinter(out));
    } finally {
      await db.close();
    }
    rows.push(...queryCostRows(subject, costs, SERVICE_QUERY_TIMEOUT_MS));
    rows.push(...(await measureFeedWalk(size, subject, legacyUrl, b.feedPage, detection)));
    if (args["skip-detection"]) continue;
    const full = sizesFull.has(size.name);
    rows.push(
      ...(await measureDetectionAndService(
        size,
        legacyUrl,
        costs.map((c) => ({ name: c.scenario, path: c.path })),
        projection,
        {
          root,
          out,
          connections: CONNECTIONS,
          maxS: Number(args["max-seconds"]),
          latencyS: Number(args["latency-seconds"]),
          detection,
          target: {
            subject,
            schema: b.schema,
            migrationsFolder: b.migrationsFolder,
            source: b.source,
          },
          service: { component: b.component, entry: b.entry, scope: b.scope, subject },
          full,
          ...(full ? {} : { smallUrl: await ensureData(GROWTH_SIZES[0]!) }),
          skipService: args["skip-service"],
          listP99Ms: LIST_P99_MS,
          perPage: b.perPage,
        },
      )),
    );
  }
  recordBenchRows(b.bench, rows);
  out(`\nload average at end: ${loadAverage()}`);
}
