import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const child = fileURLToPath(new URL("./support/heap-burst.ts", import.meta.url));

async function burst(
  mode: "idle" | "busy",
): Promise<{ peak: number; after: number; releases: number; gcExposed: string }> {
  const { stdout } = await run(process.execPath, [child, mode], { timeout: 20_000 });
  return JSON.parse(stdout) as { peak: number; after: number; releases: number; gcExposed: string };
}

describe("startIdleHeapRelease", () => {
  it("gives a freed burst of heap back to the system once the process is idle", async () => {
    const r = await burst("idle");
    expect(r.peak).toBeGreaterThan(200);
    expect(r.releases).toBeGreaterThanOrEqual(1);
    expect(r.after).toBeLessThan(r.peak - 100);
  });

  it("does not collect while the event loop is busy", async () => {
    const r = await burst("busy");
    expect(r.releases).toBe(0);
  });

  it("does not expose gc() to the process's own code", async () => {
    expect((await burst("idle")).gcExposed).toBe("undefined");
  });
});
