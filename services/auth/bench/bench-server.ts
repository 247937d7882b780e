// Child process of token-bench.ts: runs one server on a free loopback port and prints {"port":N}.
//   auth      the real auth app (config from the environment the bench sets)
//   resource  a stand-in /v1 service: /v1/open (no token) and /v1/guarded (shared verifier + revocation view)
import express from "express";
import { createCachedTokenVerifier, remoteKeys, requireScope, startRevocationFeed } from "@svc/auth";
import { createPgPool } from "@svc/db";
import { createHttpApp, listen, sendData, type RunningServer } from "@svc/http";
import { createLogger } from "@svc/logging";
import { createApp } from "../src/app.ts";
import { createDummyHash } from "../src/clients/credentials.ts";
import { loadConfig } from "../src/config.ts";
import { loadSigningKeys } from "../src/keys/signing-keys.ts";
import { loadResourceConfig } from "./config.ts";

const role = process.argv[2];
const logger = createLogger({ service: `bench-${role}`, level: "silent" });

async function startAuthServer(): Promise<RunningServer> {
  const config = loadConfig();
  const pool = createPgPool({ url: config.DATABASE_URL, schema: "auth", applicationName: "bench-auth", max: config.DATABASE_POOL_MAX });
  const revocations = startRevocationFeed({ config, name: "bench-auth", logger });
  await revocations.loaded;
  const keys = await loadSigningKeys(config.SIGNING_KEYS_DIR ?? "");
  return listen(createApp({ config, logger, pool, keys, dummyHash: await createDummyHash(), revocations }), 0, "127.0.0.1");
}

async function startResourceServer(): Promise<RunningServer> {
  const config = loadResourceConfig();
  const revocations = startRevocationFeed({ config, name: "bench-resource", logger });
  await revocations.loaded;
  const verify = createCachedTokenVerifier({ keys: remoteKeys(config.AUTH_JWKS_URL), issuer: config.TOKEN_ISSUER, audience: config.TOKEN_AUDIENCE, revocation: revocations.view });
  const routes = express.Router();
  routes.get("/v1/open", (_req, res) => sendData(res, { ok: true }));
  routes.get("/v1/guarded", requireScope(verify, "vacancies:read"), (_req, res) => sendData(res, { ok: true }));
  return listen(createHttpApp({ platform: { service: "resource", version: "0.0.0", environment: "sandbox" }, logger, routes }), 0, "127.0.0.1");
}

const server = role === "auth" ? await startAuthServer() : await startResourceServer();
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
