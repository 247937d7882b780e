import type { Meter } from "@opentelemetry/api";

/** How one reconcile ended, as controller-runtime labels `controller_runtime_reconcile_total`. */
export type ReconcileResult = "success" | "error";

/**
 * What a ReconcileLoop and its WorkQueue report. Every method is a no-op in `NO_METRICS`, so the
 * machinery runs the same with or without a meter.
 */
export interface ControllerMetrics {
  reconciled(controller: string, result: ReconcileResult, seconds: number): void;
  queueAdded(queue: string): void;
  queueRetried(queue: string): void;
  /** Reports a queue's depth and the loop's worker counts at each collection. */
  observe(
    controller: string,
    state: () => { depth: number; active: number; workers: number },
  ): void;
  /** Whether this process holds the election named `name` (1) or not (0). */
  leading(name: string, isLeader: boolean): void;
}

export const NO_METRICS: ControllerMetrics = {
  reconciled: () => {},
  queueAdded: () => {},
  queueRetried: () => {},
  observe: () => {},
  leading: () => {},
};

// controller-runtime's reconcile time buckets (pkg/internal/controller/metrics).
const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1,
  1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

/**
 * The metrics of a controller under the names controller-runtime gives them (and client-go's
 * workqueue and leader-election metrics), so dashboards and alerts written for Go operators apply:
 * `controller_runtime_reconcile_total{controller,result}`, `controller_runtime_reconcile_errors_total`,
 * `controller_runtime_reconcile_time_seconds`, `controller_runtime_active_workers`,
 * `controller_runtime_max_concurrent_reconciles`, `workqueue_depth{name}`, `workqueue_adds_total`,
 * `workqueue_retries_total`, `leader_election_master_status{name}`.
 */
export function controllerMetrics(meter: Meter): ControllerMetrics {
  const total = meter.createCounter("controller_runtime_reconcile_total", {
    description: "Total number of reconciliations per controller",
  });
  const errors = meter.createCounter("controller_runtime_reconcile_errors_total", {
    description: "Total number of reconciliation errors per controller",
  });
  const time = meter.createHistogram("controller_runtime_reconcile_time_seconds", {
    unit: "s",
    description: "Length of time per reconciliation per controller",
    advice: { explicitBucketBoundaries: RECONCILE_BUCKETS },
  });
  const adds = meter.createCounter("workqueue_adds_total", {
    description: "Total number of adds handled by workqueue",
  });
  const retries = meter.createCounter("workqueue_retries_total", {
    description: "Total number of retries handled by workqueue",
  });
  const depth = meter.createObservableGauge("workqueue_depth", {
    description: "Current depth of workqueue",
  });
  const active = meter.createObservableGauge("controller_runtime_active_workers", {
    description: "Number of currently used workers per controller",
  });
  const maxWorkers = meter.createObservableGauge("controller_runtime_max_concurrent_reconciles", {
    description: "Maximum number of concurrent reconciles per controller",
  });
  const master = meter.createObservableGauge("leader_election_master_status", {
    description:
      "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master",
  });
  const loops = new Map<string, () => { depth: number; active: number; workers: number }>();
  const elections = new Map<string, number>();
  meter.addBatchObservableCallback(
    (result) => {
      for (const [controller, state] of loops) {
        const s = state();
        result.observe(depth, s.depth, { name: controller, controller });
        result.observe(active, s.active, { controller });
        result.observe(maxWorkers, s.workers, { controller });
      }
      for (const [name, value] of elections) result.observe(master, value, { name });
    },
    [depth, active, maxWorkers, master],
  );
  return {
    reconciled(controller, result, seconds) {
      total.add(1, { controller, result });
      if (result === "error") errors.add(1, { controller });
      time.record(seconds, { controller });
    },
    queueAdded: (queue) => adds.add(1, { name: queue, controller: queue }),
    queueRetried: (queue) => retries.add(1, { name: queue, controller: queue }),
    observe(controller, state) {
      loops.set(controller, state);
      // Zero series from the start, so rate() and absent() work before the first reconcile.
      for (const result of ["success", "error"]) total.add(0, { controller, result });
      errors.add(0, { controller });
    },
    leading: (name, isLeader) => void elections.set(name, isLeader ? 1 : 0),
  };
}
