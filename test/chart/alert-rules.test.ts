// The chart's alerting rules evaluated by Prometheus' own rule engine (`promtool test rules`): each
// alert fires in the scenario it watches, absences included, and stays silent in a healthy one.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { byKind, render, valueSets } from "./support/helm.ts";
import { scenarios, type Scenario } from "./support/alert-scenarios.ts";

const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), "chart-alert-rules-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

type Group = { name: string; rules: Array<{ alert: string; annotations?: unknown }> };

/**
 * The production render's rule groups, without annotations: promtool compares an alert's
 * annotations too, and those (summaries, runbook links) are alerts.test.ts's to check.
 */
async function ruleFile(): Promise<{ path: string; alerts: Set<string> }> {
  const [rule] = byKind(await render(valueSets.production), "PrometheusRule");
  const groups = (rule!.spec as { groups: Group[] }).groups.map((g) => ({
    name: g.name,
    rules: g.rules.map(({ annotations: _, ...r }) => r),
  }));
  const path = join(work, "rules.yaml");
  writeFileSync(path, stringify({ groups }));
  return { path, alerts: new Set(groups.flatMap((g) => g.rules.map((r) => r.alert))) };
}

/** promtool's unit test of one scenario. */
const testOf = (s: Scenario) => ({
  name: `${s.alert}: ${s.title}`,
  interval: "1m",
  input_series: s.series.map(([series, values]) => ({ series, values })),
  alert_rule_test: [
    {
      eval_time: s.at,
      alertname: s.alert,
      exp_alerts: s.fires.map((exp_labels) => ({ exp_labels })),
    },
  ],
});

async function promtool(rules: string, tests: Scenario[]) {
  const file = join(work, "tests.yaml");
  writeFileSync(
    file,
    stringify({ rule_files: [rules], evaluation_interval: "1m", tests: tests.map(testOf) }),
  );
  try {
    await run("promtool", ["test", "rules", file]);
    return "";
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return `${e.stdout ?? ""}${e.stderr ?? ""}` || String(err);
  }
}

describe("alerting rules under promtool", () => {
  // promtool evaluates about fifty scenarios of up to 90 minutes each.
  it(
    "fire in each failure they watch, absence included, and stay silent otherwise",
    { timeout: 120_000 },
    async () => {
      const { path, alerts } = await ruleFile();
      expect(await promtool(path, scenarios)).toBe("");
      for (const alert of alerts) {
        const own = scenarios.filter((s) => s.alert === alert);
        expect(
          own.some((s) => s.fires.length > 0),
          `${alert} fires somewhere`,
        ).toBe(true);
        expect(
          own.some((s) => s.fires.length === 0),
          `${alert} is silent somewhere`,
        ).toBe(true);
      }
    },
  );

  it(
    "would catch a rule that stays silent when its series are gone",
    { timeout: 60_000 },
    async () => {
      const { path } = await ruleFile();
      const gone = scenarios.find((s) => s.title === "every dispatcher pod gone")!;
      const output = await promtool(path, [{ ...gone, fires: [] }]);
      expect(output).toContain("IntegrationServiceOperatorNotLeading");
    },
  );
});
