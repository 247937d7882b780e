// The labels each metric the services export carries, as the Prometheus text shows them, and the
// values of those labels whose set the code closes. The chart's alerts and dashboard are checked
// against this catalogue (test/chart/alerts.test.ts); the tests that record each metric from the
// services' code paths check their scraped samples against it (expectCatalogued), so an entry
// cannot claim a label the code does not set.
import { parseSamples } from "@svc/telemetry";
import { expect } from "vitest";

export interface MetricLabels {
  /**
   * Label names the code sets on every sample, besides the exporter's, Prometheus' target labels
   * and a histogram's `le`.
   */
  labels: readonly string[];
  /** Labels whose values the code chooses from a closed set. */
  values?: Readonly<Record<string, readonly string[]>>;
}

/** Labels the Prometheus exporter puts on every sample: the Meter's name and version. */
export const exporterLabels = ["otel_scope_name", "otel_scope_version"] as const;

const attemptOutcomes = ["succeeded", "retrying", "failed", "dead"];
const passKinds = ["quick", "incremental", "sweep", "baseline"];
const controller = { controller: ["webhooksubscription"] };

/**
 * Keyed by the Prometheus name: a counter's with `_total`, a histogram's without its `_bucket`,
 * `_count` and `_sum`.
 */
export const metricLabels: Readonly<Record<string, MetricLabels>> = {
  http_server_request_duration: {
    labels: ["http_request_method", "http_route", "http_response_status_code"],
  },
  auth_token_issuance_total: {
    labels: ["outcome"],
    values: {
      outcome: [
        "issued",
        "invalid_request",
        "invalid_client",
        "invalid_scope",
        "unsupported_grant_type",
        "slow_down",
        "temporarily_unavailable",
        "server_error",
      ],
    },
  },
  auth_revocation_list_staleness: { labels: [] },
  legacy_source_unavailable_total: { labels: ["error_type"] },
  outbox_pending: { labels: ["outbox_schema"] },
  outbox_oldest_pending_age: { labels: ["outbox_schema"] },
  change_detection_pass_duration: {
    labels: ["change_detection_source", "change_detection_kind", "outcome"],
    values: { change_detection_kind: passKinds, outcome: ["ok", "error"] },
  },
  change_detection_passes_total: {
    labels: ["change_detection_source", "change_detection_kind", "outcome"],
    values: { change_detection_kind: passKinds, outcome: ["changed", "unchanged", "error"] },
  },
  change_detection_changes_total: {
    labels: ["change_detection_source", "change_detection_change"],
    values: { change_detection_change: ["created", "updated", "deleted"] },
  },
  messaging_consumer_pending: {
    labels: ["messaging_system", "messaging_destination_name", "messaging_consumer_group_name"],
    values: { messaging_system: ["nats"] },
  },
  messaging_consumer_ack_pending: {
    labels: ["messaging_system", "messaging_destination_name", "messaging_consumer_group_name"],
    values: { messaging_system: ["nats"] },
  },
  messaging_consumer_handler_failures_total: {
    labels: ["messaging_system", "messaging_destination_name", "messaging_consumer_group_name"],
    values: { messaging_system: ["nats"] },
  },
  webhook_delivery_attempts_total: {
    labels: ["outcome", "attempt"],
    values: { outcome: attemptOutcomes },
  },
  webhook_delivery_attempt_duration: {
    labels: ["outcome"],
    values: { outcome: attemptOutcomes },
  },
  webhook_delivery_latency: { labels: ["attempt"] },
  webhook_delivery_dead_total: { labels: [] },
  webhooks_subscriptions_auto_disabled_total: { labels: [] },
  controller_runtime_reconcile_total: {
    labels: ["controller", "result"],
    values: { ...controller, result: ["success", "error"] },
  },
  controller_runtime_reconcile_errors_total: { labels: ["controller"], values: controller },
  controller_runtime_reconcile_time_seconds: { labels: ["controller"], values: controller },
  controller_runtime_active_workers: { labels: ["controller"], values: controller },
  controller_runtime_max_concurrent_reconciles: { labels: ["controller"], values: controller },
  workqueue_depth: {
    labels: ["name", "controller"],
    values: { ...controller, name: controller.controller },
  },
  workqueue_adds_total: {
    labels: ["name", "controller"],
    values: { ...controller, name: controller.controller },
  },
  workqueue_retries_total: {
    labels: ["name", "controller"],
    values: { ...controller, name: controller.controller },
  },
  leader_election_master_status: {
    labels: ["name"],
    values: { name: ["webhooks-dispatcher"] },
  },
};

const HISTOGRAM = /_(bucket|count|sum)$/;

/** The catalogue entry of a Prometheus series name (a histogram's by its base name). */
export function catalogueEntry(series: string): MetricLabels | undefined {
  return metricLabels[series] ?? metricLabels[series.replace(HISTOGRAM, "")];
}

/**
 * Every sample of each named metric in the scraped text carries exactly the catalogued label
 * names (plus the exporter's, and `le` on a histogram's buckets), with closed-set labels inside their set; and each
 * has at least one sample.
 */
export function expectCatalogued(text: string, metrics: readonly string[]): void {
  const samples = parseSamples(text);
  for (const metric of metrics) {
    const entry = metricLabels[metric];
    expect(entry, `${metric} is not in the metric label catalogue`).toBeDefined();
    const own = samples.filter(
      (s) =>
        s.name === metric || (HISTOGRAM.test(s.name) && s.name.replace(HISTOGRAM, "") === metric),
    );
    expect(own.length, `${metric}: no samples scraped`).toBeGreaterThan(0);
    for (const s of own) {
      const names = Object.keys(s.labels).filter(
        (l) =>
          !(l === "le" && s.name.endsWith("_bucket")) &&
          !(exporterLabels as readonly string[]).includes(l),
      );
      expect(names.sort(), `${s.name} ${JSON.stringify(s.labels)}`).toEqual(
        [...entry!.labels].sort(),
      );
      for (const [label, allowed] of Object.entries(entry!.values ?? {}))
        expect(allowed, `${s.name}: ${label}="${s.labels[label]}"`).toContain(s.labels[label]);
    }
  }
}
