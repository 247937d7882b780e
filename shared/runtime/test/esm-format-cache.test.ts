import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The hook changes how the whole process resolves modules, so each case runs in its own Node
// process: `--import register.ts` (the hook, as instrument.ts installs it) and an entry module.
const run = promisify(execFile);
const register = fileURLToPath(new URL("./support/register-esm-format-cache.ts", import.meta.url));
let dir: string;

function write(path: string, text: string): void {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), text);
}

async function node(entry: string, hooked: boolean): Promise<{ out: unknown; stderr: string }> {
  const args = [...(hooked ? ["--import", register] : []), "--expose-gc", join(dir, entry)];
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd: dir, timeout: 20_000 });
    return { out: JSON.parse(stdout), stderr };
  } catch (err) {
    const e = err as { stderr?: string };
    return { out: null, stderr: e.stderr ?? String(err) };
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "esm-format-cache-"));
  write(
    "node_modules/esm-pkg/package.json",
    JSON.stringify({ name: "esm-pkg", type: "module", exports: "./index.js" }),
  );
  write(
    "node_modules/esm-pkg/index.js",
    `export { a } from "./lib/a.js"; export { b } from "./lib/b.cjs"; export { c } from "./cjs/c.js"; export { d } from "./untyped/d.js";`,
  );
  write(
    "node_modules/esm-pkg/lib/a.js",
    `export const a = typeof require === "undefined" ? "esm" : "cjs";`,
  );
  write(
    "node_modules/esm-pkg/lib/b.cjs",
    `exports.b = typeof require === "undefined" ? "esm" : "cjs";`,
  );
  // A nested package.json decides the scope of the files below it, as in Node.
  write("node_modules/esm-pkg/cjs/package.json", JSON.stringify({ type: "commonjs" }));
  write(
    "node_modules/esm-pkg/cjs/c.js",
    `exports.c = typeof require === "undefined" ? "esm" : "cjs";`,
  );
  // No `type`: Node detects the syntax; the hook must leave it to Node.
  write("node_modules/esm-pkg/untyped/package.json", JSON.stringify({ name: "untyped" }));
  write(
    "node_modules/esm-pkg/untyped/d.js",
    `export const d = typeof require === "undefined" ? "esm" : "cjs";`,
  );
  write(
    "node_modules/broken-pkg/package.json",
    JSON.stringify({ name: "broken-pkg", type: "module", exports: "./index.js" }),
  );
  write("node_modules/broken-pkg/index.js", `export * from "./missing.js";`);
  write("formats.mjs", `const m = await import("esm-pkg"); console.log(JSON.stringify({ ...m }));`);
  write(
    "broken.mjs",
    `try { await import("broken-pkg"); console.log("null"); } catch (e) { console.log(JSON.stringify(e.code)); }`,
  );
  write(
    "drizzle.mjs",
    `const pg = await import("drizzle-orm/node-postgres"); const my = await import("drizzle-orm/mysql2");
     globalThis.gc(); const u = process.memoryUsage();
     console.log(JSON.stringify({ exports: [...Object.keys(pg), ...Object.keys(my)].sort(), heapTotalMb: u.heapTotal / 1048576 }));`,
  );
  // The repository's drizzle-orm through a symlink, as npm links workspaces: Node resolves the
  // real files.
  symlinkSync(
    fileURLToPath(new URL("../../../node_modules/drizzle-orm", import.meta.url)),
    join(dir, "node_modules/drizzle-orm"),
    "dir",
  );
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("registerEsmFormatCache", () => {
  it("gives every file the format Node gives it: type module, .cjs, a nested commonjs scope, and an untyped package left to detection", async () => {
    const plain = await node("formats.mjs", false);
    const hooked = await node("formats.mjs", true);
    expect(plain.out).toEqual({ a: "esm", b: "cjs", c: "cjs", d: "esm" });
    expect(hooked.out).toEqual(plain.out);
  });

  it("leaves a missing file to Node, which reports it as ERR_MODULE_NOT_FOUND", async () => {
    expect((await node("broken.mjs", true)).out).toBe("ERR_MODULE_NOT_FOUND");
  });

  it("loads drizzle-orm with the same exports and without the heap growth Node 24 has on its own", async () => {
    const plain = await node("drizzle.mjs", false);
    const hooked = await node("drizzle.mjs", true);
    const [p, h] = [
      plain.out as { exports: string[]; heapTotalMb: number },
      hooked.out as { exports: string[]; heapTotalMb: number },
    ];
    expect(h.exports).toEqual(p.exports);
    expect(h.exports).toContain("drizzle");
    // Without the hook the heap keeps far more (docs/decisions/process-runtime-settings.md).
    expect(h.heapTotalMb).toBeLessThan(40);
  });
});
