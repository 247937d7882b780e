/**
 * Which lane a test file runs in (vitest.config.ts). A file is in the full lane when it, or a module
 * it imports, needs a server beside the test: it imports `spawn`, `spawnSync`, `fork`, `exec` or
 * `execFile` from node:child_process (a service process, the whole stack, a CLI, a private
 * PostgreSQL, MariaDB or NATS server, a guide's commands), uses esbuild (its service binary), or
 * uses a PostgreSQL, MariaDB or NATS client. Every other file is quick: unit and in-process tests,
 * plus single commands run to completion with `execFileSync` (openssl, helm, git). Imports are followed through relative
 * paths and the `@svc/*` workspaces; a workspace's barrel only through the modules that export the
 * names imported.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export type Lane = "quick" | "full";

/** The lane a run keeps: `TEST_LANE=quick` (npm run test:quick) the quick tests only. */
export function chosenLane(env: NodeJS.ProcessEnv = process.env): "all" | "quick" {
  const lane = env.TEST_LANE ?? "all";
  if (lane === "all" || lane === "quick") return lane;
  throw new Error(`TEST_LANE must be quick or all, not ${lane}`);
}

/** The node:child_process functions that start a process beside the caller or run a shell. */
export const STARTERS = ["spawn", "spawnSync", "fork", "exec", "execFile"] as const;
const STARTER_NAMES = new Set<string>(STARTERS);
/**
 * Packages whose use needs a server beside the test: esbuild runs its service binary; the
 * PostgreSQL, MariaDB and NATS clients need those servers; playwright-core and puppeteer-core
 * start a browser.
 */
const STARTER_PACKAGES = new Set([
  "playwright-core",
  "puppeteer-core",
  "esbuild",
  "pg",
  "mysql2",
  "mysql2/promise",
  "@nats-io/transport-node",
  "@nats-io/jetstream",
  "@nats-io/kv",
]);
const IMPORT =
  /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:([\w*\s{},$]*?)\s+from\s+)?["']([^"']+)["']/g;
const DYNAMIC_IMPORT = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

interface ImportLine {
  reexport: boolean;
  spec: string;
  /** Names imported or re-exported ("*": a namespace, `export *` or a dynamic import). */
  names: string[];
}

function importedNames(clause: string | undefined): string[] {
  if (!clause) return [];
  if (clause.includes("*")) return ["*"];
  const braced = clause.match(/\{([^}]*)\}/)?.[1] ?? "";
  const named = braced
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part && !part.startsWith("type "))
    .map((part) => part.split(/\s+as\s+/)[0]!.trim());
  const outside = clause
    .replace(/\{[^}]*\}/, "")
    .replace(",", "")
    .trim();
  return outside ? [...named, "default"] : named;
}

function importLines(source: string): ImportLine[] {
  const lines: ImportLine[] = [];
  for (const m of source.matchAll(IMPORT)) {
    if (m[2]) continue; // `import type` / `export type`: erased
    const names = importedNames(m[3]);
    // `import { type A } from "x"`: erased too.
    if (m[3] && names.length === 0) continue;
    lines.push({ reexport: m[1] === "export", spec: m[4]!, names });
  }
  for (const m of source.matchAll(DYNAMIC_IMPORT))
    lines.push({ reexport: false, spec: m[1]!, names: ["*"] });
  return lines;
}

export class LaneScanner {
  readonly #packages = new Map<string, { dir: string; exports: Record<string, string> }>();
  readonly #starts = new Map<string, boolean>();
  readonly #lines = new Map<string, ImportLine[]>();

  /** `workspaceDirs`: absolute paths of the workspaces (each with a package.json). */
  constructor(workspaceDirs: string[]) {
    for (const dir of workspaceDirs) {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name: string;
        exports?: Record<string, string>;
      };
      this.#packages.set(pkg.name, { dir, exports: pkg.exports ?? {} });
    }
  }

  lane(file: string): Lane {
    return this.#needsServer(resolve(file), ["*"]) ? "full" : "quick";
  }

  /** The source file a specifier names, or undefined for a package outside the workspaces. */
  #resolve(from: string, spec: string): string | undefined {
    if (spec.startsWith(".")) {
      const path = resolve(dirname(from), spec);
      return existsSync(path) ? path : undefined;
    }
    const [scope, name, ...rest] = spec.split("/");
    const pkg = this.#packages.get(`${scope}/${name}`);
    const target = pkg?.exports[rest.length > 0 ? `./${rest.join("/")}` : "."];
    return pkg && target ? join(pkg.dir, target) : undefined;
  }

  /**
   * Whether `file`, used for `names` ("*": all of it), reaches a process starter: all of its own
   * imports count; of its re-exports only those that provide one of the names.
   */
  #needsServer(file: string, names: string[]): boolean {
    const key = `${file}#${names.join(",")}`;
    const known = this.#starts.get(key);
    if (known !== undefined) return known;
    this.#starts.set(key, false); // an import cycle adds nothing
    const all = names.includes("*");
    let lines = this.#lines.get(file);
    if (!lines) this.#lines.set(file, (lines = importLines(readFileSync(file, "utf8"))));
    const starts = lines
      .filter((l) => all || !l.reexport || l.names.some((n) => n === "*" || names.includes(n)))
      .some((l) => this.#lineStarts(file, l, all ? ["*"] : names));
    this.#starts.set(key, starts);
    return starts;
  }

  #lineStarts(from: string, line: ImportLine, used: string[]): boolean {
    if (line.spec === "node:child_process" || line.spec === "child_process")
      return line.names.some((n) => n === "*" || STARTER_NAMES.has(n));
    if (STARTER_PACKAGES.has(line.spec)) return true;
    const target = this.#resolve(from, line.spec);
    if (!target?.endsWith(".ts")) return false;
    // `export * from`: the names asked for pass through.
    const names = line.reexport && line.names.includes("*") ? used : line.names;
    return this.#needsServer(target, names.length > 0 ? names : ["*"]);
  }
}
