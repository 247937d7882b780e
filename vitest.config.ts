import { existsSync, globSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import SummaryReporter from "./test/support/summary-reporter.ts";
import { chosenLane, LaneScanner } from "./test/support/test-lanes.ts";

const workspaceDirs = ["shared", "services", "packages"].flatMap((top) =>
  readdirSync(top, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(top, d.name, "package.json")))
    .map((d) => join(top, d.name)),
);
const packageName = (dir: string) =>
  (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name: string }).name;

/**
 * `TEST_LANE=quick` (npm run test:quick) keeps the quick tests only: those that start no process
 * beside them (test/support/test-lanes.ts).
 */
const lane = chosenLane();
const scanner = new LaneScanner(workspaceDirs.map((dir) => resolve(dir)));

function project(
  name: string,
  root: string,
  include: string[],
  options: TestProjectInlineConfiguration["test"],
): TestProjectInlineConfiguration[] {
  if (lane === "quick") {
    const files = globSync(include, { cwd: root, exclude: (p) => p.includes("node_modules") });
    include = files.filter((file) => scanner.lane(join(root, file)) === "quick");
    if (include.length === 0) return [];
  }
  return [{ extends: true, test: { name, root, include, ...options } }];
}

/**
 * On 2 cores the suite waits more than it computes (databases, NATS, timers): the workspaces' files
 * run three at a time. The cross-service suites in test/ start whole stacks, which take both cores
 * while they start: they run after the workspaces, two at a time (three took longer: 760 s against
 * 646 s); the fault suites (test/fault) last, one at a time, since they time answers while they
 * stop servers and kill processes.
 *
 * A workspace's files share their worker's modules (`isolate: false`): its modules are evaluated
 * once per worker instead of once per file, which took about a third of the workspaces' CPU time.
 * So a workspace test file closes what it opens and leaves no global behind (@svc/telemetry's
 * test unregisters OpenTelemetry's providers after each start). The in-process telemetry suites in
 * test/observability, which register them too, keep one module graph per file.
 */
const WORKSPACES = { sequence: { groupOrder: 0 }, maxWorkers: 3, isolate: false };
const SYSTEM = {
  sequence: { groupOrder: 1 },
  maxWorkers: 2,
  exclude: ["fault/**", "**/node_modules/**"],
};
const FAULT = { sequence: { groupOrder: 2 }, maxWorkers: 1 };

export default defineConfig({
  test: {
    // One project per workspace (named after its package), plus the cross-service suites in test/
    // (the fault suites apart).
    projects: [
      ...workspaceDirs.flatMap((dir) =>
        project(packageName(dir), dir, ["src/**/*.test.ts", "test/**/*.test.ts"], WORKSPACES),
      ),
      ...project("system", "test", ["**/*.test.ts"], SYSTEM),
      ...project("fault", "test/fault", ["**/*.test.ts"], FAULT),
    ],
    // Contract tests: every response a test receives is checked against the OpenAPI document.
    setupFiles: [
      fileURLToPath(new URL("./test/support/contract-setup.ts", import.meta.url)),
      ...(lane === "quick"
        ? [fileURLToPath(new URL("./test/support/quick-lane-guard.ts", import.meta.url))]
        : []),
    ],
    // Tests talk to real PostgreSQL, MariaDB and NATS; each file isolates itself (own database,
    // own NATS namespace), so files may run in parallel.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
    reporters: ["default", new SummaryReporter()],
  },
});
