// The benchmarks run each service under its chart memory limit (src/chart-limits.ts).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { CHART_COMPONENTS, REPO_ROOT } from "@svc/manifest";
import { chartMemoryLimitBytes, memoryQuantityBytes } from "../src/chart-limits.ts";

describe("chart memory limits for the benchmarks", () => {
  it("reads Kubernetes memory quantities", () => {
    expect(memoryQuantityBytes("384Mi")).toBe(402_653_184);
    expect(memoryQuantityBytes("1Gi")).toBe(2 ** 30);
    expect(memoryQuantityBytes("512Ki")).toBe(524_288);
    expect(memoryQuantityBytes("500M")).toBe(500_000_000);
    expect(memoryQuantityBytes("1.5Gi")).toBe(1.5 * 2 ** 30);
    expect(() => memoryQuantityBytes("384MB")).toThrow(/not a memory quantity/);
  });

  it("gives every component the limit values.yaml sets for it", () => {
    const values = parse(
      readFileSync(join(REPO_ROOT, "charts/integration-service/values.yaml"), "utf8"),
    ) as { components: Record<string, { resources: { limits: { memory: string } } }> };
    for (const name of CHART_COMPONENTS) {
      expect(chartMemoryLimitBytes(name), name).toBe(
        memoryQuantityBytes(values.components[name]!.resources.limits.memory),
      );
    }
    expect(() => chartMemoryLimitBytes("nonexistent")).toThrow(/no memory limit/);
  });
});
