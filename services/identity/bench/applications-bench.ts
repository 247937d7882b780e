// POST /v1/applications throughput and latency at 16 concurrent clients, against a baseline measured
// in the same run: a bare insert of the same rows (candidate, two identifiers, recruitment case,
// application, three outbox events) in one transaction, straight through pg.
//   npm exec -c 'node services/identity/bench/applications-bench.ts [requests]'
// Needs the local PostgreSQL and NATS (TEST_PG_URL / TEST_NATS_URL as for the tests).
import { randomBytes, randomUUID } from "node:crypto";
import type pg from "pg";
import { createTokenVerifier } from "@svc/auth";
import { createPgPool, runMigrations } from "@svc/db";
import { buildEvent } from "@svc/events";
import { connectNats, drainNats, names, serve } from "@svc/messaging";
import { createTempPgDatabase, createTestIssuer, silentLogger, startApp, testEnv, TEST_AUDIENCE, TEST_ISSUER } from "@svc/testing";
import { createApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { MIGRATIONS_FOLDER } from "../src/db/migrations.ts";
import { NatsVacancyDirectory } from "../src/vacancies/nats-vacancy-directory.ts";

const CONCURRENCY = 16;
const REQUESTS = Number(process.argv[2] ?? 2_000);
const WARM_UP = 200;
// Scenarios alternate in rounds, so a machine whose load drifts during the run (shared CI or
// developer machines) weighs on each of them alike.
const ROUNDS = 5;
const VACANCIES: string[] = Array.from({ length: 50 }, () => randomUUID());

interface Result {
  name: string;
  requests: number;
  seconds: number;
  latenciesMs: number[];
}

/** Runs `work(i)` REQUESTS times with CONCURRENCY in flight; records each call's latency. */
async function measure(name: string, total: number, work: (i: number) => Promise<void>): Promise<Result> {
  const latenciesMs: number[] = [];
  let next = 0;
  const started = performance.now();
  const client = async () => {
    for (let i = next++; i < total; i = next++) {
      const t0 = performance.now();
      await work(i);
      latenciesMs.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, client));
  return { name, requests: total, seconds: (performance.now() - started) / 1000, latenciesMs };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

function row(r: Result, baseline: Result | undefined) {
  const sorted = [...r.latenciesMs].sort((a, b) => a - b);
  const baseSorted = baseline ? [...baseline.latenciesMs].sort((a, b) => a - b) : sorted;
  const rps = r.requests / r.seconds;
  const baseRps = baseline ? baseline.requests / baseline.seconds : rps;
  return {
    scenario: r.name,
    requests: r.requests,
    "req/s": rps.toFixed(0),
    "p50 ms": percentile(sorted, 50).toFixed(1),
    "p99 ms": percentile(sorted, 99).toFixed(1),
    "throughput vs baseline": `${(rps / baseRps).toFixed(2)}x`,
    "p99 vs baseline": `${(percentile(sorted, 99) / percentile(baseSorted, 99)).toFixed(1)}x`,
  };
}

const person = () => ({ email: `bench.${randomBytes(6).toString("hex")}@example.be`, phone: `+32 47${String(randomBytes(4).readUInt32BE(0) % 10_000_000).padStart(7, "0")}` });

/** The rows one new application writes, inserted directly: the floor any implementation pays. */
async function bareInsert(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  const now = new Date();
  const [candidate, recruitmentCase, application] = [randomUUID(), randomUUID(), randomUUID()];
  const vacancy = VACANCIES[Math.floor(Math.random() * VACANCIES.length)] as string;
  const events = [
    buildEvent({ type: "candidate.created", entityId: candidate, publicBaseUrl: "https://bench.invalid" }),
    buildEvent({ type: "recruitment_case.created", entityId: recruitmentCase, publicBaseUrl: "https://bench.invalid" }),
    buildEvent({ type: "application.created", entityId: application, publicBaseUrl: "https://bench.invalid" }),
  ];
  try {
    await client.query("BEGIN");
    await client.query("INSERT INTO identity.candidates (candidate_uuid, status, created_at) VALUES ($1, 'active', $2)", [candidate, now]);
    await client.query("INSERT INTO identity.candidate_identifiers (lookup_hash, kind, candidate_uuid, created_at) VALUES ($1, 'email', $3, $4), ($2, 'phone', $3, $4)", [randomBytes(32), randomBytes(32), candidate, now]);
    await client.query("INSERT INTO identity.recruitment_cases (recruitment_case_uuid, candidate_uuid, vacancy_uuid, practice_id, created_at) VALUES ($1, $2, $3, 'bench-practice', $4)", [recruitmentCase, candidate, vacancy, now]);
    await client.query(
      "INSERT INTO identity.applications (application_uuid, candidate_uuid, vacancy_uuid, practice_id, resolution, consent_flag, entrypoint_raw, entrypoint_code, recruitment_case_uuid, created_at) VALUES ($1, $2, $3, 'bench-practice', 'resolved', true, 'website', 'website', $4, $5)",
      [application, candidate, vacancy, recruitmentCase, now],
    );
    for (const e of events) await client.query("INSERT INTO identity.outbox (event_uuid, event_type, payload) VALUES ($1, $2, $3)", [e.event_uuid, e.event_type, e]);
    await client.query("COMMIT");
  } finally {
    client.release();
  }
}

async function main(): Promise<void> {
  const database = await createTempPgDatabase("identity_bench");
  const pool = createPgPool({ url: database.url, schema: "identity", applicationName: "identity-bench", max: CONCURRENCY });
  await runMigrations(pool, { schema: "identity", migrationsFolder: MIGRATIONS_FOLDER });
  const namespace = `b${randomBytes(5).toString("hex")}`;
  const nc = await connectNats({ servers: testEnv.TEST_NATS_URL, name: "identity-bench", logger: silentLogger() });
  const subject = names(namespace).rpc.vacancyExists;
  const responder = serve<{ uuid: string }, unknown>(nc, subject, ({ uuid }) => ({ exists: VACANCIES.includes(uuid), practice_id: "bench-practice" }), { queue: "vacancies", logger: silentLogger() });
  const config = loadConfig({ IDENTITY_PEPPER: "bench-pepper-that-is-at-least-32-bytes-long", NATS_NAMESPACE: namespace, DATABASE_POOL_MAX: String(CONCURRENCY) });
  const issuer = await createTestIssuer();
  const verify = createTokenVerifier({ keys: issuer.keys, issuer: TEST_ISSUER, audience: TEST_AUDIENCE });
  const vacancies = new NatsVacancyDirectory({ nc, subject, timeoutMs: config.VACANCY_LOOKUP_TIMEOUT_MS });
  const app = await startApp(createApp({ config, logger: silentLogger(), verify, pool, vacancies, now: () => new Date() }));
  const token = await issuer.mint({ scope: "applications:write" });
  const post = (headers: Record<string, string> = {}) => async () => {
    const body = { vacancy_uuid: VACANCIES[Math.floor(Math.random() * VACANCIES.length)], candidate: person(), consent: true, entrypoint: "website" };
    const res = await fetch(`${app.baseUrl}/v1/applications`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) });
    await res.arrayBuffer();
    if (res.status !== 201) throw new Error(`unexpected status ${res.status}`);
  };
  try {
    await measure("warm-up", WARM_UP, post());
    await measure("warm-up", WARM_UP, () => bareInsert(pool));
    const scenarios: Array<[string, () => Promise<void>]> = [
      ["baseline: bare insert of the same rows (pg, 1 tx)", () => bareInsert(pool)],
      ["POST /v1/applications (new person)", post()],
      ["POST /v1/applications + Idempotency-Key", () => post({ "Idempotency-Key": randomUUID() })()],
    ];
    const totals = scenarios.map(([name]) => ({ name, requests: 0, seconds: 0, latenciesMs: [] as number[] }));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, [name, work]] of scenarios.entries()) {
        const r = await measure(name, Math.ceil(REQUESTS / ROUNDS), work);
        const total = totals[i] as Result;
        total.requests += r.requests;
        total.seconds += r.seconds;
        total.latenciesMs.push(...r.latenciesMs);
      }
    }
    console.log(`\nidentity: POST /v1/applications, ${CONCURRENCY} concurrent clients, ${REQUESTS} requests per scenario in ${ROUNDS} interleaved rounds\n`);
    console.table(totals.map((r) => row(r, totals[0])));
  } finally {
    await app.close();
    await responder.stop();
    await drainNats(nc);
    await pool.end();
    await database.drop();
  }
}

await main();
