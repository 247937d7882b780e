import { parseEnv, z } from "@svc/config";

/**
 * Set by `npm run bench` (tools/bench.ts) for each bench it runs: where recordBenchRows appends.
 */
export const benchEnv = parseEnv(
  z.object({
    BENCH_RESULTS_FILE: z.string().optional(),
    // pod: services and baselines run under their chart memory limit (as in Kubernetes); host:
    // unconstrained.
    BENCH_MEMORY: z.enum(["pod", "host"]).default("pod"),
  }),
  process.env,
);
