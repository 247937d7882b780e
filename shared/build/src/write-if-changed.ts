import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Writes `contents` to `path` unless it already holds them, through a temporary file renamed into
 * place (a reader never sees half a file). Whether it wrote.
 */
export function writeIfChanged(path: string, contents: Uint8Array): boolean {
  try {
    if (Buffer.compare(readFileSync(path), contents) === 0) return false;
  } catch {
    // absent
  }
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, path);
  return true;
}
