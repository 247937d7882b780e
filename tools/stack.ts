import { join } from "node:path";
import { entryArgs, PROCESSES, REPO_ROOT, serviceOf } from "@svc/manifest";

/**
 * The local stack's shape: every process `npm start` runs, with its port (the processes of
 * @svc/manifest, in its order), so the launcher, the system tests and the benchmarks agree.
 */
export interface StackProcess {
  /** The manifest's process name; `<name>#<n>` for its n-th replica from the second on. */
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
 * Replicas of one process differ only in their ports: given its environment (/proc/<pid>/environ),
 * the process's PORT and INTERNAL_PORT must match too.
 */
export function stackProcessOf(
  stack: ReadonlyArray<StackProcess>,
  cwd: string,
  argv: ReadonlyArray<string>,
  env?: Readonly<Record<string, string | undefined>>,
): StackProcess | undefined {
  return stack.find((p) => {
    const dir = join(REPO_ROOT, p.cwd);
    return (
      cwd === dir &&
      (argv.includes(p.entry) ||
        argv.includes(entryArgs(p.entry, { cwd: dir, from: "bundle" }).at(-1)!)) &&
      (env === undefined ||
        ((p.port === null || env.PORT === String(p.port)) &&
          (p.internalPort === null || env.INTERNAL_PORT === String(p.internalPort))))
    );
  });
}

/** How far apart the ports of one process's replicas are (the second at +100, …). */
export const REPLICA_PORT_STEP = 100;
/** The most replicas of one process: a stack's ports then span under 500, the fault suites' spacing. */
export const MAX_REPLICAS = 4;

/**
 * Replicas per process from STACK_REPLICAS (`vacancies=2,webhooks-dispatcher=2`); a process not
 * named runs once. Every process but the gateway (the stack's one address) may be replicated.
 */
export function parseReplicas(value: string | undefined): Map<string, number> {
  const replicas = new Map<string, number>();
  for (const pair of (value ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [name, count] = pair.split("=");
    const n = Number(count);
    if (!name || !PROCESSES.some((p) => p.name === name) || name === "gateway")
      throw new Error(
        `STACK_REPLICAS: '${pair}' does not name a process of the stack other than the gateway`,
      );
    if (!Number.isInteger(n) || n < 1 || n > MAX_REPLICAS)
      throw new Error(
        `STACK_REPLICAS: '${pair}' must give a whole number from 1 to ${MAX_REPLICAS}`,
      );
    replicas.set(name, n);
  }
  return replicas;
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

/** Every port of the stack at `offset` (with `replicas`, see stackWithOffset). */
export function stackPorts(
  offset: number,
  replicas: ReadonlyMap<string, number> = new Map(),
): number[] {
  return stackWithOffset(offset, replicas)
    .flatMap((p) => [p.port, p.internalPort])
    .filter((p): p is number => p !== null);
}

/**
 * Whether a stack at `offset` can be reached with fetch: none of its ports is a Fetch "bad port".
 */
export function reachableOffset(
  offset: number,
  replicas: ReadonlyMap<string, number> = new Map(),
): boolean {
  return stackPorts(offset, replicas).every((port) => !FETCH_BAD_PORTS.has(port));
}

/**
 * The stack with every port shifted by `offset` (so a second stack, e.g. a test's, can run beside
 * yours), each process as many times as `replicas` says: replica n (from 2) is `<name>#<n>`, its
 * ports another (n − 1) × REPLICA_PORT_STEP up.
 */
export function stackWithOffset(
  offset: number,
  replicas: ReadonlyMap<string, number> = new Map(),
): StackProcess[] {
  return BASE.flatMap((p) =>
    Array.from({ length: replicas.get(p.name) ?? 1 }, (_, i) => {
      const shift = (port: number | null) =>
        port === null ? null : port + offset + i * REPLICA_PORT_STEP;
      return {
        ...p,
        name: i === 0 ? p.name : `${p.name}#${i + 1}`,
        port: shift(p.port),
        internalPort: shift(p.internalPort),
      };
    }),
  );
}

export const STACK: ReadonlyArray<StackProcess> = stackWithOffset(0);

/**
 * The gateway's upstream map for a stack: each process serving a port in the workspace of a
 * service with routes, under the service's name (routes.json names the upstream by it); the
 * replicas of one service as one entry, their URLs joined by `|` (the gateway takes turns).
 */
export function upstreamsOf(stack: ReadonlyArray<StackProcess>): string {
  const urls = new Map<string, string[]>();
  for (const p of stack) {
    if (p.port === null || serviceOf({ workspace: p.cwd }).routes.length === 0) continue;
    const name = serviceOf({ workspace: p.cwd }).name;
    urls.set(name, [...(urls.get(name) ?? []), `http://127.0.0.1:${p.port}`]);
  }
  return [...urls].map(([name, list]) => `${name}=${list.join("|")}`).join(",");
}
