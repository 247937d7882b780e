// Outbox relay throughput against a bare JetStream publish loop measured in the same run, and the
// change detection engine's cost on a 100,000-row MariaDB table.
// Run: npm exec -c 'node shared/events/bench/relay-bench.ts' (from the repository root).
import { createLegacyDb } from "@svc/db";
import { drainNats } from "@svc/messaging";
import { recordBenchRows } from "@svc/bench";
import { createTempMysqlDatabase, createTempPgDatabase, testEnv } from "@svc/testing";
import { connectForTest, deleteNamespaceStreams } from "../test/support/nats.ts";
import { measureDetection } from "./change-detection-cost.ts";
import { measureRelay } from "./relay-throughput.ts";
import { testPool } from "../test/support/pg.ts";

const EVENTS = 20_000;
const ROWS = 100_000;
/** `--relay-only` skips the (minute-long) change detection part. */
const RELAY_ONLY = process.argv.includes("--relay-only");
const out = (line = "") => process.stdout.write(`${line}\n`);

const pgDb = await createTempPgDatabase("bench");
const myDb = await createTempMysqlDatabase("bench");
const pool = testPool(pgDb.url);
const legacy = createLegacyDb({ url: myDb.url, queryTimeoutMs: 30_000 });
const { nc, js, jsm } = await connectForTest(testEnv.TEST_NATS_URL, "events-bench");
const namespaces: string[] = [];
try {
  const relay = await measureRelay({
    pool,
    js,
    jsm,
    count: EVENTS,
    batchSize: 500,
    rounds: 3,
    namespaces,
  });
  const bare = relay[0]!.perSecond;
  out(
    `relay throughput (${EVENTS} events, ~250 B JSON, file storage, batch 500; median of 3 interleaved rounds)`,
  );
  out("| variant | events/s | seconds | vs bare |");
  out("|---|---:|---:|---:|");
  for (const r of relay)
    out(
      `| ${r.variant} | ${Math.round(r.perSecond)} | ${r.seconds.toFixed(2)} | ${(r.perSecond / bare).toFixed(2)} |`,
    );
  out(`target ≥ 5000 events/s (relay ×1): ${relay[1]!.perSecond >= 5_000 ? "met" : "NOT met"}`);
  recordBenchRows(
    "events relay",
    relay.slice(1).map((r, i) => ({
      scenario: `${r.variant}, ${EVENTS} events, batch 500`,
      metric: "throughput",
      value: Math.round(r.perSecond),
      unit: "events/s",
      baseline: Math.round(bare),
      ...(i === 0 ? { target: "≥ 5,000 events/s", met: r.perSecond >= 5_000 } : {}),
    })),
  );
  out();
  if (!RELAY_ONLY) await reportDetection();
} finally {
  for (const ns of namespaces) await deleteNamespaceStreams(jsm, ns);
  await drainNats(nc, { timeoutMs: 2_000 });
  await legacy.close();
  await pool.end();
  await pgDb.drop();
  await myDb.drop();
}

async function reportDetection(): Promise<void> {
  const cost = await measureDetection({ pool, legacy, mysqlUrl: myDb.url, rows: ROWS });
  out(`change detection cost (${ROWS} vacancies joined to 500 practices, pages of 1000)`);
  out("| step | time | detail |");
  out("|---|---:|---|");
  for (const c of cost)
    out(
      `| ${c.step} | ${c.seconds < 1 ? `${(c.seconds * 1000).toFixed(1)} ms` : `${c.seconds.toFixed(2)} s`} | ${c.detail} |`,
    );
  out(
    `targets: full sweep < 20 s: ${cost[1]!.seconds < 20 ? "met" : "NOT met"}; incremental, nothing changed < 50 ms: ${cost[3]!.seconds < 0.05 ? "met" : "NOT met"}`,
  );
  const scenario = `change detection, ${ROWS} vacancies`;
  recordBenchRows("events change detection", [
    {
      scenario,
      metric: "full sweep, nothing changed",
      value: Math.round(cost[1]!.seconds * 100) / 100,
      unit: "s",
      target: "< 20 s",
      met: cost[1]!.seconds < 20,
    },
    {
      scenario,
      metric: "full sweep, 1 % changed",
      value: Math.round(cost[2]!.seconds * 100) / 100,
      unit: "s",
    },
    {
      scenario,
      metric: "incremental pass, nothing changed (median)",
      value: Math.round(cost[3]!.seconds * 10_000) / 10,
      unit: "ms",
      target: "< 50 ms",
      met: cost[3]!.seconds < 0.05,
    },
  ]);
}
