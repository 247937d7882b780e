import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SELF = relative(ROOT, fileURLToPath(import.meta.url));

/**
 * Citations of what is not in the repository: sections of the outside contract document
 * ("spec 7.1", "spec part 6", "(spec)"), its ARCHITECTURE and STYLE.md, the outside notes.
 * `(spec)` only as prose, not as a call's argument (`structuredClone(spec)`).
 */
const CITATION =
  /spec [0-9][0-9./]*|spec part|(?<![\w$.])\(spec\)|ARCHITECTURE|STYLE\.md|notes\/(toolchain|jetstream)/g;

/** A relative path into a `shared/` directory; it must stay inside the repository and exist. */
const SHARED_PATH = /(?:\.\.\/)+shared\/[^\s`'"()[\]<>,;#]*/g;

/** Every tracked file, as git lists it (the repository, not what happens to lie around). */
function trackedFiles(): string[] {
  return execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" })
    .split("\0")
    .filter((f) => f !== "" && existsSync(join(ROOT, f)))
    .filter((f) => f !== "package-lock.json" && f !== SELF);
}

/** Each line of `file` that points outside the repository, as `file:line: what`. */
function outsideReferences(file: string): string[] {
  const found: string[] = [];
  const text = readFileSync(join(ROOT, file), "utf8");
  if (text.includes("\0")) return found; // binary
  text.split("\n").forEach((line, i) => {
    for (const m of line.matchAll(CITATION)) found.push(`${file}:${i + 1}: cites "${m[0]}"`);
    for (const m of line.matchAll(SHARED_PATH)) {
      const path = m[0].replace(/[.:]+$/, "");
      const target = resolve(ROOT, dirname(file), path);
      if (!target.startsWith(ROOT) || !existsSync(target))
        found.push(`${file}:${i + 1}: ${path} (not a file in the repository)`);
    }
  });
  return found;
}

describe("the repository is self-contained", () => {
  const files = trackedFiles();

  it("no code, test or config file cites the outside contract or files outside the repository", () => {
    const found = files.filter((f) => !f.endsWith(".md")).flatMap(outsideReferences);
    expect(found).toEqual([]);
  });

  it("no Markdown file cites the outside contract or files outside the repository", () => {
    const found = files.filter((f) => f.endsWith(".md")).flatMap(outsideReferences);
    expect(found).toEqual([]);
  });
});
