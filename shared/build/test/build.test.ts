import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bundlePath, DIST_DIR, ENTRY_POINTS, REPO_ROOT } from "@svc/manifest";
import { build } from "../src/index.ts";

describe("build", () => {
  it("writes every entry point's bundle, and changes nothing when built again", async () => {
    const first = await build();
    for (const entry of ENTRY_POINTS) expect(first.files, entry).toContain(bundlePath(entry));
    expect(first.files.every((f) => f.startsWith(`${DIST_DIR}/`))).toBe(true);
    const again = await build();
    expect(again.files.sort()).toEqual(first.files.sort());
    expect(again.written).toEqual([]);
    expect(again.removed).toEqual([]);
  }, 60_000);

  it("keeps import.meta.url meaning the source file's location, and leaves installed packages external", async () => {
    const { files } = await build();
    const migrate = readFileSync(join(REPO_ROOT, bundlePath("tools/migrate.ts")), "utf8");
    expect(migrate).toContain('new URL("../../tools/migrate.ts", import.meta.url)');
    const code = files
      .filter((f) => f.endsWith(".js"))
      .map((f) => readFileSync(join(REPO_ROOT, f), "utf8"))
      .join("\n");
    expect(code).toMatch(/ from "pg";/);
    expect(code).not.toMatch(/ from "@svc\//);
    expect(code).not.toMatch(/ from "[^"]*\.ts";/);
  }, 60_000);
});
