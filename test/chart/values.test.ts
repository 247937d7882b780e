// values.schema.json rejects mistakes; values.yaml documents every key.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chartDir, helm, kubeVersion, render, valueArgs } from "./support/helm.ts";

async function templateError(files: string[], extra: string[] = []): Promise<string> {
  const result = await helm([
    "template",
    "isvc",
    chartDir,
    "--kube-version",
    kubeVersion,
    ...valueArgs(files),
    ...extra,
  ]);
  expect(result.code, "helm template should have failed").not.toBe(0);
  return result.stderr;
}

describe("values.schema.json", () => {
  it("rejects the deliberately broken value set, naming every mistake", async () => {
    const err = await templateError(["broken.yaml"]);
    expect(err).toMatch(/\/environment/);
    expect(err).toMatch(/\/logLevel/);
    expect(err).toMatch(/\/image\/pullPolicy/);
    expect(err).toMatch(/componets/);
    expect(err).toMatch(/\/ingress\/enabled/);
  });

  it("rejects an unknown key inside a component", async () => {
    expect(await templateError([], ["--set", "components.auth.replica=3"])).toMatch(/replica/);
  });

  it("rejects a component's resources without a memory limit", async () => {
    expect(await templateError([], ["--set", "components.auth.resources.limits=null"])).toMatch(
      /limits/,
    );
  });

  it("rejects a NATS server entry that holds a comma-joined list", async () => {
    expect(
      await templateError([], ["--set-json", 'nats.servers=["nats://a:4222,nats://b:4222"]']),
    ).toMatch(/servers/);
  });

  it("fails the render when a dependency has no network policy destination", async () => {
    const err = await templateError([], ["--set-json", "postgresql.egress.cidrs=[]"]);
    expect(err).toContain("postgresql.egress needs cidrs or peers");
  });

  it("fails the render when a secret has neither an inline value nor an existing Secret", async () => {
    expect(await templateError([], ["--set", "postgresql.existingSecret="])).toContain(
      "set an inline value or existingSecret",
    );
  });

  it("accepts the value sets CI keeps", async () => {
    await expect(render(["production.yaml", "hpa.yaml"])).resolves.not.toHaveLength(0);
  });
});

describe("values.yaml", () => {
  for (const file of ["values.yaml", "values-dev.yaml"]) {
    it(`has a comment right above every key of ${file}`, () => {
      const lines = readFileSync(join(chartDir, file), "utf8").split("\n");
      const undocumented = lines
        .map((line, i) => ({ line, i }))
        // Keys of mappings, not items of lists (those are data, documented by their key).
        .filter(({ line }) => /^\s*[A-Za-z0-9_.\-/]+:(\s|$)/.test(line) && !/^\s*-/.test(line))
        .filter(({ i }) => {
          const above = (lines[i - 1] ?? "").trim();
          return !above.startsWith("#") && !/^-\s/.test(above) && !isInsideListItem(lines, i);
        })
        .map(({ line, i }) => `${i + 1}: ${line.trim()}`);
      expect(undocumented).toEqual([]);
    });
  }
});

/** True when the key belongs to a mapping inside a list item (e.g. a NetworkPolicyPeer). */
function isInsideListItem(lines: string[], index: number): boolean {
  const indent = (lines[index] ?? "").search(/\S/);
  for (let i = index - 1; i >= 0; i--) {
    const line = lines[i] ?? "";
    const own = line.search(/\S/);
    if (own < 0 || line.trim().startsWith("#")) continue;
    if (own < indent) return /^\s*-\s/.test(line) || isInsideListItem(lines, i);
  }
  return false;
}
