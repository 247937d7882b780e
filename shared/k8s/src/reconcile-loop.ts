import type { KubeConfig, KubernetesObject } from "@kubernetes/client-node";
import { describeError } from "./api-errors.ts";
import { NO_METRICS } from "./controller-metrics.ts";
import type { ControllerMetrics } from "./controller-metrics.ts";
import { ListWatch, objectKey } from "./list-watch.ts";
import type { ResourceKind } from "./list-watch.ts";
import type { Logger } from "@svc/logging";
import { WorkQueue } from "./work-queue.ts";

export type ReconcileRequest = { key: string; namespace: string; name: string };

/**
 * Brings one object to its desired state. Level-based: it reads the object itself (the event
 * that queued the key only says "look again"), must be idempotent, and throws to be retried.
 */
export type Reconcile = (request: ReconcileRequest, signal: AbortSignal) => Promise<void>;

/**
 * Another kind whose changes mean "look at these keys again" (controller-runtime's Owns/Watches):
 * e.g. the Secrets a resource owns, so a deleted one is put back at once, not at the next resync.
 */
export type SecondaryWatch = {
  resource: ResourceKind;
  labelSelector?: string;
  /** The primary keys ("namespace/name") to reconcile for a changed object; may be none. */
  keysFor: (object: KubernetesObject) => string[];
};

export type ReconcileLoopOptions = {
  name: string;
  kubeConfig: KubeConfig;
  resource: ResourceKind;
  /** Only the primary objects this label selector matches; default all. */
  labelSelector?: string;
  logger: Logger;
  reconcile: Reconcile;
  /** Keys reconciled at once (a key never runs twice at once); default 2. */
  workers?: number;
  /** Every key is queued again this often, catching drift nothing announces; default 5 min. */
  resyncMs?: number;
  retryMinMs?: number;
  retryMaxMs?: number;
  watchBackoffMinMs?: number;
  watchBackoffMaxMs?: number;
  watchTimeoutSeconds?: number;
  watches?: readonly SecondaryWatch[];
  /** controller-runtime's metrics for this loop (./controller-metrics.ts); none by default. */
  metrics?: ControllerMetrics;
};

/**
 * A minimal controller: list-watch feeds a de-duplicating work queue, workers reconcile keys,
 * failures retry per key with backoff, and a periodic resync queues everything again. Run it
 * inside a LeaderElector's task so only one replica reconciles.
 */
export class ReconcileLoop {
  readonly #o: ReconcileLoopOptions & { workers: number; resyncMs: number };
  readonly #queue: WorkQueue;
  readonly #source: ListWatch;
  readonly #secondary: ListWatch[];
  readonly #metrics: ControllerMetrics;
  #active = 0;

  constructor(options: ReconcileLoopOptions) {
    this.#o = { workers: 2, resyncMs: 300_000, ...options };
    const metrics = options.metrics ?? NO_METRICS;
    this.#metrics = metrics;
    this.#queue = new WorkQueue({
      retryMinMs: options.retryMinMs ?? 500,
      retryMaxMs: options.retryMaxMs ?? 60_000,
      onAdd: () => metrics.queueAdded(options.name),
      onRetry: () => metrics.queueRetried(options.name),
    });
    const watchOptions = {
      kubeConfig: options.kubeConfig,
      logger: options.logger,
      ...(options.watchBackoffMinMs !== undefined && { backoffMinMs: options.watchBackoffMinMs }),
      ...(options.watchBackoffMaxMs !== undefined && { backoffMaxMs: options.watchBackoffMaxMs }),
      ...(options.watchTimeoutSeconds !== undefined && {
        watchTimeoutSeconds: options.watchTimeoutSeconds,
      }),
    };
    this.#source = new ListWatch({
      ...watchOptions,
      resource: options.resource,
      ...(options.labelSelector !== undefined && { labelSelector: options.labelSelector }),
      onObject: (_type, object) => this.#queue.add(objectKey(object)),
    });
    this.#secondary = (options.watches ?? []).map(
      (w) =>
        new ListWatch({
          ...watchOptions,
          resource: w.resource,
          ...(w.labelSelector !== undefined && { labelSelector: w.labelSelector }),
          onObject: (_type, object) => {
            for (const key of w.keysFor(object)) this.#queue.add(key);
          },
        }),
    );
    metrics.observe(options.name, () => ({
      depth: this.#queue.length,
      active: this.#active,
      workers: this.#o.workers,
    }));
  }

  /** Queues a key from outside (another watch, a webhook); "namespace/name". */
  enqueue(key: string): void {
    this.#queue.add(key);
  }

  /** Runs until `signal` aborts; in-flight reconciles see the same signal and are awaited. */
  async run(signal: AbortSignal): Promise<void> {
    const resync = setInterval(() => {
      for (const key of this.#source.keys()) this.#queue.add(key);
    }, this.#o.resyncMs);
    const close = () => this.#queue.close();
    signal.addEventListener("abort", close, { once: true });
    if (signal.aborted) close();
    this.#o.logger.info(
      {
        controller: this.#o.name,
        resource: this.#o.resource.plural,
        namespace: this.#o.resource.namespace,
      },
      "controller started",
    );
    try {
      const workers = Array.from({ length: this.#o.workers }, () => this.#work(signal));
      const sources = [this.#source, ...this.#secondary].map((s) => s.run(signal));
      await Promise.all([...sources, ...workers]);
    } finally {
      clearInterval(resync);
      signal.removeEventListener("abort", close);
      this.#o.logger.info({ controller: this.#o.name }, "controller stopped");
    }
  }

  async #work(signal: AbortSignal): Promise<void> {
    for (;;) {
      const key = await this.#queue.get();
      if (key === undefined) return;
      const slash = key.indexOf("/");
      const request = { key, namespace: key.slice(0, slash), name: key.slice(slash + 1) };
      const started = performance.now();
      this.#active += 1;
      try {
        await this.#o.reconcile(request, signal);
        this.#queue.forget(key);
        this.#record("success", started);
      } catch (err) {
        if (!signal.aborted) {
          this.#record("error", started);
          const retryInMs = this.#queue.retry(key);
          this.#o.logger.warn(
            { controller: this.#o.name, key, err: describeError(err), retryInMs },
            "reconcile failed; will retry",
          );
        }
      } finally {
        this.#active -= 1;
        this.#queue.done(key);
      }
    }
  }

  #record(result: "success" | "error", started: number): void {
    this.#metrics.reconciled(this.#o.name, result, (performance.now() - started) / 1000);
  }
}
