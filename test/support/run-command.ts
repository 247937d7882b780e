import { spawn } from "node:child_process";
import { once } from "node:events";

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end with no input, and returns its exit code and what it printed. */
export async function runCommand(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<CommandResult> {
  const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => void (stdout += c));
  child.stderr.setEncoding("utf8").on("data", (c: string) => void (stderr += c));
  const [code] = (await once(child, "close")) as [number | null];
  return { code, stdout, stderr };
}
