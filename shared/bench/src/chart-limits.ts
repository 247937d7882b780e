// The chart's per-component resource limits (charts/integration-service/values.yaml), for the
// benchmarks: a service is measured under the memory limit its pod runs with.
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { REPO_ROOT } from "@svc/manifest";
import { benchEnv } from "./config.ts";

const UNITS: Record<string, number> = {
  "": 1,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  k: 1e3,
  M: 1e6,
  G: 1e9,
};

/** A Kubernetes memory quantity ("384Mi", "1Gi", "500M") in bytes. */
export function memoryQuantityBytes(quantity: string): number {
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|k|M|G|)$/.exec(quantity.trim());
  if (!match) throw new Error(`not a memory quantity this reads: ${quantity}`);
  return Math.round(Number(match[1]) * UNITS[match[2]!]!);
}

/**
 * The memory limit of a chart component (auth, practices, vacancies, identity, webhooks,
 * dispatcher), in bytes.
 */
export function chartMemoryLimitBytes(component: string): number {
  const values = parse(
    readFileSync(`${REPO_ROOT}charts/integration-service/values.yaml`, "utf8"),
  ) as {
    components: Record<string, { resources?: { limits?: { memory?: string } } } | undefined>;
  };
  const limit = values.components[component]?.resources?.limits?.memory;
  if (limit === undefined) throw new Error(`the chart sets no memory limit for ${component}`);
  return memoryQuantityBytes(limit);
}

/**
 * What a benchmark passes to startBenchProcess / startServiceUnderBench for a component's
 * processes (the service and its baseline alike): its chart memory limit, unless BENCH_MEMORY=host.
 */
export function benchMemoryLimit(component: string): { memoryLimitBytes?: number } {
  return benchEnv.BENCH_MEMORY === "host"
    ? {}
    : { memoryLimitBytes: chartMemoryLimitBytes(component) };
}
