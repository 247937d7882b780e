// The chart's PrometheusRule and Grafana dashboard: every expression is valid PromQL (parsed with
// Prometheus' own grammar), uses only metrics the code exports, and every alert links to a runbook
// section of the platform guide that exists.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parser } from "@prometheus-io/lezer-promql";
import { describe, expect, it } from "vitest";
import { anchorsOf } from "../docs/support/markdown.ts";
import {
  catalogueEntry,
  exporterLabels,
  metricLabels,
} from "../observability/support/metric-labels.ts";
import { parse } from "yaml";
import { byKind, chartDir, render, repoRoot, valueSets, type K8sObject } from "./support/helm.ts";

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

interface Dashboard {
  uid: string;
  panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === "node_modules" || name === "test") return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".ts") && !name.endsWith(".test.ts") ? [path] : [];
  });
}

/**
 * The Prometheus series of every OpenTelemetry instrument the services and shared packages create:
 * dots become underscores, counters get `_total` (unless named so), histograms `_bucket`, `_count`
 * and `_sum`.
 */
function exportedSeries(): Set<string> {
  const series = new Set<string>();
  const files = ["services", "shared"].flatMap((top) =>
    readdirSync(join(repoRoot, top)).flatMap((ws) => {
      const src = join(repoRoot, top, ws, "src");
      try {
        return sourceFiles(src);
      } catch {
        return [];
      }
    }),
  );
  const created = /\.create(\w+)\(\s*(?:"([a-z0-9_.]+)"|([A-Z_]+)\b)/g;
  for (const file of files) {
    const source = readFileSync(file, "utf8");
    // A name given as a constant of the same file: `const NAME = "a.b";`.
    const constant = (id: string) => new RegExp(`const ${id} = "([a-z0-9_.]+)"`).exec(source)?.[1];
    for (const [, kind, literal, id] of source.matchAll(created)) {
      const name = literal ?? constant(id!);
      if (!name) throw new Error(`${file}: the name ${id} of a metric is not a string constant`);
      const base = name.replaceAll(".", "_");
      if (kind === "Counter" || kind === "ObservableCounter")
        series.add(base.endsWith("_total") ? base : `${base}_total`);
      else if (kind === "Histogram")
        for (const s of ["bucket", "count", "sum"]) series.add(`${base}_${s}`);
      else if (/Gauge|UpDownCounter/.test(kind!)) series.add(base);
    }
  }
  return series;
}

/** Parses a PromQL expression; throws naming the position of a syntax error. */
function metricsOf(expr: string): string[] {
  const tree = parser.parse(expr);
  const metrics: string[] = [];
  const cursor = tree.cursor();
  do {
    if (cursor.type.isError) throw new Error(`PromQL syntax error at ${cursor.from} in: ${expr}`);
    if (cursor.name === "Identifier" && cursor.node.parent?.name === "VectorSelector")
      metrics.push(expr.slice(cursor.from, cursor.to));
  } while (cursor.next());
  return metrics;
}

/**
 * Labels Prometheus adds to every series it scrapes: the target's, from the ServiceMonitor or the
 * pod annotations.
 */
const targetLabels = ["job", "instance", "namespace", "service", "pod", "container", "endpoint"];

/** Series Prometheus itself writes for every target: `up`, with the target's labels. */
const prometheusSeries = new Set(["up"]);

/**
 * The labels a series carries: the code's, the exporter's, the target's and a histogram bucket's
 * `le`.
 */
function labelsOf(series: string): string[] {
  if (prometheusSeries.has(series)) return targetLabels;
  const entry = catalogueEntry(series);
  if (!entry) return [];
  return [
    ...entry.labels,
    ...exporterLabels,
    ...targetLabels,
    ...(series.endsWith("_bucket") ? ["le"] : []),
  ];
}

type SyntaxNode = ReturnType<typeof parser.parse>["topNode"];

const text = (expr: string, node: { from: number; to: number }) => expr.slice(node.from, node.to);

/**
 * Every label an expression names, checked against the series it applies to: a matcher's label
 * against its selector's metric (and an equality's value against the code's closed set), a
 * `by`/`without` label against every metric its aggregation reads, an `on`/`ignoring` label against
 * every metric of both operands. Returns one message per mismatch.
 */
function labelProblems(expr: string): string[] {
  const problems: string[] = [];
  const tree = parser.parse(expr);
  const metricsUnder = (node: SyntaxNode): string[] => {
    const found: string[] = [];
    const cursor = node.cursor();
    const end = node.to;
    do {
      if (cursor.from >= end) break;
      if (cursor.name === "Identifier" && cursor.node.parent?.name === "VectorSelector")
        found.push(text(expr, cursor));
    } while (cursor.next());
    return found;
  };
  const checkAll = (labels: SyntaxNode, metrics: string[], clause: string) => {
    for (const label of labels.getChildren("LabelName")) {
      const name = text(expr, label);
      for (const metric of metrics)
        if (!labelsOf(metric).includes(name))
          problems.push(`${clause} names "${name}", which ${metric} does not carry`);
    }
  };
  tree.iterate({
    enter: (ref) => {
      const node = ref.node;
      if (node.name === "VectorSelector") {
        const metric = text(expr, node.getChild("Identifier")!);
        if (!catalogueEntry(metric) && !prometheusSeries.has(metric))
          problems.push(`${metric} is not in the metric label catalogue`);
        for (const matcher of node.getChild("LabelMatchers")?.getChildren("UnquotedLabelMatcher") ??
          []) {
          const name = text(expr, matcher.getChild("LabelName")!);
          const op = text(expr, matcher.getChild("MatchOp")!);
          const value = JSON.parse(text(expr, matcher.getChild("StringLiteral")!)) as string;
          if (!labelsOf(metric).includes(name)) {
            problems.push(`${metric}{${name}${op}...}: ${metric} does not carry "${name}"`);
            continue;
          }
          const closed = catalogueEntry(metric)?.values?.[name];
          if (closed && (op === "=" || op === "!=") && !closed.includes(value))
            problems.push(
              `${metric}{${name}${op}"${value}"}: the code sets ${name} only to ${closed.join(", ")}`,
            );
          if (
            closed &&
            (op === "=~" || op === "!~") &&
            !closed.some((v) => new RegExp(`^(?:${value})$`).test(v))
          )
            problems.push(
              `${metric}{${name}${op}"${value}"}: matches none of ${closed.join(", ")}`,
            );
        }
      } else if (node.name === "AggregateExpr") {
        const modifier = node.getChild("AggregateModifier");
        const labels = modifier?.getChild("GroupingLabels");
        const body = node.getChild("FunctionCallBody");
        if (labels && body) checkAll(labels, metricsUnder(body), text(expr, modifier!));
      } else if (node.name === "BinaryExpr") {
        const clause = node.getChild("MatchingModifierClause");
        const labels = clause?.getChild("GroupingLabels");
        if (clause && labels) checkAll(labels, metricsUnder(node), text(expr, clause));
      }
    },
  });
  return problems;
}

/** Grafana's variables, replaced by values PromQL accepts. */
const grafanaExpr = (expr: string) =>
  expr.replaceAll("$__rate_interval", "5m").replaceAll("$namespace", "integration");

const rulesOf = (objects: K8sObject[]): Rule[] =>
  byKind(objects, "PrometheusRule").flatMap((r) =>
    (r.spec as { groups: Array<{ rules: Rule[] }> }).groups.flatMap((g) => g.rules),
  );

const series = exportedSeries();
const runbookAnchors = anchorsOf(readFileSync(join(repoRoot, "docs/platform.md"), "utf8"));

describe("alerting rules", () => {
  it("are not rendered unless metrics.prometheusRule.enabled", async () => {
    expect(byKind(await render(valueSets.default), "PrometheusRule")).toEqual([]);
  });

  it("parse as PromQL and use only metrics the services export (or up), scoped to the release's pods", async () => {
    const rules = rulesOf(await render(valueSets.production));
    expect(rules.length).toBeGreaterThanOrEqual(10);
    for (const rule of rules) {
      const used = metricsOf(rule.expr);
      expect(used.length, rule.alert).toBeGreaterThan(0);
      for (const metric of used)
        expect(prometheusSeries.has(metric) || series.has(metric), `${rule.alert}: ${metric}`).toBe(
          true,
        );
      expect(rule.expr, rule.alert).not.toMatch(/\{(?![^}]*namespace="integration")[^}]*\}/);
      expect(rule.expr, rule.alert).not.toMatch(/\{(?![^}]*pod=~"isvc-\()[^}]*\}/);
    }
  });

  it("keep the namespace in every aggregation, for routing", async () => {
    for (const rule of rulesOf(await render(valueSets.production)))
      for (const [, labels] of rule.expr.matchAll(/\b(?:sum|max|min|avg|count) by \(([^)]*)\)/g))
        expect(labels!.split(/,\s*/), rule.alert).toContain("namespace");
  });

  it("match and group by labels the code sets on each metric, with values from its closed sets", async () => {
    for (const rule of rulesOf(await render(valueSets.production)))
      expect(labelProblems(rule.expr), rule.alert).toEqual([]);
  });

  it("cover dead deliveries, delivery failures, both consumers' lag, change detection, the outbox, 5xx and revocations", async () => {
    const rules = rulesOf(await render(valueSets.production));
    const using = (metric: string, text = "") =>
      rules.filter((r) => metricsOf(r.expr).includes(metric) && r.expr.includes(text));
    expect(using("webhook_delivery_dead_total")).not.toEqual([]);
    expect(using("webhook_delivery_attempts_total", 'outcome!="succeeded"')).not.toEqual([]);
    expect(using("messaging_consumer_pending", "_EVENTS")).not.toEqual([]);
    expect(using("messaging_consumer_pending", "_WEBHOOK_DELIVERIES")).not.toEqual([]);
    expect(using("change_detection_pass_duration_count", 'outcome="ok"')).not.toEqual([]);
    expect(using("change_detection_pass_duration_bucket")).not.toEqual([]);
    expect(using("outbox_oldest_pending_age")).not.toEqual([]);
    expect(using("http_server_request_duration_count", '"5.."')).not.toEqual([]);
    expect(using("auth_revocation_list_staleness")).not.toEqual([]);
    expect(using("webhooks_subscriptions_auto_disabled_total")).not.toEqual([]);
    expect(using("controller_runtime_reconcile_errors_total")).not.toEqual([]);
    expect(using("leader_election_master_status")).not.toEqual([]);
  });

  it("carry a severity, a summary and a runbook_url to a section of the platform guide that exists", async () => {
    const { appVersion } = parse(readFileSync(join(chartDir, "Chart.yaml"), "utf8")) as {
      appVersion: string;
    };
    for (const [values, prefix] of [
      [valueSets.production, "https://docs.integration.example.com/platform#"],
      [
        ["--set", "metrics.prometheusRule.enabled=true"],
        `https://docs.integration.example.com/${appVersion}/platform#`,
      ],
    ] as const) {
      const objects =
        values === valueSets.production
          ? await render(valueSets.production)
          : await render(valueSets.default, [...values]);
      for (const rule of rulesOf(objects)) {
        expect(["critical", "warning", "info"], rule.alert).toContain(rule.labels?.severity);
        expect(rule.annotations?.summary, rule.alert).toBeTruthy();
        const link = rule.annotations?.runbook_url ?? "";
        expect(link.startsWith(prefix), `${rule.alert}: ${link}`).toBe(true);
        expect(runbookAnchors, `${rule.alert}: ${link}`).toContain(link.slice(prefix.length));
      }
    }
  });

  it("take their thresholds from values", async () => {
    const rules = rulesOf(
      await render(valueSets.default, [
        "--set",
        "metrics.prometheusRule.enabled=true",
        "--set",
        "metrics.prometheusRule.thresholds.outboxAgeSeconds=42",
      ]),
    );
    const outbox = rules.find((r) => metricsOf(r.expr).includes("outbox_oldest_pending_age"));
    expect(outbox?.expr).toMatch(/> 42\s*$/);
  });
});

describe("the metric label catalogue", () => {
  it("has an entry for every series the code exports, and none for a series it does not", () => {
    const covered = [...series].filter((s) => !catalogueEntry(s));
    expect(covered).toEqual([]);
    const histogramOrSeries = (name: string) => series.has(name) || series.has(`${name}_count`);
    expect(Object.keys(metricLabels).filter((m) => !histogramOrSeries(m))).toEqual([]);
  });

  it("has each entry checked against scraped samples by an observability test", () => {
    const dir = join(repoRoot, "test/observability");
    const tests = readdirSync(dir)
      .filter((f) => f.endsWith(".test.ts"))
      .map((f) => readFileSync(join(dir, f), "utf8"))
      .join("\n");
    const calls = [...tests.matchAll(/expectCatalogued\([^[]*\[([^\]]*)\]/g)].flatMap((m) =>
      [...m[1]!.matchAll(/"([a-z0-9_]+)"/g)].map((n) => n[1]!),
    );
    expect(Object.keys(metricLabels).filter((m) => !calls.includes(m))).toEqual([]);
  });
});

describe("label checks", () => {
  it("find a misspelt matcher, a grouping label the metric lacks and a value outside a closed set", () => {
    expect(labelProblems('sum by (job) (rate(outbox_pending{namespace="a"}[5m]))')).toEqual([]);
    expect(
      labelProblems(
        'sum by (job) (rate(change_detection_pass_duration_count{change_detecton_kind="incremental"}[5m]))',
      ),
    ).toEqual([
      'change_detection_pass_duration_count{change_detecton_kind=...}: change_detection_pass_duration_count does not carry "change_detecton_kind"',
    ]);
    expect(labelProblems("sum by (outbox_schema) (webhook_delivery_dead_total)")).toHaveLength(1);
    expect(labelProblems('webhook_delivery_attempts_total{outcome="dropped"}')).toHaveLength(1);
    expect(labelProblems('webhook_delivery_attempts_total{outcome=~"drop.*"}')).toHaveLength(1);
    expect(
      labelProblems(
        "histogram_quantile(0.9, sum by (le) (rate(webhook_delivery_latency_bucket[5m])))",
      ),
    ).toEqual([]);
    expect(labelProblems("sum by (le) (rate(webhook_delivery_latency_count[5m]))")).toHaveLength(1);
    expect(labelProblems("outbox_pending / on (outcome) outbox_oldest_pending_age")).toHaveLength(
      2,
    );
  });
});

describe("Grafana dashboard", () => {
  it("is not rendered unless metrics.dashboard.enabled", async () => {
    const maps = byKind(await render(valueSets.default), "ConfigMap");
    expect(maps.filter((m) => m.metadata.name.endsWith("-dashboard"))).toEqual([]);
  });

  it("is a ConfigMap with the sidecar's label whose panels query only exported metrics", async () => {
    const [map] = byKind(await render(valueSets.production), "ConfigMap").filter((m) =>
      m.metadata.name.endsWith("-dashboard"),
    );
    expect(map?.metadata.labels).toMatchObject({ grafana_dashboard: "1" });
    const data = (map as unknown as { data: Record<string, string> }).data;
    const dashboard = JSON.parse(data["integration-service.json"]!) as Dashboard;
    expect(dashboard.uid).toBe("integration-service");
    expect(dashboard.panels.length).toBeGreaterThanOrEqual(10);
    for (const panel of dashboard.panels) {
      expect(panel.targets.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets)
        for (const metric of metricsOf(grafanaExpr(target.expr)))
          expect(series, `${panel.title}: ${metric}`).toContain(metric);
    }
  });

  it("panels match and group by labels the code sets on each metric, with values from its closed sets", async () => {
    const [map] = byKind(await render(valueSets.production), "ConfigMap").filter((m) =>
      m.metadata.name.endsWith("-dashboard"),
    );
    const data = (map as unknown as { data: Record<string, string> }).data;
    const dashboard = JSON.parse(data["integration-service.json"]!) as Dashboard;
    for (const panel of dashboard.panels) {
      for (const target of panel.targets)
        expect(labelProblems(grafanaExpr(target.expr)), panel.title).toEqual([]);
    }
  });
});
