import { randomBytes } from "node:crypto";
import { request } from "node:http";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AckPolicy } from "@nats-io/jetstream";
import { createPgPool } from "@svc/db";
import {
  connectNats,
  drainNats,
  jetstream,
  jetstreamManager,
  type JetStreamManager,
  type NatsConnection,
} from "@svc/messaging";
import {
  createTempPgDatabase,
  silentLogger,
  spawnServiceProcess,
  testEnv,
  waitFor,
  type ServiceProcess,
  type TempDatabase,
} from "@svc/testing";
import type pg from "pg";

// A real process declared on the host (test/fixture/process.ts), stopped the way Kubernetes
// stops a pod, against real PostgreSQL and NATS.
const ENTRY = fileURLToPath(new URL("./fixture/process.ts", import.meta.url));
const prefix = `hostfix${randomBytes(4).toString("hex")}`;
const STREAM = prefix.toUpperCase();

let database: TempDatabase;
let observer: pg.Pool;
let nc: NatsConnection;
let jsm: JetStreamManager;
const children: ServiceProcess[] = [];

type LogLine = { msg: string; step?: string; seq?: number; port?: number; internal_port?: number };

function logs(child: ServiceProcess): LogLine[] {
  return child
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as LogLine);
}

const logged = (child: ServiceProcess, msg: string) => logs(child).find((l) => l.msg === msg);

function spawnFixture(overrides: Record<string, string>): ServiceProcess {
  const child = spawnServiceProcess(ENTRY, {
    PORT: "0",
    INTERNAL_PORT: "0",
    LOG_LEVEL: "info",
    MIGRATE_ON_START: "true",
    DATABASE_URL: database.url,
    NATS_SERVERS: testEnv.TEST_NATS_URL,
    FIXTURE_STREAM: STREAM,
    ...overrides,
  });
  children.push(child);
  return child;
}

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request({ host: "127.0.0.1", port, path, agent: false }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on("error", reject)
      .end();
  });
}

/** Advisory locks and sessions the fixture holds in the test's database, seen from another session. */
async function fixtureSessions(): Promise<{ locks: number; sessions: number }> {
  const { rows } = await observer.query<{ locks: number; sessions: number }>(
    `SELECT (SELECT count(*)::int FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
              WHERE l.locktype = 'advisory' AND l.granted AND a.datname = $1
                AND a.application_name = 'host-fixture') AS locks,
            (SELECT count(*)::int FROM pg_stat_activity
              WHERE datname = $1 AND application_name = 'host-fixture') AS sessions`,
    [database.name],
  );
  return rows[0] ?? { locks: -1, sessions: -1 };
}

async function addConsumer(name: string, subject: string): Promise<void> {
  await jsm.consumers.add(STREAM, {
    durable_name: name,
    ack_policy: AckPolicy.Explicit,
    ack_wait: 60_000_000_000,
    filter_subject: subject,
  });
}

beforeAll(async () => {
  database = await createTempPgDatabase("host_fixture");
  observer = createPgPool({ url: database.url, schema: "public", applicationName: "host-test" });
  nc = await connectNats({ servers: testEnv.TEST_NATS_URL, name: prefix, logger: silentLogger() });
  jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: STREAM, subjects: [`${prefix}.>`] });
  await addConsumer("work", `${prefix}.work`);
  await addConsumer("idle", `${prefix}.idle`);
});

afterAll(async () => {
  for (const child of children) await child.kill();
  await jsm?.streams.delete(STREAM).catch(() => undefined);
  if (nc) await drainNats(nc);
  await observer?.end();
  await database?.drop();
});

describe("the process host", () => {
  it(
    "on SIGTERM finishes the in-flight request, settles the held message, releases the lock, and stops in the reverse order of start-up",
    { timeout: 60_000 },
    async () => {
      const child = spawnFixture({ FIXTURE_CONSUMER: "work" });
      await waitFor("listening", () => logged(child, "listening") !== undefined, 30_000);
      const { port = 0, internal_port: internalPort = 0 } = logged(child, "listening") ?? {};
      await waitFor("ready", async () => (await get(internalPort, "/readyz")).status === 200);
      await waitFor("leading", () => logged(child, "leading") !== undefined);
      expect(await fixtureSessions()).toMatchObject({ locks: 1 });

      const js = jetstream(nc);
      const held = await js.publish(`${prefix}.work`, JSON.stringify({ n: 1 }));
      await waitFor("the message handled", () => logged(child, "handling") !== undefined);
      const response = get(port, "/slow");
      await waitFor("the request", () => logged(child, "slow request started") !== undefined);

      const signalled = Date.now();
      child.child.kill("SIGTERM");
      await waitFor("the consumer to stop", () => logged(child, "consumer stopping") !== undefined);
      const later = await js.publish(`${prefix}.work`, JSON.stringify({ n: 2 }));
      const code = await child.exited();
      const elapsedMs = Date.now() - signalled;

      expect(code).toBe(0);
      expect(elapsedMs).toBeLessThan(15_000);
      expect(await response).toEqual({ status: 200, body: "done" });
      const handled = await observer.query<{ seq: number }>(
        "SELECT seq FROM host_fixture.handled ORDER BY seq",
      );
      expect(handled.rows.map((r) => r.seq)).toEqual([held.seq]);
      const info = await jsm.consumers.info(STREAM, "work");
      expect(info.num_ack_pending).toBe(0);
      expect(info.ack_floor.stream_seq).toBe(held.seq);
      expect(info.delivered.stream_seq).toBe(held.seq);
      expect(info.num_pending).toBe(1);
      expect(later.seq).toBeGreaterThan(held.seq);
      expect(await fixtureSessions()).toEqual({ locks: 0, sessions: 0 });

      const lines = logs(child);
      const started = lines.filter((l) => l.msg === "started").map((l) => l.step);
      const stopped = lines.filter((l) => l.msg === "stopped").map((l) => l.step);
      expect(started).toEqual([
        "internal endpoints",
        "metrics",
        "database",
        "nats",
        "consumer",
        "leader group (host-fixture)",
        "stop accepting requests",
      ]);
      expect(stopped).toEqual([...started].reverse());
      const at = (msg: string) => lines.findIndex((l) => l.msg === msg);
      expect(at("handled")).toBeGreaterThan(at("shutting down"));
    },
  );

  it(
    "stops what has started and exits 1 naming the task when a task fails at start",
    { timeout: 60_000 },
    async () => {
      const child = spawnFixture({ FIXTURE_CONSUMER: "idle", FIXTURE_FAIL_TASK: "true" });
      expect(await child.exited()).toBe(1);
      expect(child.output()).toContain("failed to start: exploding task: boom");
      const lines = logs(child);
      const started = lines.filter((l) => l.msg === "started").map((l) => l.step);
      const stopped = lines.filter((l) => l.msg === "stopped").map((l) => l.step);
      expect(started).toEqual(["internal endpoints", "metrics", "database", "nats", "consumer"]);
      expect(stopped, child.output()).toEqual([...started].reverse());
      expect(await fixtureSessions()).toEqual({ locks: 0, sessions: 0 });
    },
  );

  it("exits 1 before starting anything, naming every bad key, when the configuration does not parse", async () => {
    const child = spawnFixture({ PORT: "not-a-port", DATABASE_POOL_MAX: "0", FIXTURE_STREAM: "" });
    expect(await child.exited()).toBe(1);
    const output = child.output();
    expect(output).toContain("host-fixture: failed to start: invalid configuration");
    for (const key of ["PORT", "DATABASE_POOL_MAX", "FIXTURE_STREAM"])
      expect(output).toMatch(new RegExp(`- ${key}: `));
    expect(logs(child)).toEqual([]);
  });
});
