import { CoreV1Api, CustomObjectsApi, Watch } from "@kubernetes/client-node";
import type { ConfigurationOptions, KubeConfig, KubernetesObject } from "@kubernetes/client-node";
import { describeError, isGone } from "./api-errors.ts";
import type { Logger } from "@svc/logging";
import { withTimeout } from "./request-options.ts";
import { backoffMs, sleep } from "@svc/time";

/**
 * A namespaced resource kind: group/version/plural as in its CRD, or group "" for the core
 * resources ListWatch can list (secrets, configmaps).
 */
export type ResourceKind = { group: string; version: string; plural: string; namespace: string };

type ListResult = { metadata?: { resourceVersion?: string }; items?: KubernetesObject[] };
type Lister = (
  labelSelector: string | undefined,
  opts: ConfigurationOptions,
) => Promise<ListResult>;

/** The list call for a kind: CustomObjectsApi for custom resources, the typed API for core ones. */
function listerFor(kubeConfig: KubeConfig, kind: ResourceKind): Lister {
  const { group, version, namespace, plural } = kind;
  if (group !== "") {
    const api = kubeConfig.makeApiClient(CustomObjectsApi);
    return async (labelSelector, opts) =>
      (await api.listNamespacedCustomObject(
        { group, version, namespace, plural, ...(labelSelector && { labelSelector }) },
        opts,
      )) as ListResult;
  }
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const args = (labelSelector: string | undefined) => ({
    namespace,
    ...(labelSelector && { labelSelector }),
  });
  if (plural === "secrets")
    return (labelSelector, opts) => core.listNamespacedSecret(args(labelSelector), opts);
  if (plural === "configmaps")
    return (labelSelector, opts) => core.listNamespacedConfigMap(args(labelSelector), opts);
  throw new Error(`ListWatch cannot list core resource ${plural}`);
}

function pathOf({ group, version, namespace, plural }: ResourceKind): string {
  const base = group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
  return `${base}/namespaces/${namespace}/${plural}`;
}

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED";

export type ListWatchOptions = {
  kubeConfig: KubeConfig;
  resource: ResourceKind;
  logger: Logger;
  /** Called for each object of every (re)list, and for each watch event. */
  onObject: (type: WatchEventType, object: KubernetesObject) => void;
  backoffMinMs?: number;
  backoffMaxMs?: number;
  /** Asks the server to end each watch after this long (it is then resumed); default 300 s. */
  watchTimeoutSeconds?: number;
  /** Only objects with these labels (`key=value,...`), on the list and the watch alike. */
  labelSelector?: string;
};

const LIST_TIMEOUT_MS = 60_000;

type WatchOutcome = { resourceVersion: string; gone: boolean; error?: unknown; events: number };

export function objectKey(object: KubernetesObject): string {
  return `${object.metadata?.namespace ?? ""}/${object.metadata?.name ?? ""}`;
}

/**
 * List, then watch from the list's resourceVersion; a watch that ends (server timeout, dropped
 * connection, error) resumes from the last resourceVersion seen, after a backoff when it failed.
 * 410 Gone (the version was compacted away; sent as an ERROR event or as the response status)
 * means events were missed: list again. Objects that vanished between two lists are reported
 * as DELETED. The client library's own informer stops for good on a watch error, hence this loop.
 */
export class ListWatch {
  readonly #o: Required<Omit<ListWatchOptions, "labelSelector">> & { labelSelector?: string };
  readonly #list: Lister;
  /** Metadata only: a watched Secret's data is never kept. */
  readonly #known = new Map<string, KubernetesObject>();

  constructor(options: ListWatchOptions) {
    this.#o = { backoffMinMs: 250, backoffMaxMs: 30_000, watchTimeoutSeconds: 300, ...options };
    this.#list = listerFor(options.kubeConfig, options.resource);
  }

  /** Keys of every object currently known (for periodic resync). */
  keys(): string[] {
    return [...this.#known.keys()];
  }

  async run(signal: AbortSignal): Promise<void> {
    let resourceVersion: string | undefined;
    let failures = 0;
    while (!signal.aborted) {
      if (resourceVersion === undefined) {
        resourceVersion = await this.#relist(signal);
        if (resourceVersion === undefined) {
          await sleep(backoffMs(++failures, this.#o.backoffMinMs, this.#o.backoffMaxMs), signal);
          continue;
        }
      }
      const started = Date.now();
      const outcome = await this.#watchOnce(resourceVersion, signal);
      if (signal.aborted) return;
      resourceVersion = outcome.gone ? undefined : outcome.resourceVersion;
      if (outcome.gone)
        this.#o.logger.info(
          { resource: this.#o.resource.plural },
          "watch resourceVersion expired (410 Gone); relisting",
        );
      // A failed watch, or one the server ends at once with nothing to say, backs off.
      const failed =
        outcome.error !== undefined || (outcome.events === 0 && Date.now() - started < 1_000);
      if (failed && !outcome.gone) {
        failures += 1;
        const delay = backoffMs(failures, this.#o.backoffMinMs, this.#o.backoffMaxMs);
        if (outcome.error !== undefined)
          this.#o.logger.warn(
            {
              resource: this.#o.resource.plural,
              err: describeError(outcome.error),
              retryInMs: delay,
            },
            "watch failed; resuming",
          );
        await sleep(delay, signal);
      } else {
        failures = 0;
      }
    }
  }

  async #relist(signal: AbortSignal): Promise<string | undefined> {
    const { plural } = this.#o.resource;
    try {
      const list = await this.#list(this.#o.labelSelector, withTimeout(LIST_TIMEOUT_MS, signal));
      const seen = new Set<string>();
      for (const item of list.items ?? []) {
        seen.add(objectKey(item));
        this.#apply("ADDED", item);
      }
      for (const [key, gone] of [...this.#known]) if (!seen.has(key)) this.#apply("DELETED", gone);
      return list.metadata?.resourceVersion ?? "";
    } catch (err) {
      if (!signal.aborted)
        this.#o.logger.warn({ resource: plural, err: describeError(err) }, "list failed; retrying");
      return undefined;
    }
  }

  #apply(type: WatchEventType, object: KubernetesObject): void {
    const key = objectKey(object);
    if (type === "DELETED") this.#known.delete(key);
    else
      this.#known.set(key, {
        apiVersion: object.apiVersion,
        kind: object.kind,
        metadata: object.metadata,
      } as KubernetesObject);
    this.#o.onObject(type, object);
  }

  #watchOnce(resourceVersion: string, signal: AbortSignal): Promise<WatchOutcome> {
    const path = pathOf(this.#o.resource);
    const outcome: WatchOutcome = { resourceVersion, gone: false, events: 0 };
    return new Promise((resolve) => {
      let controller: AbortController | undefined;
      let ended = false;
      const end = () => {
        ended = true;
        controller?.abort();
      };
      signal.addEventListener("abort", end, { once: true });
      const onEvent = (type: string, object: WatchObject) => {
        if (!ended && this.#onWatchEvent(outcome, type, object) === "stop") end();
      };
      const done = (err: unknown) => {
        signal.removeEventListener("abort", end);
        if (isGone(err)) outcome.gone = true;
        // The library's inactivity timeout (30 s without a byte) is a quiet watch, not a failure.
        else if (err && !ended && !isTimeout(err)) outcome.error ??= err;
        resolve(outcome);
      };
      const query = {
        resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: this.#o.watchTimeoutSeconds,
        ...(this.#o.labelSelector && { labelSelector: this.#o.labelSelector }),
      };
      new Watch(this.#o.kubeConfig).watch(path, query, onEvent, done).then((c) => {
        controller = c;
        if (ended) c.abort();
      }, done);
    });
  }

  /**
   * Applies one watch event; "stop" ends the watch (an ERROR event: the server is done with it).
   */
  #onWatchEvent(outcome: WatchOutcome, type: string, object: WatchObject): "go" | "stop" {
    outcome.events += 1;
    if (type === "ERROR") {
      if (object?.code === 410) outcome.gone = true;
      else
        outcome.error = Object.assign(
          new Error(`watch ERROR event: ${object?.reason ?? "unknown"}`),
          { statusCode: object?.code },
        );
      return "stop";
    }
    outcome.resourceVersion = object?.metadata?.resourceVersion ?? outcome.resourceVersion;
    if (type === "ADDED" || type === "MODIFIED" || type === "DELETED") this.#apply(type, object);
    return "go"; // BOOKMARK only moves the resourceVersion on
  }
}

/** A watch event's object: the resource, or a Status for ERROR events. */
type WatchObject = KubernetesObject & { code?: number; reason?: string };

function isTimeout(err: unknown): boolean {
  return err instanceof Error && err.name === "TimeoutError";
}
