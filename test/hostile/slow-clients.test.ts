/**
 * Slow and incomplete requests against a real service process (auth) and the real gateway process
 * in front of it: 200 raw connections trickle their headers or their bodies, a byte or a header
 * line at a time, while a normal client keeps sending GETs through the gateway.
 *
 * Pass: every slow connection is answered 408 REQUEST_TIMEOUT in the error envelope and closed
 * within 2 s after the configured timeout (never before it); a body that trickles through the
 * gateway is cut by the service and its 408 passed through (the gateway's own request timeout is
 * longer); the normal client's p99 stays within 3x of its p99 without the slow connections (or
 * 10 ms above it, when that is more), and under 200 ms unless the machine is too busy to serve even
 * the lone client that fast.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { Agent, get } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTempPgDatabase,
  sleep,
  spawnServiceProcess,
  testEnv,
  trickleRequest,
  unusedPort,
  waitFor,
  type ServiceProcess,
  type TempDatabase,
} from "@svc/testing";
import { ensureLocalSigningKeys } from "../../services/auth/src/domain/keys/local-keys.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TIMEOUT_MS = 3_000;
/** The gateway's own request timeout: longer, so a 408 at TIMEOUT_MS can only be the service's. */
const GATEWAY_REQUEST_TIMEOUT_MS = 8_000;
const TOLERANCE_MS = 2_000;
const SLOW_PER_KIND = 50;
const TRICKLE_EVERY_MS = 1_000;
const P99_BOUND_MS = 200;
/**
 * What the file running beside this one on the two cores adds to a p99 of a few milliseconds
 * (measured: 3.3 ms alone, 10.7 ms in the loaded window). The harm this test guards against (the
 * event loop or the connection slots taken by slow clients) costs hundreds of milliseconds.
 */
const NEIGHBOUR_MS = 10;
/** How long the normal client runs beside the slow connections (and alone, in two halves). */
const WINDOW_MS = 9_000;

let database: TempDatabase;
let keysDir: string;
let auth: ServiceProcess;
let gateway: ServiceProcess;
let authPort: number;
let gatewayPort: number;

beforeAll(async () => {
  database = await createTempPgDatabase("slow");
  keysDir = await mkdtemp(join(tmpdir(), "slow-clients-"));
  await ensureLocalSigningKeys(keysDir);
  [authPort, gatewayPort] = [await unusedPort(), await unusedPort()];
  const internalPort = await unusedPort();
  const common = {
    PATH: process.env.PATH ?? "",
    LOG_LEVEL: "warn",
    HTTP_HEADERS_TIMEOUT_MS: String(TIMEOUT_MS),
  };
  auth = spawnServiceProcess(
    "services/auth/src/main.ts",
    {
      ...common,
      PORT: String(authPort),
      INTERNAL_PORT: String(internalPort),
      HTTP_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS),
      DATABASE_URL: database.url,
      MIGRATE_ON_START: "true",
      SIGNING_KEYS_DIR: keysDir,
      NATS_SERVERS: testEnv.TEST_NATS_URL,
      NATS_NAMESPACE: `slow${process.pid}`,
    },
    { cwd: ROOT },
  );
  gateway = spawnServiceProcess(
    "services/gateway/src/main.ts",
    {
      ...common,
      PORT: String(gatewayPort),
      HTTP_REQUEST_TIMEOUT_MS: String(GATEWAY_REQUEST_TIMEOUT_MS),
      GATEWAY_UPSTREAMS: `auth=http://127.0.0.1:${authPort}`,
    },
    { cwd: ROOT },
  );
  const ready = async () => {
    const res = await fetch(`http://127.0.0.1:${internalPort}/readyz`).catch(() => undefined);
    await res?.body?.cancel();
    return res?.status === 200;
  };
  await waitFor("auth ready", ready, 60_000).catch((err: Error) => {
    throw new Error(`${err.message}\n${auth.output().slice(-2_000)}`);
  });
  await waitFor(
    "the gateway",
    async () =>
      (await fetch(`http://127.0.0.1:${gatewayPort}/version`).catch(() => null))?.ok === true,
    10_000,
  );
}, 90_000);

afterAll(async () => {
  normalAgent.destroy();
  await Promise.all([gateway?.kill(), auth?.kill()]);
  await database?.drop();
  await rm(keysDir, { recursive: true, force: true });
});

interface SlowOutcome {
  status: number | undefined;
  code: string | undefined;
  /** From connecting to the connection's end (the answer arrives just before it). */
  ms: number;
}

/**
 * Sends `head`, then `unit` every TRICKLE_EVERY_MS until the server closes the connection; a
 * connection still open after 20 s is a hang (status undefined).
 */
async function trickle(port: number, head: string, unit: string): Promise<SlowOutcome> {
  const { ms, text } = await trickleRequest(port, head, unit, {
    everyMs: TRICKLE_EVERY_MS,
    giveUpMs: 20_000,
  });
  const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
  let code: string | undefined;
  try {
    const body = text.slice(text.indexOf("\r\n\r\n") + 4);
    code = (JSON.parse(body) as { error?: { code?: string } }).error?.code;
  } catch {
    code = undefined;
  }
  return { status: status === undefined ? undefined : Number(status), code, ms };
}

const slowHeaders = (port: number) =>
  trickle(port, "GET /version HTTP/1.1\r\nHost: localhost\r\n", "X-Slow: 1\r\n");

const slowBody = (port: number) =>
  trickle(
    port,
    [
      "POST /oauth/token HTTP/1.1",
      "Host: localhost",
      "Content-Type: application/x-www-form-urlencoded",
      `Authorization: Basic ${Buffer.from("slow-client:not-a-secret").toString("base64")}`,
      "Content-Length: 10000",
      "",
      "grant_type=",
    ].join("\r\n"),
    "c",
  );

/** A plain keep-alive client: fetch's own cost (and the contract check on it) would be measured. */
const normalAgent = new Agent({ keepAlive: true, maxSockets: 1 });

function getVersion(): Promise<number> {
  return new Promise((resolve, reject) => {
    get({ host: "127.0.0.1", port: gatewayPort, path: "/version", agent: normalAgent }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    }).on("error", reject);
  });
}

/** GETs one after another over keep-alive until `until` settles; each request's duration in ms. */
async function normalClient(until: Promise<unknown>): Promise<number[]> {
  let done = false;
  void until.finally(() => (done = true));
  const durations: number[] = [];
  while (!done) {
    const started = performance.now();
    expect(await getVersion()).toBe(200);
    durations.push(performance.now() - started);
  }
  return durations;
}

function p99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? Number.NaN;
}

describe("slow clients", () => {
  it(
    "cuts 200 trickling connections at the configured timeout with 408 while normal clients keep their p99",
    { timeout: 90_000 },
    async () => {
      // The machine's own load drifts: the lone client is measured before and after.
      const before = await normalClient(sleep(WINDOW_MS / 2));

      const kinds = {
        "headers, to the service": () => slowHeaders(authPort),
        "body, to the service": () => slowBody(authPort),
        "headers, through the gateway (its own timeout)": () => slowHeaders(gatewayPort),
        "body, through the gateway (the service's 408 passed through)": () => slowBody(gatewayPort),
      };
      // Each of the 200 slots opens a new slow connection as soon as its last one is cut, for the
      // whole window, so the normal client always has 200 of them beside it. The slots start
      // spread over one timeout, as unrelated clients would, instead of all in the same tick.
      const until = performance.now() + WINDOW_MS;
      const slow = Promise.all(
        Object.entries(kinds).map(async ([kind, open]) => {
          const outcomes: SlowOutcome[] = [];
          await Promise.all(
            Array.from({ length: SLOW_PER_KIND }, async (_, i) => {
              await sleep((i * TIMEOUT_MS) / SLOW_PER_KIND);
              while (performance.now() < until) outcomes.push(await open());
            }),
          );
          return { kind, outcomes };
        }),
      );
      const loaded = await normalClient(sleep(WINDOW_MS));
      const results = await slow;
      const baseline = [...before, ...(await normalClient(sleep(WINDOW_MS / 2)))];

      const summary = results.map(({ kind, outcomes }) => {
        const ms = outcomes.map((o) => o.ms).sort((a, b) => a - b);
        return `${kind}: ${outcomes.length} cut after ${Math.round(ms[0]!)}-${Math.round(ms.at(-1)!)} ms`;
      });
      console.log(
        `[slow-clients] timeout ${TIMEOUT_MS} ms; ${summary.join("; ")}; normal GET p99 ` +
          `${p99(baseline).toFixed(1)} ms alone (${baseline.length} requests), ` +
          `${p99(loaded).toFixed(1)} ms beside the slow connections (${loaded.length} requests)`,
      );

      const wrong = results.flatMap(({ kind, outcomes }) =>
        outcomes
          .filter(
            (o) =>
              o.status !== 408 ||
              o.code !== "REQUEST_TIMEOUT" ||
              o.ms < TIMEOUT_MS ||
              o.ms > TIMEOUT_MS + TOLERANCE_MS,
          )
          .map((o) => ({ kind, ...o })),
      );
      expect(wrong).toEqual([]);
      expect(p99(loaded)).toBeLessThanOrEqual(
        Math.max(3 * p99(baseline), p99(baseline) + NEIGHBOUR_MS),
      );
      // On a machine too busy to serve a lone client's p99 under a third of the bound, the bound
      // measures the machine, not the slow connections; the relative bound above still holds.
      if (p99(baseline) < P99_BOUND_MS / 3) expect(p99(loaded)).toBeLessThan(P99_BOUND_MS);
      else console.log(`[slow-clients] machine busy: the ${P99_BOUND_MS} ms bound is not checked`);
    },
  );
});
