import { join } from "node:path";
import { entryArgs, PROCESSES, REPO_ROOT, serviceOf } from "@svc/manifest";

/**
 * The local stack's shape: every process `npm start` runs, with its port (the processes of
 * @svc/manifest, in its order), so the launcher, the system tests and the benchmarks agree.
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

const BASE: ReadonlyArray<StackProcess> = PROCESSES.map((p) => ({
  name: p.name,
  cwd: p.workspace,
  entry: p.entry,
  port: p.port,
  internalPort: p.internalPort,
}));

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

/**
 * Whether a stack at `offset` can be reached with fetch: none of its ports is a Fetch "bad port".
 */
export function reachableOffset(offset: number): boolean {
  return stackPorts(offset).every((port) => !FETCH_BAD_PORTS.has(port));
}

/**
 * The stack with every port shifted by `offset` (so a second stack, e.g. a test's, can run beside
 * yours).
 */
export function stackWithOffset(offset: number): StackProcess[] {
  const shift = (port: number | null) => (port === null ? null : port + offset);
  return BASE.map((p) => ({ ...p, port: shift(p.port), internalPort: shift(p.internalPort) }));
}

export const STACK: ReadonlyArray<StackProcess> = stackWithOffset(0);

/**
 * The gateway's upstream map for a stack: each process serving a port in the workspace of a
 * service with routes, under the service's name (routes.json names the upstream by it).
 */
export function upstreamsOf(stack: ReadonlyArray<StackProcess>): string {
  return stack
    .filter((p) => p.port !== null && serviceOf({ workspace: p.cwd }).routes.length > 0)
    .map((p) => `${serviceOf({ workspace: p.cwd }).name}=http://127.0.0.1:${p.port}`)
    .join(",");
}
