// Child process of token-bench.ts: a stand-in /v1 service on a free loopback port, printing
// {"port":N}: /v1/open (no token) and /v1/guarded (the shared verifier + revocation view, as every
// service has).
// (Auth itself runs as its real entry point, src/main.ts.)
import express from "express";
import {
  createCachedTokenVerifier,
  remoteKeys,
  requireScope,
  startRevocationFeed,
} from "@svc/auth";
import { createHttpApp, listen, sendData } from "@svc/http";
import { createLogger } from "@svc/logging";
import { loadResourceConfig } from "./config.ts";

const logger = createLogger({ service: "bench-resource", level: "silent" });
const config = loadResourceConfig();
const revocations = startRevocationFeed({ config, name: "bench-resource", logger });
await revocations.loaded;
const verify = createCachedTokenVerifier({
  keys: remoteKeys(config.AUTH_JWKS_URL),
  issuer: config.TOKEN_ISSUER,
  audience: config.TOKEN_AUDIENCE,
  revocation: revocations.view,
});
const routes = express.Router();
routes.get("/v1/open", (_req, res) => sendData(res, { ok: true }));
routes.get("/v1/guarded", requireScope(verify, "vacancies:read"), (_req, res) =>
  sendData(res, { ok: true }),
);
const server = await listen(
  createHttpApp({
    platform: { service: "resource", version: "0.0.0", environment: "sandbox" },
    logger,
    routes,
  }),
  0,
  "127.0.0.1",
);
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
