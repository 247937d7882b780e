/**
 * The bare baseline of read-bench.ts as its own process (so its memory is its own): the legacy
 * pool with main.ts's settings, and baseline-server.ts's plain node:http server on a free loopback
 * port, printed as {"port":N}.
 *
 *   node services/vacancies/bench/baseline-process.ts <legacy database url>
 */
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { createLegacyDb } from "@svc/db";
import { loadConfig } from "../src/config.ts";
import { baselineServer } from "./baseline-server.ts";

const config = loadConfig({ ENVIRONMENT: "sandbox", LEGACY_DATABASE_URL: process.argv[2] });
const db = createLegacyDb({
  url: config.LEGACY_DATABASE_URL,
  connectTimeoutMs: config.LEGACY_CONNECT_TIMEOUT_MS,
  queryTimeoutMs: config.LEGACY_QUERY_TIMEOUT_MS,
  connectionLimit: config.LEGACY_POOL_MAX,
});
const server = baselineServer(db, config.TIME_ZONE);
server.keepAliveTimeout = 65_000;
server.listen(0, "127.0.0.1");
await once(server, "listening");
process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
process.once("SIGTERM", () => {
  server.closeAllConnections();
  server.close();
  void db.close();
});
