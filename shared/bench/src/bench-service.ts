/**
 * A service's real entry point (its main.ts) as its own process, for a benchmark: configured as
 * in production except for where its dependencies are: a private PostgreSQL database (migrated on
 * start), its own NATS namespace, and a test issuer whose JWKS this process serves.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { connectNats, drainNats, jetstreamManager } from "@svc/messaging";
import {
  createTempPgDatabase,
  createTestIssuer,
  silentLogger,
  TEST_AUDIENCE,
  TEST_ISSUER,
  testEnv,
  unusedPort,
  type MintOptions,
  type TempDatabase,
} from "@svc/testing";
import { startBenchProcess, type BenchProcess } from "./bench-report.ts";

export interface ServiceUnderBench {
  process: BenchProcess;
  /** The public API, e.g. http://127.0.0.1:41234. */
  origin: string;
  /** /livez, /readyz, /metrics. */
  internalOrigin: string;
  /** Its private PostgreSQL database (migrated by the service on start). */
  databaseUrl: string;
  /** Its NATS_NAMESPACE (subjects, streams and buckets of its own). */
  namespace: string;
  mint(options: MintOptions): Promise<string>;
  /**
   * Stops the process and starts a new one on the same database and namespace (a deploy or a
   * scale-up: its state already there), with `env` over its settings; resolves as soon as
   * /readyz answers 200.
   */
  restart(env?: Record<string, string>): Promise<void>;
  stop(): Promise<void>;
}

export interface ServiceUnderBenchOptions {
  /** The repository root (cwd of the process, as WORKDIR in the image). */
  root: string;
  /** Relative to root, e.g. services/vacancies/src/main.ts (names the process in errors). */
  entry: string;
  /**
   * The whole command line after `node`: flags, preload and entry point (@svc/manifest entryArgs).
   */
  args: ReadonlyArray<string>;
  /** The service's own settings (LEGACY_DATABASE_URL, …); they win over the wiring below. */
  env: Record<string, string>;
  /** Log lines (stdout, JSON) to keep for waitForLine, e.g. /change detection pass done/. */
  keep?: RegExp;
  readyTimeoutMs?: number;
  /** How often /readyz is asked while starting (default 250 ms). */
  readyPollMs?: number;
  /** Run under this memory limit, as its pod does (startBenchProcess). */
  memoryLimitBytes?: number;
  /** Every line of its output (startBenchProcess). */
  onLine?: (line: string) => void;
}

async function serveJwks(jwks: unknown): Promise<Server> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(jwks));
  }).listen(0, "127.0.0.1");
  await once(server, "listening");
  return server;
}

async function dropNamespace(namespace: string): Promise<void> {
  const nc = await connectNats({
    servers: testEnv.TEST_NATS_URL,
    name: "bench-cleanup",
    logger: silentLogger(),
  });
  try {
    const jsm = await jetstreamManager(nc);
    for await (const name of jsm.streams.names())
      if (name.includes(namespace)) await jsm.streams.delete(name).catch(() => false);
  } finally {
    await drainNats(nc);
  }
}

export async function startServiceUnderBench(
  options: ServiceUnderBenchOptions,
): Promise<ServiceUnderBench> {
  const issuer = await createTestIssuer();
  const jwks = await serveJwks(issuer.jwks);
  const database: TempDatabase = await createTempPgDatabase("bench");
  const namespace = `bench${randomBytes(4).toString("hex")}`;
  const [port, internalPort] = [await unusedPort(), await unusedPort()];
  const cleanup = async () => {
    jwks.close();
    await database.drop().catch(() => undefined);
    await dropNamespace(namespace).catch(() => undefined);
  };
  const internalOrigin = `http://127.0.0.1:${internalPort}`;
  const launch = (env: Record<string, string> = {}) =>
    startBenchProcess([...options.args], {
      cwd: options.root,
      keep: options.keep,
      ...(options.memoryLimitBytes === undefined
        ? {}
        : { memoryLimitBytes: options.memoryLimitBytes }),
      ...(options.onLine === undefined ? {} : { onLine: options.onLine }),
      env: {
        NODE_ENV: "production",
        PORT: String(port),
        INTERNAL_PORT: String(internalPort),
        LOG_LEVEL: "info",
        ENVIRONMENT: "sandbox",
        AUTH_JWKS_URL: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/.well-known/jwks.json`,
        TOKEN_ISSUER: TEST_ISSUER,
        TOKEN_AUDIENCE: TEST_AUDIENCE,
        DATABASE_URL: database.url,
        MIGRATE_ON_START: "true",
        NATS_SERVERS: testEnv.TEST_NATS_URL,
        NATS_NAMESPACE: namespace,
        ...options.env,
        ...env,
      },
    });
  const waitReady = async (server: BenchProcess) => {
    const deadline = Date.now() + (options.readyTimeoutMs ?? 120_000);
    for (;;) {
      if (server.child.exitCode !== null)
        throw new Error(
          `${options.entry} exited (${server.child.exitCode}):\n${server.kept().join("\n")}`,
        );
      const ready = await fetch(`${internalOrigin}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ready) return;
      if (Date.now() > deadline)
        throw new Error(
          `${options.entry} not ready within the timeout:\n${server.kept().join("\n")}`,
        );
      await new Promise((r) => setTimeout(r, options.readyPollMs ?? 250));
    }
  };
  let server: BenchProcess | undefined;
  try {
    server = launch();
    await waitReady(server);
    let current = server;
    return {
      get process() {
        return current;
      },
      origin: `http://127.0.0.1:${port}`,
      internalOrigin,
      databaseUrl: database.url,
      namespace,
      mint: (mint) => issuer.mint(mint),
      restart: async (env) => {
        await current.stop();
        current = launch(env);
        await waitReady(current);
      },
      stop: async () => {
        await current.stop();
        await cleanup();
      },
    };
  } catch (err) {
    await server?.stop();
    await cleanup();
    throw err;
  }
}
