// The image runs every process the way `npm start` and the benchmarks do (tools/stack.ts).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RUNTIME_ENV } from "../../tools/stack.ts";
import { repoRoot } from "./support/helm.ts";

/** The ENV of the Dockerfile's `runtime` stage, as name → value. */
function runtimeStageEnv(): Map<string, string> {
  const dockerfile = readFileSync(join(repoRoot, "Dockerfile"), "utf8");
  const stage = dockerfile.split(/^FROM /m).find((s) => /^\S+ AS runtime$/m.test(s.split("\n")[0]!));
  if (!stage) throw new Error("the Dockerfile has no runtime stage");
  const env = new Map<string, string>();
  for (const line of stage.split("\n").filter((l) => l.startsWith("ENV "))) {
    for (const pair of line.slice(4).trim().split(/\s+/)) {
      const [name, value] = pair.split("=");
      env.set(name!, value!);
    }
  }
  return env;
}

describe("runtime image", () => {
  it("sets the allocator settings every local and benchmarked process runs with", () => {
    const env = runtimeStageEnv();
    for (const [name, value] of Object.entries(RUNTIME_ENV)) expect(env.get(name), name).toBe(value);
    expect(env.get("NODE_ENV")).toBe("production");
  });
});
