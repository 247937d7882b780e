// Where a process's compiled bundle lives (@svc/build writes them) and how a process is started:
// one rule, so the builder, the launcher, the benchmarks and the chart (templates/_pod.tpl,
// checked by a chart test) agree. No esbuild here: the launcher imports this without loading the
// build tool.
import { existsSync } from "node:fs";
import { dirname, isAbsolute, join, posix, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { HELM_TESTS, JOBS, PROCESSES, SERVICES } from "./manifest.ts";

export const REPO_ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/** Output folder of `npm run build`, relative to the repository root. */
export const DIST_DIR = "dist";

/**
 * Every process the image runs, as its source entry point (relative to the repository root):
 * per workspace its processes' entry points and then their preload, then the Jobs' entry points
 * and the `helm test` pods' entry points (the manifest's order).
 */
export const ENTRY_POINTS: ReadonlyArray<string> = [
  ...[...new Set(PROCESSES.map((p) => p.workspace))].flatMap((workspace) => {
    const processes = PROCESSES.filter((p) => p.workspace === workspace);
    const preloads = new Set(processes.flatMap((p) => (p.preload === null ? [] : [p.preload])));
    return [...processes.map((p) => p.entry), ...preloads].map((file) =>
      posix.join(workspace, file),
    );
  }),
  ...JOBS.map((j) => j.entry),
  ...HELM_TESTS.map((t) => t.entry),
];

/**
 * The bundle of a source entry point, relative to the repository root: `dist/<workspace>/<file>.js`,
 * always two folders deep (@svc/build relies on that to keep `import.meta.url` meaning the
 * source file's location).
 *   services/vacancies/src/main.ts → dist/vacancies/main.js; shared/sandbox/src/cli/seed.ts →
 *   dist/sandbox/seed.js; tools/migrate.ts → dist/tools/migrate.js
 */
export function bundlePath(entry: string): string {
  const parts = entry.split("/");
  const group = parts[0] === "services" || parts[0] === "shared" ? parts[1] : parts[0];
  return posix.join(DIST_DIR, group ?? "", posix.basename(entry).replace(/\.ts$/, ".js"));
}

/**
 * The node arguments that run a source entry point's bundle from the repository root (or the
 * image's WORKDIR), as the chart's pods do: `--import` of the preload beside it when the entry has
 * one (@svc/build builds every service's instrument.ts), then the entry's bundle.
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
 * OpenAPI document auth serves, the route table of the local gateway, and the idle heap release's
 * malloc_trim addon (shared/runtime/src/malloc-trim.ts, compiled on install), and the subscriber
 * portal's built page (packages/portal, served by the webhooks API). Folders end in `/`.
 */
export const RUNTIME_FILES: ReadonlyArray<string> = [
  "package.json",
  `${DIST_DIR}/`,
  ...SERVICES.flatMap((s) => (s.migrations === null ? [] : [`${s.workspace}/${s.migrations}/`])),
  "shared/openapi/openapi.json",
  "shared/openapi/openapi.sandbox.json",
  "charts/integration-service/routes.json",
  "shared/runtime/build/Release/malloc_trim.node",
  "packages/portal/dist/",
];

/**
 * What a process runs: `bundle`, the compiled JavaScript of `npm run build` (@svc/build), as
 * production, `npm start` and the benchmarks do; or `source`, the TypeScript itself through Node's
 * type stripping, as `npm run dev` (with --watch) and the tests do.
 */
export type RunFrom = "bundle" | "source";

/**
 * The node arguments after the flags that start a process: `--import` of the process preload
 * beside its entry point (its `instrument.ts`: the ESM format cache, idle heap release, then
 * tracing), then the entry point, from the sources or from the bundles as `from` says; no preload
 * for an entry without one. `entry` is absolute or relative to `cwd`; the bundles must be built.
 */
export function entryArgs(entry: string, options: { cwd?: string; from: RunFrom }): string[] {
  const cwd = options.cwd ?? REPO_ROOT;
  if (options.from === "bundle") {
    return bundleArgs(relative(REPO_ROOT, resolve(cwd, entry))).map((arg) =>
      arg.startsWith("-") ? arg : join(REPO_ROOT, arg),
    );
  }
  const preload = join(dirname(entry), "instrument.ts");
  const hasPreload = existsSync(isAbsolute(preload) ? preload : join(cwd, preload));
  return [
    ...(hasPreload ? ["--import", isAbsolute(preload) ? preload : `./${preload}`] : []),
    entry,
  ];
}
