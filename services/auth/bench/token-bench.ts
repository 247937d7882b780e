// `npm run bench -w @services/auth`: the token endpoint's throughput (first-time argon2 requests
// and repeats served from the proof cache), the shared verifier's cost per API request, and /v1
// latency while the token endpoint is flooded; each beside a baseline measured in the same run.
// Auth runs as its real entry point (the bundle of src/main.ts, launched with @svc/runtime's
// NODE_FLAGS, logging at info) and a stand-in /v1 service as bench-server.ts, each its own process
// whose RSS is read from /proc. The load is C, not a Node client on the same cores: wrk for
// throughput and the flood, the open-loop generator for latency at a fixed rate
// (docs/decisions/open-loop-load.md); only the first-time tokens go from Node (measureTokens says
// why). Needs the local PostgreSQL and NATS (TEST_PG_URL, TEST_NATS_URL), and wrk.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createLocalJWKSet, type JSONWebKeySet } from "jose";
import { createCachedTokenVerifier, createTokenVerifier, startRevocationFeed } from "@svc/auth";
import { createPgPool, runMigrations } from "@svc/db";
import { connectNats, drainNats, jetstreamManager } from "@svc/messaging";
import {
  IDLE_SETTLE_MS,
  memoryRows,
  openLoop,
  recordBenchRows,
  runWrk,
  settledRss,
  startBenchProcess,
  type BenchProcess,
  type BenchRow,
  type OpenLoopResult,
  type WrkOptions,
  benchMemoryLimit,
} from "@svc/bench";
import { build } from "@svc/build";
import { entryArgs } from "@svc/manifest";
import { createTempPgDatabase, silentLogger, testEnv, unusedPort } from "@svc/testing";
import { NODE_FLAGS, RUNTIME_ENV } from "@svc/runtime";
import { ClientManager } from "../src/domain/clients/client-manager.ts";
import { PgClientStore } from "../src/store/pg-client-store.ts";
import { MIGRATIONS_FOLDER } from "../src/store/migrations.ts";
import { generateSigningJwk } from "../src/domain/keys/local-keys.ts";
import { batch, percentile, type Shot } from "./load.ts";

const ISSUER = "http://localhost:8080";
const ROOT = new URL("../../..", import.meta.url).pathname;
const NAMESPACE = `bench${Date.now().toString(36).slice(-6)}`;
const FIRST_TIME_CLIENTS = 120;
const CONNECTIONS = 16;
const FLOOD_CONNECTIONS = 64;
const FLOOD_S = 6;
/** The rate of the /v1 and /health probes, idle and flooded (open loop). */
const PROBE_RATE = 200;
const PROBE_S = 5;
const out = (line = "") => process.stdout.write(`${line}\n`);
const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;
const tokenShot = (id: string, secret: string, extra: Record<string, string> = {}): Shot => ({
  path: "/oauth/token",
  method: "POST",
  headers: {
    authorization: basic(id, secret),
    "content-type": "application/x-www-form-urlencoded",
    ...extra,
  },
  body: "grant_type=client_credentials",
});

async function startResource(
  env: Record<string, string>,
  children: ChildProcess[],
): Promise<string> {
  const child = spawn(
    process.execPath,
    [new URL("./bench-server.ts", import.meta.url).pathname, "resource"],
    { env, stdio: ["ignore", "pipe", "inherit"] },
  );
  children.push(child);
  const [line] = (await once(
    createInterface({ input: child.stdout as NodeJS.ReadableStream }),
    "line",
  )) as [string];
  return `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}`;
}

/** Auth's main.ts, as production launches it; resolves once /readyz answers. */
async function startAuth(
  env: Record<string, string>,
): Promise<{ origin: string; process: BenchProcess }> {
  await build();
  const [port, internalPort] = [await unusedPort(), await unusedPort()];
  const auth = startBenchProcess(
    [...NODE_FLAGS, ...entryArgs("services/auth/src/main.ts", { from: "bundle" })],
    {
      cwd: ROOT,
      env: {
        ...RUNTIME_ENV,
        ...env,
        NODE_ENV: "production",
        LOG_LEVEL: "info",
        PORT: String(port),
        INTERNAL_PORT: String(internalPort),
      },
      ...benchMemoryLimit("auth"),
    },
  );
  const deadline = Date.now() + 60_000;
  while (
    !(await fetch(`http://127.0.0.1:${internalPort}/readyz`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (auth.child.exitCode !== null || Date.now() > deadline)
      throw new Error(`auth did not become ready:\n${auth.kept().join("\n")}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { origin: `http://127.0.0.1:${port}`, process: auth };
}

async function prepare(databaseUrl: string, keysDir: string) {
  const pool = createPgPool({ url: databaseUrl, schema: "auth", applicationName: "bench" });
  await runMigrations(pool, { schema: "auth", migrationsFolder: MIGRATIONS_FOLDER });
  const jwk = await generateSigningJwk();
  await writeFile(join(keysDir, `${String(jwk.kid)}.active.jwk.json`), JSON.stringify(jwk));
  const manager = new ClientManager({
    store: new PgClientStore(pool),
    environment: "sandbox",
    publish: async () => {},
  });
  const make = async (name: string) => {
    const { client, secret } = await manager.create({
      name,
      scopes: ["vacancies:read", "practices:read"],
    });
    return { id: client.id, secret };
  };
  const main = await make("bench repeat");
  const fresh: Array<{ id: string; secret: string }> = [];
  for (let i = 0; i < FIRST_TIME_CLIENTS; i += 4)
    fresh.push(...(await Promise.all([0, 1, 2, 3].map((j) => make(`bench first ${i + j}`)))));
  await pool.end();
  return { main, fresh };
}

/** wrk's options for `shot` against `origin` (closed loop). */
const wrkShot = (
  origin: string,
  shot: Shot,
): Pick<WrkOptions, "url" | "method" | "headers" | "body"> => ({
  url: `${origin}${shot.path}`,
  method: shot.method ?? "GET",
  headers: shot.headers ?? {},
  ...(shot.body === undefined ? {} : { body: shot.body }),
});

async function measureTokens(auth: string, clients: Awaited<ReturnType<typeof prepare>>) {
  const repeatShot = tokenShot(clients.main.id, clients.main.secret);
  await runWrk({ ...wrkShot(auth, repeatShot), connections: 8, durationS: 2 }); // warm-up, and the proof
  const health = await runWrk({
    ...wrkShot(auth, { path: "/health" }),
    connections: CONNECTIONS,
    durationS: 4,
    statusCounts: true,
  });
  const repeat = await runWrk({
    ...wrkShot(auth, repeatShot),
    connections: CONNECTIONS,
    durationS: 4,
    statusCounts: true,
  });
  // Each first-time request carries another client's Basic credentials, exactly once (a repeat
  // would be served from the proof cache): wrk runs for a time, not a count, and the open loop
  // varies only numbers in a request. So these 120 go from Node; each costs the server an argon2
  // verification, hundreds of times the client's work per request.
  const first = await batch(
    auth,
    clients.fresh.map((c) => tokenShot(c.id, c.secret)),
    CONNECTIONS,
  );
  return { health, repeat, first };
}

async function measureVerification(auth: string, resource: string, token: string) {
  const jwks = (await (await fetch(`${auth}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
  const feed = startRevocationFeed({
    config: {
      NATS_SERVERS: [testEnv.TEST_NATS_URL],
      NATS_NAMESPACE: NAMESPACE,
      REVOCATION_MAX_STALENESS_MS: 60_000,
    },
    name: "bench",
    logger: silentLogger(),
  });
  await feed.loaded;
  const options = {
    keys: createLocalJWKSet(jwks),
    issuer: ISSUER,
    audience: "integration-service",
    revocation: feed.view,
  };
  const full = createTokenVerifier(options);
  const cached = createCachedTokenVerifier(options);
  const noop = async (_header: string) => undefined;
  const timed = async (fn: (header: string) => Promise<unknown>, n: number) => {
    const runs: number[] = [];
    for (let i = 0; i < n; i++) {
      const started = process.hrtime.bigint();
      await fn(`Bearer ${token}`);
      runs.push(Number(process.hrtime.bigint() - started) / 1_000);
    }
    return runs;
  };
  await timed(full, 500);
  await timed(cached, 500);
  const inProcess = {
    full: percentile(await timed(full, 3_000), 50),
    cached: percentile(await timed(cached, 5_000), 50),
    noop: percentile(await timed(noop, 5_000), 50),
  };
  await feed.stop();
  // Over HTTP, open loop at a low fixed rate (each request's latency, not the server's queue):
  // the two paths alternate in rounds so that drift in the machine's load weighs on both alike.
  const probe = (path: string, headers: Record<string, string>) =>
    openLoop({
      url: `${resource}${path}`,
      headers,
      ratePerS: PROBE_RATE,
      durationS: 2,
      connections: 4,
    });
  const open: number[] = [];
  const guarded: number[] = [];
  for (let round = 0; round < 3; round++) {
    open.push((await probe("/v1/open", {})).p50);
    guarded.push((await probe("/v1/guarded", { authorization: `Bearer ${token}` })).p50);
  }
  return {
    inProcess,
    http: { open: percentile(open, 50) * 1000, guarded: percentile(guarded, 50) * 1000 },
  };
}

/** Distinct Basic credentials and caller addresses for the flood, in pairs. */
const FLOOD_CALLERS = 4_096;

async function measureFlood(auth: string, resource: string, token: string) {
  const guarded = {
    url: `${resource}/v1/guarded`,
    headers: { authorization: `Bearer ${token}` },
    ratePerS: PROBE_RATE,
    durationS: PROBE_S,
    connections: 4,
  };
  const idle = await openLoop(guarded);
  // Distinct client ids and caller addresses: no per-IP or per-client limit stops it, and no two
  // requests in flight share one argon2 verification, so every request reaches the argon2 gate.
  const callers = Array.from({ length: FLOOD_CALLERS }, (_, i) => i);
  const flood = runWrk({
    ...wrkShot(auth, tokenShot("cl_flood", "guess")),
    connections: FLOOD_CONNECTIONS,
    durationS: FLOOD_S,
    // A load beside the probes, not a measurement of its own: never run again longer.
    minResponses: 0,
    statusCounts: true,
    rotatingHeaders: {
      authorization: callers.map((i) => basic(`cl_flood${i}`, "guess")),
      "x-forwarded-for": callers.map((i) => `198.51.${(i >> 8) & 255}.${i & 255}`),
    },
  });
  await new Promise((r) => setTimeout(r, 500));
  const [during, authHealth] = await Promise.all([
    openLoop(guarded),
    openLoop({ ...guarded, url: `${auth}/health`, headers: {} }),
  ]);
  return { idle, during, authHealth, flood: await flood };
}

/** Responses other than 200, failed and unanswered requests of an open-loop run. */
const failed = (r: OpenLoopResult) =>
  r.errors +
  r.unfinished +
  Object.entries(r.statuses).reduce((n, [code, c]) => n + (code === "200" ? 0 : c), 0);

function ratio(a: number, b: number): string {
  return `${(a / b).toFixed(2)}x`;
}

function report(
  t: Awaited<ReturnType<typeof measureTokens>>,
  v: Awaited<ReturnType<typeof measureVerification>>,
  f: Awaited<ReturnType<typeof measureFlood>>,
): void {
  const ms = (x: number) => `${x.toFixed(2)} ms`;
  out(
    `\nauth token endpoint (1 auth process, ${CONNECTIONS} connections; load average at start ${loadavg()[0]?.toFixed(2)})`,
  );
  out(
    `  repeat requests (proof cache)   ${t.repeat.rps.toFixed(0).padStart(7)} tokens/s   baseline GET /health ${t.health.rps.toFixed(0)} req/s   ratio ${ratio(t.repeat.rps, t.health.rps)}   statuses ${JSON.stringify(t.repeat.statuses)}`,
  );
  out(
    `  first-time requests (argon2id)  ${t.first.perSecond.toFixed(0).padStart(7)} tokens/s   baseline repeat path ${t.repeat.rps.toFixed(0)} tokens/s   ratio ${ratio(t.first.perSecond, t.repeat.rps)}   statuses ${JSON.stringify(t.first.statuses)}`,
  );
  out("verification per API request (shared verifier + revocation view)");
  out(
    `  in process, token seen before (cached), median ${v.inProcess.cached.toFixed(1).padStart(6)} µs   baseline no-op handler ${v.inProcess.noop.toFixed(1)} µs   overhead ${(v.inProcess.cached - v.inProcess.noop).toFixed(1)} µs`,
  );
  out(
    `  in process, full ES256 verification, median    ${v.inProcess.full.toFixed(1).padStart(6)} µs   (a token's first request in a process; ratio to cached ${ratio(v.inProcess.full, v.inProcess.cached)})`,
  );
  out(
    `  over HTTP (cached verifier), median             ${v.http.guarded.toFixed(0).padStart(6)} µs   baseline unguarded /v1 ${v.http.open.toFixed(0)} µs   overhead ${(v.http.guarded - v.http.open).toFixed(0)} µs   ratio ${ratio(v.http.guarded, v.http.open)}`,
  );
  out(
    `/v1 latency while the token endpoint is flooded (${FLOOD_CONNECTIONS} connections, ${f.flood.rps.toFixed(0)} req/s, statuses ${JSON.stringify(f.flood.statuses)}); probes open loop at ${PROBE_RATE} req/s`,
  );
  out(
    `  flooded: median ${ms(f.during.p50)}, p99 ${ms(f.during.p99)}   baseline idle: median ${ms(f.idle.p50)}, p99 ${ms(f.idle.p99)}   ratio ${ratio(f.during.p50, f.idle.p50)} (median)   failed ${failed(f.during)}/${failed(f.idle)}`,
  );
  out(
    `  auth's own GET /health while flooded: median ${ms(f.authHealth.p50)}, p99 ${ms(f.authHealth.p99)}   failed ${failed(f.authHealth)}`,
  );
  const overhead = v.inProcess.cached - v.inProcess.noop;
  out(
    `targets: repeat path >= 1000 tokens/s: ${t.repeat.rps >= 1000 ? "met" : "NOT met"}; verification overhead < 100 µs median: ${overhead < 100 ? "met" : "NOT met"}`,
  );
}

/** The figures as rows of the one benchmark report (tools/bench.ts). */
function rows(
  t: Awaited<ReturnType<typeof measureTokens>>,
  v: Awaited<ReturnType<typeof measureVerification>>,
  f: Awaited<ReturnType<typeof measureFlood>>,
  memory: { idleMb: number; peakMb: number },
): BenchRow[] {
  const r1 = (x: number) => Math.round(x * 10) / 10;
  const overhead = v.inProcess.cached - v.inProcess.noop;
  return [
    {
      scenario: `repeat token requests (proof cache), ${CONNECTIONS} conns`,
      metric: "throughput",
      value: Math.round(t.repeat.rps),
      unit: "req/s",
      baseline: Math.round(t.health.rps),
      target: "≥ 1,000 tokens/s",
      met: t.repeat.rps >= 1000,
    },
    {
      scenario: `first-time tokens (argon2id), ${CONNECTIONS} conns`,
      metric: "throughput",
      value: Math.round(t.first.perSecond),
      unit: "req/s",
      baseline: Math.round(t.repeat.rps),
    },
    {
      scenario: "token verification per request, in process, cached",
      metric: "median",
      value: r1(v.inProcess.cached),
      unit: "µs",
      baseline: r1(v.inProcess.noop),
      target: "< 100 µs over no-op",
      met: overhead < 100,
    },
    {
      scenario: "token verification, first sight (full ES256)",
      metric: "median",
      value: r1(v.inProcess.full),
      unit: "µs",
    },
    {
      scenario: "/v1 request while the token endpoint is flooded",
      metric: "p50",
      value: r1(f.during.p50),
      unit: "ms",
      baseline: r1(f.idle.p50),
    },
    {
      scenario: "/v1 request while the token endpoint is flooded",
      metric: "p99",
      value: r1(f.during.p99),
      unit: "ms",
      baseline: r1(f.idle.p99),
    },
    ...memoryRows("auth process (main.ts)", memory),
  ];
}

const children: ChildProcess[] = [];
let authProcess: BenchProcess | undefined;
const database = await createTempPgDatabase("bench");
const keysDir = await mkdtemp(join(tmpdir(), "bench-keys-"));
try {
  const clients = await prepare(database.url, keysDir);
  const common = {
    ENVIRONMENT: "sandbox",
    LOG_LEVEL: "silent",
    NATS_SERVERS: testEnv.TEST_NATS_URL,
    NATS_NAMESPACE: NAMESPACE,
    TOKEN_ISSUER: ISSUER,
  };
  const limits = {
    TOKEN_RATE_IP_BURST: "100000",
    TOKEN_RATE_IP_PER_MINUTE: "6000000",
    TOKEN_RATE_CLIENT_BURST: "100000",
    TOKEN_RATE_CLIENT_PER_MINUTE: "6000000",
  };
  const started = await startAuth({
    ...common,
    ...limits,
    DATABASE_URL: database.url,
    SIGNING_KEYS_DIR: keysDir,
  });
  authProcess = started.process;
  const auth = started.origin;
  const resource = await startResource(
    { ...common, AUTH_JWKS_URL: `${auth}/.well-known/jwks.json` },
    children,
  );
  const first = tokenShot(clients.main.id, clients.main.secret);
  const token = String(
    (
      (await (
        await fetch(`${auth}${first.path}`, {
          method: "POST",
          headers: first.headers ?? {},
          body: first.body ?? "",
        })
      ).json()) as { access_token: string }
    ).access_token,
  );
  // Warm-up (JIT, pools, the proof cache), then the idle RSS once settled; the peak is over every
  // measurement after it.
  await runWrk({ ...wrkShot(auth, first), connections: 8, durationS: 2 });
  await runWrk({ ...wrkShot(auth, { path: "/health" }), connections: 8, durationS: 2 });
  const idleMb = await settledRss(authProcess.pid, { settleMs: IDLE_SETTLE_MS });
  authProcess.memory.reset();
  const tokens = await measureTokens(auth, clients);
  const verification = await measureVerification(auth, resource, token);
  const flood = await measureFlood(auth, resource, token);
  const peakMb = authProcess.memory.peak();
  report(tokens, verification, flood);
  out(
    `auth process RSS: idle ${idleMb.toFixed(0)} MB after warm-up, peak ${peakMb.toFixed(0)} MB under the loads above (targets < 120 / < 200 MB)`,
  );
  recordBenchRows("auth token", rows(tokens, verification, flood, { idleMb, peakMb }));
} finally {
  for (const child of children) child.kill("SIGTERM");
  await authProcess?.stop();
  const nc = await connectNats({
    servers: testEnv.TEST_NATS_URL,
    name: "bench-cleanup",
    logger: silentLogger(),
  });
  await (
    await jetstreamManager(nc)
  ).streams
    .delete(`KV_${NAMESPACE}_revocations`)
    .catch(() => false);
  await drainNats(nc);
  await database.drop();
  await rm(keysDir, { recursive: true, force: true });
}
