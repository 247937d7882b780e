import { existsSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { bundleArgs, REPO_ROOT } from "./bundles.ts";

/**
 * The local stack's shape: every process `npm start` runs, with its port. One place, so the
 * launcher, the system tests and the README agree.
 */
export interface StackProcess {
  name: string;
  /** Workspace folder and entry file, relative to the repository root. */
  cwd: string;
  entry: string;
  port: number | null;
  internalPort: number | null;
}

/**
 * What a process runs: `bundle`, the compiled JavaScript of `npm run build` (tools/build.ts), as
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

/**
 * Which of `stack`'s processes a running process is, from its working directory and command line
 * (/proc/<pid>/cwd and cmdline), whether it runs the sources or the bundles; undefined for another.
 */
export function stackProcessOf(
  stack: ReadonlyArray<StackProcess>,
  cwd: string,
  argv: ReadonlyArray<string>,
): StackProcess | undefined {
  return stack.find((p) => {
    const dir = join(REPO_ROOT, p.cwd);
    return (
      cwd === dir &&
      (argv.includes(p.entry) ||
        argv.includes(entryArgs(p.entry, { cwd: dir, from: "bundle" }).at(-1)!))
    );
  });
}

const BASE: ReadonlyArray<StackProcess> = [
  { name: "auth", cwd: "services/auth", entry: "src/main.ts", port: 8081, internalPort: 9481 },
  {
    name: "practices",
    cwd: "services/practices",
    entry: "src/main.ts",
    port: 8082,
    internalPort: 9482,
  },
  {
    name: "vacancies",
    cwd: "services/vacancies",
    entry: "src/main.ts",
    port: 8083,
    internalPort: 9483,
  },
  {
    name: "identity",
    cwd: "services/identity",
    entry: "src/main.ts",
    port: 8084,
    internalPort: 9484,
  },
  {
    name: "webhooks",
    cwd: "services/webhooks",
    entry: "src/main.ts",
    port: 8085,
    internalPort: 9485,
  },
  {
    name: "webhooks-dispatcher",
    cwd: "services/webhooks",
    entry: "src/dispatcher-main.ts",
    port: null,
    internalPort: 9486,
  },
  {
    name: "gateway",
    cwd: "services/gateway",
    entry: "src/main.ts",
    port: 8080,
    internalPort: null,
  },
];

/**
 * Ports the Fetch standard blocks ("bad ports", https://fetch.spec.whatwg.org/#port-blocking):
 * Node's fetch and every browser refuse them ("bad port"), so no local stack may listen on one
 * (offset 2000 puts the gateway on 10080).
 */
const FETCH_BAD_PORTS: ReadonlySet<number> = new Set([
  0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102,
  103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465,
  512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993,
  995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668,
  6669, 6679, 6697, 10080,
]);

/** Every port of the stack at `offset`. */
export function stackPorts(offset: number): number[] {
  return BASE.flatMap((p) => [p.port, p.internalPort])
    .filter((p): p is number => p !== null)
    .map((p) => p + offset);
}

/** Whether a stack at `offset` can be reached with fetch: none of its ports is a Fetch "bad port". */
export function reachableOffset(offset: number): boolean {
  return stackPorts(offset).every((port) => !FETCH_BAD_PORTS.has(port));
}

/** The stack with every port shifted by `offset` (so a second stack, e.g. a test's, can run beside yours). */
export function stackWithOffset(offset: number): StackProcess[] {
  const shift = (port: number | null) => (port === null ? null : port + offset);
  return BASE.map((p) => ({ ...p, port: shift(p.port), internalPort: shift(p.internalPort) }));
}

export const STACK: ReadonlyArray<StackProcess> = stackWithOffset(0);

/** The gateway's upstream map for a stack. */
export function upstreamsOf(stack: ReadonlyArray<StackProcess>): string {
  return stack
    .filter((p) => p.port !== null && p.name !== "gateway" && !p.name.endsWith("-dispatcher"))
    .map((p) => `${p.name}=http://127.0.0.1:${p.port}`)
    .join(",");
}
