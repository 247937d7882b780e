/**
 * Hostile-input suite: generated requests against every public endpoint of a private `npm start`
 * stack (plus the production-only routes in-process): malformed query strings and JSON, wrong
 * types, huge and deeply nested bodies, unicode edge cases, header injection, path traversal and
 * very long ids, odd methods and broken HTTP.
 *
 * Pass: no 5xx, no hang or dropped connection, every error in the contract's shape, no write
 * accepted, no process crashed or restarted, no unexpected error logged, no stored data changed.
 *
 *   FAULT_SUITE   size (test/support/test-size.ts): 2,500 generated requests by default, 50,000
 *                 with FAULT_SUITE=full
 *   HOSTILE_RUNS  generated requests per run, whatever the size
 *   HOSTILE_SEED  fast-check seed (default fixed, so a run is reproducible; printed at the start)
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendRaw } from "../support/raw-http.ts";
import { snapshotDifferences, type StoreSnapshot } from "../support/store-snapshot.ts";
import { contractProblems, describeOutcome } from "./contract.ts";
import { ENDPOINTS } from "./endpoints.ts";
import {
  bodyFamily,
  headerFamily,
  methodFamily,
  pathFamily,
  queryFamily,
  type GenerationContext,
} from "./families.ts";
import { oauthFamily, protocolFamily } from "./protocol.ts";
import { describe as describeRequest, render, type HostileRequest } from "./requests.ts";
import { bySize } from "../support/test-size.ts";
import { startWorld, type World } from "./world.ts";

const RUNS = Number(process.env.HOSTILE_RUNS ?? bySize({ ci: 2_500, full: 50_000 }));
const SEED = Number(process.env.HOSTILE_SEED ?? "20261122");
if (!Number.isInteger(RUNS) || RUNS < 1)
  throw new Error("HOSTILE_RUNS must be a positive whole number");
if (!Number.isInteger(SEED)) throw new Error("HOSTILE_SEED must be a whole number");

/** Each family's share of the runs. */
const FAMILIES: ReadonlyArray<
  [string, number, (ctx: GenerationContext) => fc.Arbitrary<HostileRequest>]
> = [
  ["path ids (traversal, NUL, encodings, unicode, very long ids)", 0.18, pathFamily],
  [
    "query strings (duplicates, arrays, wrong types, huge values, broken encodings)",
    0.18,
    queryFamily,
  ],
  [
    "JSON bodies (malformed, wrong types, extra and prototype keys, deep nesting, over the limit)",
    0.2,
    bodyFamily,
  ],
  [
    "headers (tokens, Content-Type, Idempotency-Key, forwarding and odd headers)",
    0.16,
    headerFamily,
  ],
  ["methods (unsupported methods answer 405 with Allow)", 0.08, methodFamily],
  [
    "protocol (CR/LF injection, malformed request lines, smuggling framing, oversized heads)",
    0.12,
    () => protocolFamily(),
  ],
  ["token endpoint (form bodies, Basic credentials)", 0.08, (ctx) => oauthFamily(ctx.demoClientId)],
];

const scopeOf = new Map(ENDPOINTS.map((e) => [e.name, e.scope]));
let world: World;
let before: StoreSnapshot;
let pidsAtStart: number[];
let sent = 0;
/** Answers by family and status, printed at the end: what the generators actually reached. */
const statuses = new Map<string, Map<string, number>>();

async function check(request: HostileRequest): Promise<void> {
  const wire = render(request, scopeOf.get(request.endpoint), world.render);
  sent += 1;
  const outcome = await sendRaw(wire.port, wire.bytes, { method: wire.method, timeoutMs: 20_000 });
  const byStatus = statuses.get(request.family) ?? new Map<string, number>();
  const key = outcome.kind === "response" ? String(outcome.response.status) : outcome.kind;
  statuses.set(request.family, byStatus.set(key, (byStatus.get(key) ?? 0) + 1));
  const problems = contractProblems(request, outcome);
  if (problems.length > 0)
    throw new Error(
      `${problems.join("; ")}\nrequest:\n${describeRequest(request)}\nanswer: ${describeOutcome(outcome)}`,
    );
}

describe("hostile input against every endpoint", () => {
  beforeAll(async () => {
    world = await startWorld();
    before = await world.settledSnapshot();
    pidsAtStart = await world.stack.childPids();
    console.log(
      `[hostile] seed ${SEED} (HOSTILE_SEED), ${RUNS} generated requests (HOSTILE_RUNS), stack on ${world.stack.baseUrl}`,
    );
  }, 240_000);
  afterAll(async () => {
    for (const [family, counts] of statuses) {
      console.log(
        `[hostile] ${family}: ${[...counts]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([status, n]) => `${status}×${n}`)
          .join(" ")}`,
      );
    }
    await world?.close();
  }, 90_000);

  FAMILIES.forEach(([name, share, family], index) => {
    it(name, { timeout: bySize({ ci: 240_000, full: 900_000 }) }, async () => {
      const numRuns = Math.max(1, Math.ceil(RUNS * share));
      await fc.assert(fc.asyncProperty(fc.limitShrink(family(world.generation), 300), check), {
        numRuns,
        seed: SEED + index,
      });
    });
  });

  it(`sent at least HOSTILE_RUNS (${RUNS}) generated requests`, () => {
    expect(sent).toBeGreaterThanOrEqual(RUNS);
  });

  it("left every process running (none crashed or restarted) and every /livez answering", async () => {
    expect(world.stack.crashes()).toEqual([]);
    expect(pidsAtStart.length).toBe(world.stack.processes.length);
    expect(await world.stack.childPids()).toEqual(pidsAtStart);
    for (const p of world.stack.processes) {
      if (p.internalPort === null) continue;
      const res = await fetch(`http://127.0.0.1:${p.internalPort}/livez`);
      expect(res.status, `${p.name} /livez`).toBe(200);
    }
    expect((await fetch(`${world.stack.baseUrl}/v1/health`)).status).toBe(200);
  });

  it("logged no unexpected error (an unhandled error is logged at level error)", () => {
    expect(world.stack.errorLines()).toEqual([]);
  });

  it(
    "changed no stored data: every table's row count and checksum, in PostgreSQL and the legacy database",
    { timeout: 120_000 },
    async () => {
      const after = await world.settledSnapshot();
      expect(Object.keys(before).length).toBeGreaterThan(10);
      expect(snapshotDifferences(before, after)).toEqual([]);
    },
  );
});
