// The image runs every process the way `npm start` and the benchmarks do (tools/stack.ts).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RUNTIME_ENV } from "@svc/runtime";
import { DIST_DIR, RUNTIME_FILES } from "@svc/manifest";
import { repoRoot } from "./support/helm.ts";

/** The lines of one Dockerfile stage. */
function stage(name: string): string[] {
  const dockerfile = readFileSync(join(repoRoot, "Dockerfile"), "utf8");
  const found = dockerfile
    .split(/^FROM /m)
    .find((s) => new RegExp(`^\\S+ AS ${name}$`).test(s.split("\n")[0]!));
  if (!found) throw new Error(`the Dockerfile has no ${name} stage`);
  return found.split("\n");
}

/** The ENV of the Dockerfile's `runtime` stage, as name → value. */
function runtimeStageEnv(): Map<string, string> {
  const env = new Map<string, string>();
  for (const line of stage("runtime").filter((l) => l.startsWith("ENV "))) {
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
    for (const [name, value] of Object.entries(RUNTIME_ENV))
      expect(env.get(name), name).toBe(value);
    expect(env.get("NODE_ENV")).toBe("production");
  });

  it("holds the installed packages, the bundles and the files they read (RUNTIME_FILES), and no sources", () => {
    const copies = stage("runtime")
      .filter((l) => l.startsWith("COPY "))
      .map((l) => l.split(/\s+/));
    const destinations = copies
      .filter((c) => !c.includes("--from=prod-deps"))
      .map((c) => c.at(-1)!.replace(/^\.\//, ""));
    expect(destinations.sort()).toEqual([...RUNTIME_FILES].sort());
    expect(copies.find((c) => c.includes("--from=build"))?.at(-2)).toBe(`/src/${DIST_DIR}/`);
    const dev = stage("dev")
      .filter((l) => l.startsWith("COPY "))
      .map((l) => l.split(/\s+/).at(-1));
    expect(dev.sort()).toEqual(["./services/", "./shared/", "./tools/"]);
  });
});
