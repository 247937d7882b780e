/**
 * How big the long runs are (fault suite, soaks, generated corpora): one switch for all of them.
 * `npm test` (CI) runs the reduced size; `FAULT_SUITE=full` runs the full size, e.g.
 * `FAULT_SUITE=full npx vitest run test/fault test/hostile`.
 */
export type TestSize = "ci" | "full";

export function testSize(env: NodeJS.ProcessEnv = process.env): TestSize {
  const chosen = env.FAULT_SUITE ?? "ci";
  if (chosen === "ci" || chosen === "full") return chosen;
  throw new Error(`FAULT_SUITE must be ci or full, not ${chosen}`);
}

/** The value for the chosen size. */
export function bySize<T>(values: Record<TestSize, T>, env: NodeJS.ProcessEnv = process.env): T {
  return values[testSize(env)];
}
