/**
 * Properties of every write operation (operations.ts), against the real services and PostgreSQL
 * (world.ts): whatever a field holds (every Unicode category, every date the patterns admit,
 * numbers at their limits), the answer is a 2xx and a read-back finds exactly what was sent, or a
 * 422 naming only fields that held generated values; never a 5xx.
 *
 *   FAULT_SUITE     size (test/support/test-size.ts): 40 requests per operation, 1,000 with full
 *   PROPERTY_RUNS   requests per operation, whatever the size
 *   PROPERTY_SEED   fast-check seed (fixed by default and printed, so a run is reproducible)
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bySize } from "../support/test-size.ts";
import { within } from "./arbitraries.ts";
import { WRITE_OPERATIONS, type Generated, type WriteOperation } from "./operations.ts";
import { startWorld, type Answer, type World } from "./world.ts";

const RUNS = Number(process.env.PROPERTY_RUNS ?? bySize({ ci: 40, full: 1_000 }));
const SEED = Number(process.env.PROPERTY_SEED ?? "20261207");
if (!Number.isInteger(RUNS) || RUNS < 1)
  throw new Error("PROPERTY_RUNS must be a positive whole number");
if (!Number.isInteger(SEED)) throw new Error("PROPERTY_SEED must be a whole number");

let world: World;
/** Answers by operation and status, printed at the end: what the generators reached. */
const statuses = new Map<string, Map<number, number>>();

const shown = (value: unknown) =>
  JSON.stringify(value, (_k, v: unknown) =>
    typeof v === "string" && v.length > 120 ? `${v.slice(0, 60)}…(${v.length} units)` : v,
  );

/** Why an answer breaks the property, or undefined. */
function problem(op: WriteOperation, generated: Generated, answer: Answer): string | undefined {
  if (answer.status >= 500) return `answered ${answer.status} ${answer.body.error?.code ?? ""}`;
  if (answer.status === 422) {
    const details = answer.body.error?.details ?? [];
    if (details.length === 0) return "422 names no field";
    const wide = [
      ...generated.wide,
      ...(op.together ?? [])
        .filter((group) => group.some((f) => generated.wide.includes(f)))
        .flat(),
    ];
    const stray = details.filter(
      (d) => !wide.some((w) => within(d.field, w) || within(w, d.field)),
    );
    if (stray.length > 0) return `422 names fields that held good values: ${shown(stray)}`;
    return undefined;
  }
  // No UTF-8 carries an unpaired surrogate: a path holding one is malformed percent-encoding.
  if (answer.status === 400 && /%ED%[AB]/.test(generated.request.path)) return undefined;
  // The JSON body parser takes objects and arrays only (strict): a bare null, number or string is
  // answered 400 MALFORMED_REQUEST.
  const body = generated.request.body;
  if (answer.status === 400 && body !== undefined && (body === null || typeof body !== "object"))
    return undefined;
  if (answer.status >= 400 && !(answer.status in (op.otherStatuses ?? {})))
    return `answered ${answer.status} ${shown(answer.body.error)}`;
  return undefined;
}

describe("every write operation: a 2xx stores exactly what was sent, or a 422 names the field", () => {
  beforeAll(async () => {
    world = await startWorld();
    console.log(`[properties] seed ${SEED} (PROPERTY_SEED), ${RUNS} requests per operation`);
  });
  afterAll(async () => {
    for (const [name, counts] of statuses)
      console.log(
        `[properties] ${name}: ${[...counts]
          .sort(([a], [b]) => a - b)
          .map(([status, n]) => `${status}×${n}`)
          .join(" ")}`,
      );
    await world?.close();
  });

  WRITE_OPERATIONS.forEach((op, index) => {
    it(op.name, { timeout: bySize({ ci: 60_000, full: 1_800_000 }) }, async () => {
      const counts = new Map<number, number>();
      statuses.set(op.name, counts);
      await fc.assert(
        fc.asyncProperty(fc.limitShrink(op.generate(world), 100), async (prepare) => {
          const generated = await prepare();
          const answer = await world.send(op.target, generated.request, generated.client);
          counts.set(answer.status, (counts.get(answer.status) ?? 0) + 1);
          const found = problem(op, generated, answer);
          if (found)
            throw new Error(
              `${found}\nrequest: ${shown(generated.request)}\ngenerated fields: ${generated.wide.join(", ")}\nanswer: ${shown(answer.body)}`,
            );
          if (answer.status < 300)
            await op.readBack(world, generated, answer).catch((err: unknown) => {
              throw new Error(
                `read-back after ${answer.status}: ${String(err)}\nrequest: ${shown(generated.request)}\nanswer: ${shown(answer.body)}`,
                { cause: err },
              );
            });
        }),
        { numRuns: RUNS, seed: SEED + index },
      );
      expect(counts.size).toBeGreaterThan(0);
    });
  });
});
