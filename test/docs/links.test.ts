import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { anchorsOf } from "./support/markdown.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Every tracked file, as git lists it (the repository, not what happens to lie around). */
function trackedFiles(): string[] {
  return execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" })
    .split("\0")
    .filter((f) => f !== "" && existsSync(join(ROOT, f)));
}

/** Inline links `[text](target)` outside code, with their line numbers. */
function linksOf(markdown: string): Array<{ target: string; line: number }> {
  const links: Array<{ target: string; line: number }> = [];
  let inFence = false;
  markdown.split("\n").forEach((line, i) => {
    if (/^\s*(`{3,}|~{3,})/.test(line)) inFence = !inFence;
    if (inFence) return;
    const withoutCode = line.replace(/`[^`]*`/g, "");
    for (const m of withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g))
      links.push({ target: m[1]!, line: i + 1 });
  });
  return links;
}

describe("documentation links", () => {
  const markdown = trackedFiles().filter((f) => f.endsWith(".md"));

  it("every link inside the repository points at a file (and heading) that exists", () => {
    const broken: string[] = [];
    for (const file of markdown) {
      const text = readFileSync(join(ROOT, file), "utf8");
      for (const { target, line } of linksOf(text)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
        const [path, anchor] = target.split("#", 2) as [string, string | undefined];
        const resolved = path === "" ? join(ROOT, file) : resolve(ROOT, dirname(file), path);
        if (!resolved.startsWith(ROOT) || !existsSync(resolved)) {
          broken.push(`${file}:${line}: ${target} (no such file in the repository)`);
          continue;
        }
        if (anchor && resolved.endsWith(".md")) {
          if (!anchorsOf(readFileSync(resolved, "utf8")).has(anchor))
            broken.push(`${file}:${line}: ${target} (no heading #${anchor})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
