/**
 * Worker-thread entry for read-bench.ts: starts either the real vacancies app or the bare
 * baseline on a loopback port, each on its own event loop (as its own process would be), so the
 * load generator in the main thread does not share a thread with the server it measures.
 */
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { parentPort, workerData } from "node:worker_threads";
import { createServer } from "node:http";
import { createTokenVerifier } from "@svc/auth";
import { createLegacyDb } from "@svc/db";
import { createTestIssuer, silentLogger, TEST_AUDIENCE, TEST_ISSUER } from "@svc/testing";
import { createApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { vacancySourceFor } from "../src/source/mysql-vacancy-source.ts";
import { baselineServer } from "./baseline-server.ts";

const { kind, legacyUrl } = workerData as { kind: "service" | "baseline"; legacyUrl: string };
const config = loadConfig({ ENVIRONMENT: "sandbox", LEGACY_DATABASE_URL: legacyUrl });
// The pool settings main.ts uses, for both servers.
const db = createLegacyDb({
  url: config.LEGACY_DATABASE_URL,
  connectTimeoutMs: config.LEGACY_CONNECT_TIMEOUT_MS,
  queryTimeoutMs: config.LEGACY_QUERY_TIMEOUT_MS,
  connectionLimit: config.LEGACY_POOL_MAX,
});

let token = "";
let server;
if (kind === "service") {
  const issuer = await createTestIssuer();
  token = await issuer.mint({ scope: "vacancies:read" });
  const verify = createTokenVerifier({
    keys: issuer.keys,
    issuer: TEST_ISSUER,
    audience: TEST_AUDIENCE,
  });
  server = createServer(
    createApp({
      config,
      logger: silentLogger(),
      verify,
      vacancies: vacancySourceFor(db, config),
      now: Date.now,
    }),
  );
} else {
  server = baselineServer(db, config.TIME_ZONE);
}
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1");
await once(server, "listening");
parentPort?.postMessage({ port: (server.address() as AddressInfo).port, token });
parentPort?.on("message", () => {
  server.close();
  void db.close();
});
