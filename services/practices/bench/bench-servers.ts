/**
 * Worker thread of read-bench.ts: the servers under test, on their own event loop so the load
 * generator in the main thread does not steal their time. Three servers, each with its own legacy
 * pool of the default size: the real app with the totals cache off, the real app as configured
 * by default, and a bare node:http baseline running the very same SQL and JSON.stringify of rows.
 */
import { createServer, type Server } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { parentPort, workerData } from "node:worker_threads";
import { createCachedTokenVerifier } from "@svc/auth";
import { createLegacyDb, type LegacyDb } from "@svc/db";
import { createLogger } from "@svc/logging";
import { createTestIssuer, startApp, TEST_AUDIENCE, TEST_ISSUER, type StartedApp } from "@svc/testing";
import { createApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { countSql, MysqlPracticeSource, pageSql } from "../src/source/mysql-practice-source.ts";

export interface ServersReady {
  token: string;
  appNoCache: number;
  appDefault: number;
  baseline: number;
}

const { legacyUrl, now, today } = workerData as { legacyUrl: string; now: number; today: string };
const issuer = await createTestIssuer();
// The verifier main.ts uses: a token already verified skips the signature check.
const verify = createCachedTokenVerifier({ keys: issuer.keys, issuer: TEST_ISSUER, audience: TEST_AUDIENCE });
const pools: LegacyDb[] = [];
const pool = () => {
  const db = createLegacyDb({ url: legacyUrl });
  pools.push(db);
  return db;
};
// Request logging stays on, as in production; the lines are built and then dropped.
const logger = createLogger({ service: "practices", level: "info", destination: { write: () => undefined } });
const unusedMirror = { apply: () => Promise.reject(new Error("not benchmarked")) };

async function app(env: Record<string, string>): Promise<StartedApp> {
  const config = loadConfig({ ENVIRONMENT: "sandbox", ...env });
  return startApp(createApp({ config, logger, verify, practices: new MysqlPracticeSource(pool()), crmMirror: unusedMirror, now: () => now }));
}

/** The bare baseline: same statements, rows as the driver returns them, no auth, no mapper. */
function baseline(db: LegacyDb): Server {
  return createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const work = async () => {
      if (url.pathname === "/list") {
        const page = Number(url.searchParams.get("page") ?? 1);
        const perPage = Number(url.searchParams.get("per_page") ?? 25);
        const q = pageSql({}, today, { limit: perPage, offset: (page - 1) * perPage });
        const rows = await db.query(q.text, q.params);
        let total: unknown = null;
        if (url.searchParams.get("count") !== "false") {
          const c = countSql({}, today);
          total = (await db.query<{ total: number }>(c.text, c.params))[0]?.total;
        }
        return { rows, total };
      }
      const q = pageSql({}, today, { limit: 2, offset: 0 }, decodeURIComponent(url.pathname.slice("/one/".length)));
      return { rows: await db.query(q.text, q.params) };
    };
    work().then(
      (body) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      },
      () => {
        res.writeHead(500);
        res.end();
      },
    );
  });
}

const appNoCache = await app({ PRACTICE_TOTALS_CACHE_MS: "0" });
const appDefault = await app({});
const bare = baseline(pool()).listen(0, "127.0.0.1");
await once(bare, "listening");

const ready: ServersReady = {
  token: await issuer.mint({ scope: "practices:read" }),
  appNoCache: appNoCache.port,
  appDefault: appDefault.port,
  baseline: (bare.address() as AddressInfo).port,
};
parentPort?.postMessage(ready);
parentPort?.on("message", async (message) => {
  // CPU time of this thread (all servers live here): robust to other processes on the machine.
  if (message === "cpu") return parentPort?.postMessage({ cpuUs: process.threadCpuUsage().user + process.threadCpuUsage().system });
  if (message !== "close") return;
  bare.closeAllConnections();
  await Promise.all([appNoCache.close(), appDefault.close(), new Promise((resolve) => bare.close(resolve))]);
  await Promise.all(pools.map((db) => db.close()));
  parentPort?.close();
});
