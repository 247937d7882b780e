// docs/performance.md: its tested command blocks run (the cheap ones: options, the list of
// benchmarks, the report check; never a benchmark), and the bench files it names are the ones
// `npm run bench` runs.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { blockLabel, fencedBlocks } from "./support/markdown.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const GUIDE = join(ROOT, "docs/performance.md");
const text = readFileSync(GUIDE, "utf8");
const tested = fencedBlocks(GUIDE).filter((block) => block.tags.includes("tested"));

describe("docs/performance.md", () => {
  it("has tested shell blocks", () => {
    expect(tested.length).toBeGreaterThan(0);
    for (const block of tested) expect(block.lang, blockLabel(block, ROOT)).toBe("sh");
  });

  for (const block of tested)
    it(`runs ${blockLabel(block, ROOT)}`, { timeout: 120_000 }, () => {
      const run = spawnSync("bash", ["-euo", "pipefail", "-c", block.code], {
        cwd: ROOT,
        env: process.env,
        encoding: "utf8",
        timeout: 110_000,
      });
      const output = `${run.stdout ?? ""}${run.stderr ?? ""}`;
      expect(
        run.status,
        `${blockLabel(block, ROOT)} exited ${run.status ?? run.signal}:\n${output}`,
      ).toBe(0);
      expect(run.stdout.trim(), `${blockLabel(block, ROOT)} printed nothing`).not.toBe("");
    });

  it("names only bench files that exist", () => {
    const named = [
      ...new Set(
        [...text.matchAll(/\b(?:services|shared|tools)\/[\w./-]*bench[\w./-]*\.ts\b/g)].map(
          (m) => m[0],
        ),
      ),
    ];
    expect(named.length).toBeGreaterThan(0);
    const missing = named.filter((file) => !existsSync(join(ROOT, file)));
    expect(missing, "docs/performance.md names bench files that do not exist").toEqual([]);
  });

  it("describes every benchmark npm run bench runs", () => {
    const listed = execFileSync(process.execPath, ["tools/bench.ts", "--list"], {
      cwd: ROOT,
      encoding: "utf8",
    })
      .trim()
      .split("\n");
    expect(listed.length).toBeGreaterThan(0);
    const undescribed = listed.filter((file) => !text.includes(`\`${file}\``));
    expect(undescribed, "benchmarks docs/performance.md does not describe").toEqual([]);
  });
});
