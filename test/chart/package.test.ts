// The chart as it ships: `helm package`, then `helm lint --strict` of the package with the
// production example the platform guide installs; its versions against the repository's; the
// connections that example needs; and the README's values table against values.yaml.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { readmeState } from "../../tools/chart-values-table.ts";
import { chartDir, helm, kubeVersion, repoRoot } from "./support/helm.ts";
import { peakConnections } from "./support/connections.ts";

const example = join(chartDir, "values-production.yaml");
const work = mkdtempSync(join(tmpdir(), "chart-package-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the packaged chart", () => {
  it("packages, and lints strictly with the production example", async () => {
    const packaged = await helm(["package", chartDir, "--destination", work]);
    expect(packaged.stderr + packaged.stdout).toMatch(/Successfully packaged/);
    const [archive] = readdirSync(work).filter((f) => f.endsWith(".tgz"));
    const lint = await helm([
      "lint",
      join(work, archive!),
      "--strict",
      "--kube-version",
      kubeVersion,
      "-f",
      example,
    ]);
    expect(lint.stderr + lint.stdout).toContain("0 chart(s) failed");
    expect(lint.code).toBe(0);
  });

  it("carries the repository's version as appVersion, and a chart version no older", () => {
    const chart = parse(readFileSync(join(chartDir, "Chart.yaml"), "utf8")) as {
      version: string;
      appVersion: string;
    };
    const { version } = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
      version: string;
    };
    expect(chart.appVersion).toBe(version);
    const parts = (v: string) => v.split(/[.-]/).slice(0, 3).map(Number);
    const [chartV, appV] = [parts(chart.version), parts(version)];
    const older = chartV.findIndex((n, i) => n !== appV[i]);
    expect(older === -1 || chartV[older]! > appV[older]!, chart.version).toBe(true);
  });

  it("documents every value of values.yaml in the README's generated table", () => {
    const { expected, actual } = readmeState();
    expect(actual, "run npm run chart:values-table").toBe(expected);
  });
});

describe("the production example's database connections", () => {
  it("peak in a rolling update at every pod's pools plus one surge pod per Deployment", async () => {
    const peak = await peakConnections([example]);
    // vacancies autoscales to 8: its peak is 9 pods.
    expect(peak.pods.vacancies?.pods).toBe(9);
    expect(peak.pods.dispatcher).toEqual({ pods: 3, postgresql: 26, mysql: 0 });
    const sum = Object.values(peak.pods).reduce((n, p) => n + p.pods * p.postgresql, 0);
    expect(peak.postgresql).toBe(sum);
    expect(peak.mysql).toBe((4 + 9) * 12);
  });
});
