import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import SummaryReporter from "./test/support/summary-reporter.ts";

// One project per workspace (named after its package), plus the cross-service suites in test/.
const workspaceDirs = ["shared", "services"].flatMap((top) =>
  readdirSync(top, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(top, d.name, "package.json")))
    .map((d) => join(top, d.name)),
);

const projects = workspaceDirs.map((dir) => ({
  extends: true as const,
  test: {
    name: (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name: string }).name,
    root: dir,
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
  },
}));

export default defineConfig({
  test: {
    projects: [
      ...projects,
      { extends: true, test: { name: "system", root: "test", include: ["**/*.test.ts"] } },
    ],
    // Contract tests: every response a test receives is checked against the OpenAPI document.
    setupFiles: [fileURLToPath(new URL("./test/support/contract-setup.ts", import.meta.url))],
    // Tests talk to real PostgreSQL, MariaDB and NATS; each file isolates itself (own database,
    // own NATS namespace), so files may run in parallel on this 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
    reporters: ["default", new SummaryReporter()],
  },
});
