import { randomBytes } from "node:crypto";
import type { CoreV1Api, CoreV1Event } from "@kubernetes/client-node";
import { describeError } from "./api-errors.ts";
import type { Logger } from "@svc/logging";
import { withTimeout } from "./request-options.ts";

export type EventType = "Normal" | "Warning";

type Regarding = {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; namespace?: string; uid?: string; resourceVersion?: string };
};

/**
 * Kubernetes Events (core/v1, what `kubectl describe` shows) about the resources reconciled.
 * Best effort: an event that cannot be written is logged and never fails a reconcile.
 */
export class EventRecorder {
  readonly #core: CoreV1Api;
  readonly #component: string;
  readonly #instance: string;
  readonly #logger: Logger;

  constructor(core: CoreV1Api, component: string, instance: string, logger: Logger) {
    this.#core = core;
    this.#component = component;
    this.#instance = instance;
    this.#logger = logger;
  }

  async record(
    regarding: Regarding,
    type: EventType,
    reason: string,
    message: string,
  ): Promise<void> {
    const namespace = regarding.metadata.namespace ?? "default";
    const now = new Date();
    const body: CoreV1Event = {
      metadata: {
        name: `${regarding.metadata.name ?? "object"}.${randomBytes(8).toString("hex")}`,
        namespace,
      },
      involvedObject: {
        apiVersion: regarding.apiVersion,
        kind: regarding.kind,
        name: regarding.metadata.name ?? "",
        namespace,
        uid: regarding.metadata.uid ?? "",
        resourceVersion: regarding.metadata.resourceVersion ?? "",
      },
      type,
      reason,
      message: message.slice(0, 1024),
      source: { component: this.#component },
      reportingComponent: this.#component,
      reportingInstance: this.#instance,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    };
    try {
      await this.#core.createNamespacedEvent({ namespace, body }, withTimeout(5_000));
    } catch (err) {
      this.#logger.warn(
        { reason, object: regarding.metadata.name, err: describeError(err) },
        "could not record Kubernetes event",
      );
    }
  }
}
