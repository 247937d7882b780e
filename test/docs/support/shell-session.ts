/**
 * Runs a guide's shell blocks one after the other as a reader runs them in one terminal: each in
 * `bash -euo pipefail`, in the same working directory, and a variable a block sets (`TOKEN=$(…)`)
 * is there for the blocks after it.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";

export interface BlockRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** The variables the block set or changed. */
  set: Record<string, string>;
}

/** Names a guide's blocks may pass on: upper-case shell variables, not bash's own. */
const CARRIED = /^[A-Z][A-Z0-9_]*$/;
const BASH_OWN = new Set(["PWD", "OLDPWD", "SHLVL", "_", "BASHOPTS", "SHELLOPTS", "PIPESTATUS"]);
const ENV_FILE = ".docs-block-env";

export class ShellSession {
  readonly cwd: string;
  readonly vars: Record<string, string>;
  readonly #base: Record<string, string>;

  /** `base`: what every block sees besides the guide's variables (PATH, HOME, ...). */
  constructor(cwd: string, base: Record<string, string>, vars: Record<string, string> = {}) {
    this.cwd = cwd;
    this.#base = base;
    this.vars = { ...vars };
  }

  async run(code: string, timeoutMs = 30_000): Promise<BlockRun> {
    // `set -a` exports what the block assigns, so the EXIT trap's `env` sees it.
    const script = `set -a\ntrap 'env -0 > ${ENV_FILE}' EXIT\n${code}\n`;
    const env = { ...this.#base, ...this.vars };
    // stdin is /dev/null: Debian's bash reads /etc/bash.bashrc when stdin is a socket (as
    // Node's pipes are), taking the block for a remote shell.
    const child = spawn("bash", ["-euo", "pipefail", "-c", script], {
      cwd: this.cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: timeoutMs,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => void (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => void (stderr += chunk));
    // "close", not "exit": the output streams are complete only then.
    const [exitCode] = (await once(child, "close")) as [number | null];
    const result = { code: exitCode, stdout, stderr };
    const set: Record<string, string> = {};
    const dump = await readFile(join(this.cwd, ENV_FILE), "utf8").catch(() => "");
    await rm(join(this.cwd, ENV_FILE), { force: true });
    for (const entry of dump.split("\0")) {
      const eq = entry.indexOf("=");
      if (eq <= 0) continue;
      const [name, value] = [entry.slice(0, eq), entry.slice(eq + 1)];
      if (!CARRIED.test(name) || BASH_OWN.has(name) || name in this.#base) continue;
      if (env[name] !== value) set[name] = value;
    }
    if (result.code === 0) Object.assign(this.vars, set);
    return { exitCode: result.code, stdout: result.stdout, stderr: result.stderr, set };
  }
}
