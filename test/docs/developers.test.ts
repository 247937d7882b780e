import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { blockLabel, fencedBlocks } from "./support/markdown.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const GUIDE = `${ROOT}docs/developers.md`;

describe("docs/developers.md", () => {
  const tested = fencedBlocks(GUIDE).filter((b) => b.lang === "sh" && b.tags.includes("tested"));

  it("has commands that CI runs", () => {
    expect(tested.length).toBeGreaterThan(0);
  });

  it.each(tested.map((b) => [blockLabel(b, ROOT), b] as const))(
    "%s runs and exits 0",
    (label, block) => {
      const run = spawnSync("bash", ["-euo", "pipefail", "-c", block.code], {
        cwd: ROOT,
        encoding: "utf8",
        timeout: 120_000,
      });
      expect(run.status, `${label} failed:\n${run.stdout}\n${run.stderr}`).toBe(0);
    },
    150_000,
  );
});
