import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

describe("runtime", () => {
  it("tests run on Node 24, the runtime production runs", () => {
    expect(process.version).toMatch(/^v24\./);
    const pkg = JSON.parse(
      readFileSync(new URL("../../package.json", import.meta.url), "utf8"),
    ) as { engines: { node: string }; devDependencies: Record<string, string> };
    expect(pkg.engines.node).toContain("24");
    expect(pkg.devDependencies.node).toMatch(/^\^24\./);
  });
});
