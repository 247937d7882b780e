// Series scenarios for the chart's alerting rules, in promtool's unit-test format: for each alert
// one where it must fire and one where it must stay silent, including the ones where the series
// it watches are gone (a process that is down exports nothing).

/** One promtool test: input series (selector, values notation), then the alerts expected at `at`. */
export interface Scenario {
  title: string;
  alert: string;
  series: Array<[string, string]>;
  at: string;
  /** The labels of each alert expected firing at `at` (alertname aside); empty: none. */
  fires: Array<Record<string, string>>;
}

const NS = "integration";
const suffixes = ["abcde", "fghij"];

/** The name of a pod of a component's Deployment in release `release`. */
export const pod = (component: string, n = 0, release = "isvc") =>
  `${release}-${component}-7d9f8b6c5-${suffixes[n]}`;

/** A series selector of a pod's target, with more labels. */
export function on(component: string, metric: string, labels: Record<string, string> = {}, n = 0) {
  const all = { namespace: NS, pod: pod(component, n), job: component, ...labels };
  const text = Object.entries(all).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return `${metric}{${text.join(",")}}`;
}

const COMPONENTS = ["auth", "practices", "vacancies", "identity", "webhooks", "dispatcher"];
/** Every component's pod up, except those named. */
const everyUp = (...except: string[]) =>
  COMPONENTS.filter((c) => !except.includes(c)).map((c): [string, string] => [on(c, "up"), "1x40"]);
const down = (component: string) => ({ component, namespace: NS, severity: "critical" });

const incremental = { change_detection_kind: "incremental", outcome: "ok" };
const passes = (c: string, values: string, n = 0): [string, string] => [
  on(c, "change_detection_pass_duration_count", incremental, n),
  values,
];
const leading = (n: number, values: string): [string, string] => [
  on("dispatcher", "leader_election_master_status", { name: "webhooks-dispatcher" }, n),
  values,
];
const bucket = (le: string, values: string): [string, string] => [
  on("practices", "change_detection_pass_duration_bucket", {
    change_detection_kind: "incremental",
    outcome: "ok",
    le,
  }),
  values,
];

/** Scenarios of a counter whose every increase is news (dead deliveries, disabled subscriptions). */
function newsCounter(alert: string, metric: string): Scenario[] {
  const series = (values: string): Array<[string, string]> => [[on("dispatcher", metric), values]];
  const fires = [{ namespace: NS, severity: "info" }];
  return [
    { title: "an old count that stays", alert, series: series("2x90"), at: "80m", fires: [] },
    { title: "a count that grows", alert, series: series("2x30 3x60"), at: "40m", fires },
    { title: "a pod's first one", alert, series: series("_x30 1x60"), at: "40m", fires },
    {
      title: "a first one over an hour ago",
      alert,
      series: series("_x5 1x90"),
      at: "80m",
      fires: [],
    },
  ];
}

export const scenarios: Scenario[] = [
  {
    title: "every component up",
    alert: "IntegrationServiceComponentDown",
    series: everyUp(),
    at: "20m",
    fires: [],
  },
  {
    title: "auth's pods up but failing their scrape",
    alert: "IntegrationServiceComponentDown",
    series: [...everyUp("auth"), [on("auth", "up"), "0x40"]],
    at: "20m",
    fires: [down("auth")],
  },
  {
    title: "auth's pods gone, another release's auth up",
    alert: "IntegrationServiceComponentDown",
    series: [
      ...everyUp("auth"),
      [on("auth", "up"), "1x5"],
      [on("auth", "up", { pod: pod("auth", 0, "other") }), "1x40"],
    ],
    at: "20m",
    fires: [down("auth")],
  },
  {
    title: "few 5xx",
    alert: "IntegrationServiceServerErrors",
    series: [
      [
        on("auth", "http_server_request_duration_count", { http_response_status_code: "200" }),
        "0+100x40",
      ],
      [
        on("auth", "http_server_request_duration_count", { http_response_status_code: "500" }),
        "0+1x40",
      ],
    ],
    at: "30m",
    fires: [],
  },
  {
    title: "half 5xx",
    alert: "IntegrationServiceServerErrors",
    series: [
      [
        on("auth", "http_server_request_duration_count", { http_response_status_code: "200" }),
        "0+10x40",
      ],
      [
        on("auth", "http_server_request_duration_count", { http_response_status_code: "503" }),
        "0+10x40",
      ],
    ],
    at: "30m",
    fires: [{ namespace: NS, job: "auth", severity: "critical" }],
  },
  {
    title: "no legacy failures lately",
    alert: "IntegrationServiceLegacySourceUnavailable",
    series: [[on("practices", "legacy_source_unavailable_total"), "3x40"]],
    at: "30m",
    fires: [],
  },
  {
    title: "legacy reads failing",
    alert: "IntegrationServiceLegacySourceUnavailable",
    series: [[on("practices", "legacy_source_unavailable_total"), "0+5x40"]],
    at: "30m",
    fires: [{ namespace: NS, job: "practices", severity: "critical" }],
  },
  {
    title: "revocation list fresh",
    alert: "IntegrationServiceRevocationPropagationSlow",
    series: [[on("webhooks", "auth_revocation_list_staleness"), "2x40"]],
    at: "30m",
    fires: [],
  },
  {
    title: "revocation list stale",
    alert: "IntegrationServiceRevocationPropagationSlow",
    series: [[on("webhooks", "auth_revocation_list_staleness"), "120x40"]],
    at: "30m",
    fires: [{ namespace: NS, job: "webhooks", severity: "warning" }],
  },
  {
    title: "outbox drained",
    alert: "IntegrationServiceOutboxBacklog",
    series: [
      [on("practices", "outbox_oldest_pending_age", { outbox_schema: "practices" }), "5x40"],
    ],
    at: "30m",
    fires: [],
  },
  {
    title: "outbox stuck",
    alert: "IntegrationServiceOutboxBacklog",
    series: [
      [on("practices", "outbox_oldest_pending_age", { outbox_schema: "practices" }), "900x40"],
    ],
    at: "30m",
    fires: [{ namespace: NS, outbox_schema: "practices", severity: "warning" }],
  },
  {
    title: "both change detections pass, one across a leader failover",
    alert: "IntegrationServiceChangeDetectionNotRunning",
    series: [
      passes("practices", "0+12x10"),
      passes("practices", "_x12 0+12x40", 1),
      passes("vacancies", "0+12x60"),
    ],
    at: "40m",
    fires: [],
  },
  {
    title: "practices' leader passes nothing",
    alert: "IntegrationServiceChangeDetectionNotRunning",
    series: [passes("practices", "100x60"), passes("vacancies", "0+12x60")],
    at: "40m",
    fires: [{ namespace: NS, component: "practices", severity: "critical" }],
  },
  {
    title: "practices' leader gone, no other pod leads",
    alert: "IntegrationServiceChangeDetectionNotRunning",
    series: [passes("practices", "0+12x5"), passes("vacancies", "0+12x60")],
    at: "40m",
    fires: [{ namespace: NS, component: "practices", severity: "critical", ...incremental }],
  },
  {
    title: "incremental passes fast",
    alert: "IntegrationServiceChangeDetectionLagging",
    series: [bucket("1", "0+12x60"), bucket("10", "0+12x60"), bucket("+Inf", "0+12x60")],
    at: "40m",
    fires: [],
  },
  {
    title: "incremental passes slow",
    alert: "IntegrationServiceChangeDetectionLagging",
    series: [bucket("1", "0x60"), bucket("10", "0+12x60"), bucket("+Inf", "0+12x60")],
    at: "40m",
    fires: [{ namespace: NS, job: "practices", severity: "warning" }],
  },
  ...(["INTEGRATION_EVENTS", "INTEGRATION_WEBHOOK_DELIVERIES"] as const).flatMap((stream) => {
    const alert =
      stream === "INTEGRATION_EVENTS"
        ? "IntegrationServiceEventsConsumerLag"
        : "IntegrationServiceDeliveriesConsumerLag";
    const pending = (values: string): Array<[string, string]> => [
      [
        on("dispatcher", "messaging_consumer_pending", { messaging_destination_name: stream }),
        values,
      ],
    ];
    return [
      { title: `${stream} keeping up`, alert, series: pending("12x40"), at: "30m", fires: [] },
      {
        title: `${stream} behind`,
        alert,
        series: pending("5000x40"),
        at: "30m",
        fires: [{ namespace: NS, messaging_destination_name: stream, severity: "warning" }],
      },
    ];
  }),
  {
    title: "deliveries mostly succeed",
    alert: "IntegrationServiceDeliveryFailureRatio",
    series: [
      [on("dispatcher", "webhook_delivery_attempts_total", { outcome: "succeeded" }), "0+100x40"],
      [on("dispatcher", "webhook_delivery_attempts_total", { outcome: "retrying" }), "0+5x40"],
    ],
    at: "35m",
    fires: [],
  },
  {
    title: "deliveries mostly fail",
    alert: "IntegrationServiceDeliveryFailureRatio",
    series: [
      [on("dispatcher", "webhook_delivery_attempts_total", { outcome: "succeeded" }), "0+5x40"],
      [on("dispatcher", "webhook_delivery_attempts_total", { outcome: "retrying" }), "0+100x40"],
    ],
    at: "35m",
    fires: [{ namespace: NS, severity: "warning" }],
  },
  ...newsCounter(
    "IntegrationServiceWebhookSubscriptionAutoDisabled",
    "webhooks_subscriptions_auto_disabled_total",
  ),
  ...newsCounter("IntegrationServiceDeadDeliveries", "webhook_delivery_dead_total"),
  {
    title: "no reconcile errors lately",
    alert: "IntegrationServiceOperatorReconcileErrors",
    series: [
      [
        on("dispatcher", "controller_runtime_reconcile_errors_total", {
          controller: "webhooksubscription",
        }),
        "4x40",
      ],
    ],
    at: "35m",
    fires: [],
  },
  {
    title: "reconciles keep failing",
    alert: "IntegrationServiceOperatorReconcileErrors",
    series: [
      [
        on("dispatcher", "controller_runtime_reconcile_errors_total", {
          controller: "webhooksubscription",
        }),
        "0+1x40",
      ],
    ],
    at: "35m",
    fires: [{ namespace: NS, severity: "warning" }],
  },
  {
    title: "one dispatcher leads",
    alert: "IntegrationServiceOperatorNotLeading",
    series: [leading(0, "1x40"), leading(1, "0x40")],
    at: "20m",
    fires: [],
  },
  {
    title: "no dispatcher leads",
    alert: "IntegrationServiceOperatorNotLeading",
    series: [leading(0, "0x40"), leading(1, "0x40")],
    at: "20m",
    fires: [{ namespace: NS, name: "webhooks-dispatcher", severity: "warning" }],
  },
  {
    title: "every dispatcher pod gone",
    alert: "IntegrationServiceOperatorNotLeading",
    series: [leading(0, "1x5"), leading(1, "0x5")],
    at: "20m",
    fires: [{ namespace: NS, name: "webhooks-dispatcher", severity: "warning" }],
  },
];
