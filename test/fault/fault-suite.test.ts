/**
 * Fault suite. The whole system runs as `npm start` runs it, on private
 * PostgreSQL, MariaDB and NATS servers, under steady load: read loops through the gateway,
 * applications created with Idempotency-Keys, legacy vacancy rows changed, and a webhook
 * subscription whose HTTPS receiver counts event ids. Each backing service is stopped and
 * restarted in turn, then every service process is SIGKILLed once (the launcher restarts it).
 * While a source is down, requests that need it answer 503 with the contract's code within the
 * configured timeout (never a hang) and the others keep working; afterwards everything recovers
 * without a service restart; at the end every committed application and every legacy change has
 * reached the receiver and every delivery record has succeeded.
 *
 * CI size: `npm test`. Full size: `FAULT_SUITE=full npx vitest run test/fault`.
 */
import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReceiver, type Receiver } from "../../services/webhooks/test/support/receiver.ts";
import { createTestCa, type TestCa } from "@svc/testing";
import {
  apiRequest,
  fetchToken as fetchClientToken,
  listedVacancies,
} from "./support/api-client.ts";
import { describeSamples, latency, ok, recovered, sleep, waitUntil } from "./support/checks.ts";
import { faultSize } from "./support/fault-size.ts";
import {
  launchStack,
  NATS_NAMESPACE,
  ROOT,
  startBackends,
  type Backends,
  type FaultStack,
  cleanUp,
} from "./support/fault-stack.ts";
import {
  readTargets,
  Recorder,
  startReadLoops,
  type ReadTarget,
  type Sample,
} from "./support/load.ts";
import {
  startApplicationProducer,
  startLegacyChanges,
  type ApplicationProducer,
  type LegacyChanger,
  type VacancyRef,
} from "./support/producers.ts";
import {
  deliveryReport,
  expectNothingLost,
  type DeliveryReport,
} from "./support/delivery-report.ts";
import {
  HANG_MS,
  keyHeld,
  OK_BOUND_MS,
  SLACK_MS,
  STACK_ENV,
  UNAVAILABLE_CODES,
  whileDown,
  type Source,
} from "./support/expectations.ts";

const size = faultSize();
const TIME_ZONE = "Europe/Brussels";
const SUBSCRIBED = [
  "candidate.created",
  "recruitment_case.created",
  "application.created",
  "vacancy.updated",
];
/** One in twenty events fails its first POST with 503, so retries are in flight when faults hit. */
const flaky = (eventId: string) => createHash("sha256").update(eventId).digest()[0]! < 13;

let backends: Backends;
let stack: FaultStack;
let ca: TestCa;
let receiver: Receiver;
let db: pg.Pool;
const recorder = new Recorder();
let targets: ReadTarget[];
let reads: { stop(): Promise<void> } | undefined;
let applications: ApplicationProducer | undefined;
let changes: LegacyChanger | undefined;
let accessToken = "";
const runId = randomBytes(3).toString("hex");
const startedAt = Date.now();
const phases: string[] = [];
/** Windows in which clients could not reach the gateway at all (it was killed). */
const gatewayDown: Array<[number, number]> = [];
const killed: string[] = [];
/** When the last fault's recovery was confirmed: steadiness is judged from then on. */
let steadySince = 0;
let delivered: DeliveryReport | undefined;

async function fetchToken(client = stack.demoClient): Promise<string> {
  return fetchClientToken(stack.baseUrl, client);
}

async function api<T>(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  return apiRequest<T>(stack.baseUrl, accessToken, method, path, body);
}

/** Vacancies the API lists (so the detector tracks them), enough for the whole run's changes. */
async function listVacancies(count: number): Promise<VacancyRef[]> {
  return listedVacancies(stack.baseUrl, accessToken, count);
}

const execFileAsync = promisify(execFile);

/** `npm run clients -- <args> --json` against the private servers (what an operator runs). */
async function clientsCli(args: string[]): Promise<string> {
  const env = {
    ...process.env,
    DATABASE_URL: backends.pgUrl,
    NATS_SERVERS: backends.nats.url,
    NATS_NAMESPACE,
    ENVIRONMENT: "sandbox",
  };
  return (
    await execFileAsync(process.execPath, ["services/auth/src/cli/clients.ts", ...args, "--json"], {
      cwd: ROOT,
      env,
      timeout: 30_000,
    })
  ).stdout;
}

/** A second client whose token the revocation check refuses. */
let victim = { clientId: "", clientSecret: "" };
let victimToken = "";
async function createVictim(): Promise<void> {
  const created = JSON.parse(
    await clientsCli(["create", "--name", "fault-victim", "--all-scopes"]),
  ) as { client: { id: string }; client_secret: string };
  victim = { clientId: created.client.id, clientSecret: created.client_secret };
  victimToken = await fetchToken(victim);
}
async function revokeVictim(): Promise<void> {
  await clientsCli(["revoke", victim.clientId]);
}

async function scalar<T>(sql: string): Promise<T | undefined> {
  try {
    return (await db.query(sql)).rows[0] as T | undefined;
  } catch {
    return undefined;
  }
}

beforeAll(async () => {
  backends = await startBackends();
  ca = createTestCa();
  receiver = await startReceiver({ key: ca.serverKey, cert: ca.serverCert });
  // FAULT_SUITE_LOG_LEVEL=info (with FAULT_SUITE_LOG) keeps every request's log line for a
  // diagnosis.
  stack = await launchStack(backends, {
    ...STACK_ENV,
    LOG_LEVEL: process.env.FAULT_SUITE_LOG_LEVEL ?? STACK_ENV.LOG_LEVEL!,
    WEBHOOK_EXTRA_CA_FILE: ca.caFile,
  });
  db = new pg.Pool({ connectionString: backends.pgUrl, max: 2, connectionTimeoutMillis: 2_000 });
  db.on("error", () => undefined);
  accessToken = await fetchToken();
  const sub = await api<{ data: { secret: string } }>("POST", "/v1/webhooks", {
    url: receiver.url("/fault"),
    event_types: SUBSCRIBED,
  });
  if (sub.status !== 201)
    throw new Error(`subscription: ${sub.status} ${JSON.stringify(sub.body)}`);
  receiver.setSecrets("/fault", [sub.body.data.secret]);
  receiver.setBehaviour("/fault", (n, eventId) => ({
    status: n === 1 && flaky(eventId) ? 503 : 204,
    delayMs: 20,
  }));
  await createVictim();
  // Changes made before the detector's first pass would only become its baseline, not events.
  await waitUntil(
    "the vacancy detector's baseline",
    () => scalar("SELECT 1 AS one FROM vacancies.change_cursor WHERE source = 'vacancies'"),
    60_000,
  );
  const budgetSeconds = size.budgetMs / 1_000;
  const vacancies = await listVacancies(Math.ceil(size.legacyChangesPerSecond * budgetSeconds));
  targets = readTargets(stack.baseUrl, () => accessToken, stack.demoClient);
  reads = startReadLoops(recorder, targets, size.readers, size.readPauseMs);
  applications = startApplicationProducer({
    recorder,
    baseUrl: stack.baseUrl,
    token: () => accessToken,
    vacancies,
    perSecond: size.applicationsPerSecond,
    maxOutstanding: 20,
    runId,
  });
  changes = startLegacyChanges({
    legacyUrl: backends.legacyUrl,
    vacancyUuids: vacancies.map((v) => v.uuid),
    perSecond: size.legacyChangesPerSecond,
    timeZone: TIME_ZONE,
    runId,
  });
  phases.push(`stack up on private servers after ${Date.now() - startedAt} ms (size ${size.name})`);
}, 240_000);

afterAll(async () => {
  await cleanUp("fault suite", [
    async () => reads?.stop(),
    async () => applications?.stop(0),
    async () => changes?.stop(),
    async () => db?.end(),
    async () => stack?.stop(),
    async () => receiver?.close(),
    async () => backends?.cleanup(),
    async () => ca?.dispose(),
  ]);
  const all = recorder.samples;
  console.info(
    [
      `fault suite (${size.name}) in ${Math.round((Date.now() - startedAt) / 1000)} s`,
      ...phases,
      `requests: ${all.length}, slowest ${all.length ? Math.max(...all.map(latency)) : 0} ms`,
      ...(delivered ? delivered.lines : []),
    ].join("\n"),
  );
}, 120_000);

/**
 * Since the last recovery (at most `ms`): every target answers 2xx (a stuck Idempotency-Key may
 * still answer 409).
 */
function expectSteady(ms: number): void {
  const now = Date.now();
  for (const target of [...targets.map((t) => t.name), "apply"]) {
    const window = recorder.between(target, Math.max(now - ms, steadySince), now);
    const bad = window.filter((s) => !ok(s) && !keyHeld(s));
    expect(bad, `${target} before the fault: ${describeSamples(window)}`).toEqual([]);
  }
}

async function outage(
  source: Source,
  how: "stopped" | "frozen",
  down: () => Promise<void> | void,
  up: () => Promise<void> | void,
  durationMs: number,
): Promise<void> {
  expectSteady(2_000);
  const exitsBefore = stack.exits().length;
  await down();
  const downAt = Date.now();
  await sleep(durationMs);
  const upAt = Date.now();
  await up();
  const restartedAt = Date.now();
  const expectations = Object.entries(whileDown(source, how));
  const needing = expectations.filter(([, e]) => e !== "ok").map(([t]) => t);
  const back: string[] = [];
  const flaps: string[] = [];
  for (const target of needing) {
    const { firstOk, flaps: again } = await recovered(recorder, target, restartedAt, 30_000);
    back.push(`${target} ${firstOk - restartedAt} ms`);
    if (again.length > 0)
      flaps.push(`${target} failed again after its first 2xx: ${describeSamples(again)}`);
  }
  steadySince = Date.now();
  phases.push(
    `[t+${Math.round((downAt - startedAt) / 1000)} s] ${source} ${how} ${upAt - downAt} ms, back up in ${restartedAt - upAt} ms; first 2xx after that: ${back.join(", ")}`,
  );
  for (const [target, expectation] of expectations) {
    const window = recorder.between(target, downAt, upAt);
    // Requests already running when it went down count too: they must not hang either.
    const overlapping = recorder.samples.filter(
      (x) => x.target === target && x.start < upAt && x.end > downAt,
    );
    phases.push(`  ${target}: ${describeSamples(window)}`);
    if (expectation === "ok") {
      const bad = overlapping.filter((x) => !ok(x) || latency(x) > OK_BOUND_MS);
      expect(
        bad,
        `${target} while ${source} was ${how}, expected 2xx within ${OK_BOUND_MS} ms: ${describeSamples(overlapping)}`,
      ).toEqual([]);
      continue;
    }
    // Answered while the source was still gone: the 503. Answered once it was back (a request
    // that waited on a frozen server): 503 or 2xx. Either way within the bound, never a hang.
    const isUnavailable = (x: Sample) =>
      x.status === expectation.status && x.code === expectation.code;
    const bad = overlapping.filter(
      (x) =>
        !keyHeld(x) &&
        (latency(x) > expectation.boundMs ||
          !(isUnavailable(x) || (ok(x) && (x.end >= upAt || x.start < downAt)))),
    );
    expect(
      bad,
      `${target} while ${source} was ${how}, expected ${JSON.stringify(expectation)}: ${describeSamples(overlapping)}`,
    ).toEqual([]);
    expect(
      overlapping.filter((x) => x.end < upAt && isUnavailable(x)).length,
      `${target} answered 503 while ${source} was ${how}`,
    ).toBeGreaterThan(0);
  }
  expect(flaps).toEqual([]);
  // Recovered on their own: no service process exited or was restarted.
  expect(stack.exits().slice(exitsBefore)).toEqual([]);
}

/** The read targets (and "apply") a SIGKILL of these processes takes away for a moment. */
function affectedBy(names: string[]): string[] {
  if (names.includes("gateway")) return [...targets.map((t) => t.name), "apply"];
  const affected = targets.filter((t) => names.includes(t.service)).map((t) => t.name);
  // An application needs identity, and the vacancies service to look its vacancy up.
  if (names.includes("vacancies") || names.includes("identity")) affected.push("apply");
  return affected;
}

async function killWave(names: string[]): Promise<void> {
  expectSteady(1_500);
  const before = await stack.pids();
  for (const name of names) expect(before.get(name), `${name} runs`).toBeDefined();
  const killedAt = Date.now();
  for (const name of names) process.kill(before.get(name)!, "SIGKILL");
  killed.push(...names);
  const after = await waitUntil(
    `${names.join(", ")} to be restarted`,
    async () => {
      const now = await stack.pids();
      const back = names.every((n) => now.get(n) !== undefined && now.get(n) !== before.get(n));
      return back && (await Promise.all(names.map((n) => stack.healthy(n)))).every(Boolean)
        ? now
        : undefined;
    },
    60_000,
    () => stack.output().split("\n").slice(-20).join("\n"),
    200,
  );
  const backAt = Date.now();
  if (names.includes("gateway")) gatewayDown.push([killedAt, backAt]);
  const affected = affectedBy(names);
  const flaps: string[] = [];
  for (const target of affected) {
    const { flaps: again } = await recovered(recorder, target, backAt, 30_000, 500);
    if (again.length > 0)
      flaps.push(`${target} failed again after its first 2xx: ${describeSamples(again)}`);
  }
  steadySince = Date.now();
  await sleep(size.afterKillMs);
  const pids = names.map((n) => `${n} ${before.get(n)} → ${after.get(n)}`).join(", ");
  phases.push(
    `[t+${Math.round((killedAt - startedAt) / 1000)} s] SIGKILL ${pids}: back after ${backAt - killedAt} ms`,
  );
  for (const t of [...targets.map((x) => x.name), "apply"]) {
    const window = recorder.between(t, killedAt, backAt);
    // A killed service is gone for a moment: the gateway answers 503 for it (or, when the
    // gateway itself is gone, nothing answers). Everything else keeps working.
    const allowed = (x: Sample) =>
      ok(x) ||
      keyHeld(x) ||
      (affected.includes(t) &&
        ((x.status === 503 && UNAVAILABLE_CODES.has(x.code ?? "")) ||
          (names.includes("gateway") && x.status === 0)));
    const bad = window.filter((x) => !allowed(x) || (latency(x) > HANG_MS && !keyHeld(x)));
    expect(
      bad,
      `${t} while ${names.join(", ")} ${names.length > 1 ? "were" : "was"} down: ${describeSamples(window)}`,
    ).toEqual([]);
  }
  expect(flaps).toEqual([]);
}

describe(`fault suite (${size.name} size)`, () => {
  it("serves every read, application and legacy change under steady load", async () => {
    await sleep(3_000);
    expectSteady(2_500);
    expect(applications!.acknowledged().length).toBeGreaterThan(0);
    expect(changes!.committed().length).toBeGreaterThan(0);
  }, 30_000);

  it("MariaDB stopped: legacy reads answer 503 LEGACY_SOURCE_UNAVAILABLE at once, the rest keeps working, all recover after its restart", async () => {
    await outage(
      "mysql",
      "stopped",
      () => backends.mariadb.stop(),
      () => backends.mariadb.start(),
      size.outageMs,
    );
  }, 90_000);

  it("MariaDB hanging: legacy reads answer 503 LEGACY_SOURCE_UNAVAILABLE within the legacy connect and query timeouts, never later; all recover when it answers again", async () => {
    await outage(
      "mysql",
      "frozen",
      () => backends.mariadb.freeze(),
      () => backends.mariadb.thaw(),
      size.freezeMs,
    );
  }, 90_000);

  it("PostgreSQL stopped: reads of our own store answer 503 SERVICE_UNAVAILABLE at once, legacy reads keep working, all recover after its restart", async () => {
    await outage(
      "pg",
      "stopped",
      () => backends.pg.stop(),
      () => backends.pg.start(),
      size.outageMs,
    );
  }, 90_000);

  it("PostgreSQL hanging: reads of our own store answer 503 SERVICE_UNAVAILABLE within the query timeout, never later; all recover when it answers again", async () => {
    await outage(
      "pg",
      "frozen",
      () => backends.pg.freeze(),
      () => backends.pg.thaw(),
      size.freezeMs,
    );
  }, 90_000);

  it("NATS killed: application intake answers 503 SERVICE_UNAVAILABLE in time, every read keeps working, all recover after its restart", async () => {
    await outage(
      "nats",
      "stopped",
      () => backends.nats.kill(),
      () => backends.nats.restart(),
      size.outageMs,
    );
  }, 90_000);

  it("after the NATS restart a revoked client's token is refused by every service within seconds (the revocation watch resumed)", async () => {
    await revokeVictim();
    const revokedAt = Date.now();
    const paths = [
      "/v1/vacancies?per_page=1",
      "/v1/practices?per_page=1",
      "/v1/applications?per_page=1",
      "/v1/webhooks",
    ];
    const refused = await waitUntil(
      "every service to refuse the revoked token",
      async () => {
        const statuses = await Promise.all(
          paths.map(
            async (path) =>
              (
                await fetch(`${stack.baseUrl}${path}`, {
                  headers: { authorization: `Bearer ${victimToken}` },
                })
              ).status,
          ),
        );
        return statuses.every((s) => s === 401) ? Date.now() : undefined;
      },
      15_000,
      () => "",
      100,
    );
    phases.push(
      `revocation after the NATS restart refused everywhere in ${refused - revokedAt} ms`,
    );
    expect(refused - revokedAt).toBeLessThan(2_000 + SLACK_MS);
  }, 30_000);

  it("NATS hanging: application intake answers 503 SERVICE_UNAVAILABLE within the lookup timeout, every read keeps working, all recover when it answers again", async () => {
    const pid = backends.nats.pid();
    await outage(
      "nats",
      "frozen",
      () => void process.kill(pid, "SIGSTOP"),
      () => void process.kill(pid, "SIGCONT"),
      size.freezeMs,
    );
  }, 90_000);

  for (const wave of size.killWaves) {
    it(`SIGKILL ${wave.join(" + ")}: the launcher restarts ${wave.length > 1 ? "them" : "it"}, ${wave.length > 1 ? "their" : "its"} requests recover, the rest keeps working`, async () => {
      await killWave(wave);
    }, 120_000);
  }

  it("lost nothing: every committed application and legacy change reached the receiver, every delivery succeeded", async () => {
    await changes!.stop();
    // Keys still retried now are abandoned: whatever they committed is in the database and checked.
    await applications!.stop(3_000);
    await reads!.stop();
    delivered = await deliveryReport({
      db,
      receiver,
      path: "/fault",
      applications: applications!,
      changes: changes!,
      subscribed: SUBSCRIBED,
      failsFirst: flaky,
      timeoutMs: 90_000,
    });
    expectNothingLost(delivered, applications!);
  }, 180_000);

  it("restarted only the processes it killed, and no request hung", () => {
    const exits = stack.exits();
    expect(exits.map((line) => line.split(/\s+/)[0]).sort()).toEqual([...killed].sort());
    const hung = recorder.samples.filter((s) => latency(s) > HANG_MS && !keyHeld(s));
    expect(hung, describeSamples(hung)).toEqual([]);
    // No answer at all only for requests that were running or started while the gateway was gone.
    const unanswered = recorder.samples.filter(
      (s) => s.status === 0 && !gatewayDown.some(([a, b]) => s.end >= a && s.start <= b),
    );
    expect(unanswered, describeSamples(unanswered)).toEqual([]);
  });
});
