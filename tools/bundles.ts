// Where a process's compiled bundle lives (tools/build.ts writes them): one rule, so the builder,
// the launcher, the benchmarks and the chart (templates/_pod.tpl, checked by a chart test) agree.
// No esbuild here: the launcher imports this without loading the build tool.
import { posix } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Output folder of `npm run build`, relative to the repository root. */
export const DIST_DIR = "dist";

/**
 * Every process the image runs, as its source entry point (relative to the repository root):
 * the services with their preloads, the dispatcher, the local gateway, and the two Jobs.
 */
export const ENTRY_POINTS: ReadonlyArray<string> = [
  "services/auth/src/main.ts",
  "services/auth/src/instrument.ts",
  "services/practices/src/main.ts",
  "services/practices/src/instrument.ts",
  "services/vacancies/src/main.ts",
  "services/vacancies/src/instrument.ts",
  "services/identity/src/main.ts",
  "services/identity/src/instrument.ts",
  "services/webhooks/src/main.ts",
  "services/webhooks/src/dispatcher-main.ts",
  "services/webhooks/src/instrument.ts",
  "services/gateway/src/main.ts",
  "tools/migrate.ts",
  "shared/legacy/src/cli/seed.ts",
];

/**
 * The bundle of a source entry point, relative to the repository root: `dist/<workspace>/<file>.js`,
 * always two folders deep (tools/build.ts relies on that to keep `import.meta.url` meaning the
 * source file's location).
 *   services/vacancies/src/main.ts → dist/vacancies/main.js; shared/legacy/src/cli/seed.ts →
 *   dist/legacy/seed.js; tools/migrate.ts → dist/tools/migrate.js
 */
export function bundlePath(entry: string): string {
  const parts = entry.split("/");
  const group = parts[0] === "services" || parts[0] === "shared" ? parts[1] : parts[0];
  return posix.join(DIST_DIR, group ?? "", posix.basename(entry).replace(/\.ts$/, ".js"));
}

/**
 * The node arguments that run a source entry point's bundle from the repository root (or the
 * image's WORKDIR), as the chart's pods do: `--import` of the preload beside it when the entry has
 * one (tools/build.ts builds every service's instrument.ts), then the entry's bundle.
 */
export function bundleArgs(entry: string): string[] {
  const preload = posix.join(posix.dirname(entry), "instrument.ts");
  return [
    ...(ENTRY_POINTS.includes(preload) ? ["--import", `./${bundlePath(preload)}`] : []),
    bundlePath(entry),
  ];
}

/**
 * What the production image holds besides node_modules (Dockerfile `runtime` stage; a test
 * compares, and another starts every process from exactly these): the bundles, and the files the
 * code reads where the sources sit: the version (package.json), each service's migrations, the
 * OpenAPI document auth serves, the route table of the local gateway. Folders end in `/`.
 */
export const RUNTIME_FILES: ReadonlyArray<string> = [
  "package.json",
  `${DIST_DIR}/`,
  "services/auth/drizzle/",
  "services/practices/drizzle/",
  "services/vacancies/drizzle/",
  "services/identity/drizzle/",
  "services/webhooks/drizzle/",
  "shared/openapi/openapi.json",
  "charts/integration-service/routes.json",
];
