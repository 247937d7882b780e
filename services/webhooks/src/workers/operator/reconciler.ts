import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import type { ConfigurationOptions, KubeConfig } from "@kubernetes/client-node";
import { EventRecorder, isNotFound, withTimeout } from "@svc/k8s";
import type { ReconcileRequest } from "@svc/k8s";
import type { Logger } from "@svc/logging";
import { InvalidSubscriptionError } from "./port.ts";
import type { SubscriptionPort } from "./port.ts";
import { deleteOwnedSecret } from "./signing-secret.ts";
import type { SecretPlace } from "./signing-secret.ts";
import { eventFor, nextStatus, sameStatus } from "./status.ts";
import { desiredOf, refOf, syncSubscription } from "./sync-subscription.ts";
import type { SyncOutcome } from "./sync-subscription.ts";
import { SUBSCRIPTION_FINALIZER, WEBHOOK_SUBSCRIPTION } from "./types.ts";
import type { WebhookSubscription } from "./types.ts";

export type WebhookSubscriptionReconcilerOptions = {
  kubeConfig: KubeConfig;
  port: SubscriptionPort;
  logger: Logger;
  /** Reporting instance of the events written: the pod name. */
  instance: string;
  /** Reporting component of the events written; default "webhook-dispatcher". */
  component?: string;
  /** Bound on each API request; default 10 s. */
  requestTimeoutMs?: number;
  /** The dedicated namespace of the signing Secrets; default the resource's own. */
  secretNamespace?: string;
  /** Only resources this label selector matches are reconciled; default all. */
  labelSelector?: string;
  now?: () => Date;
};

const { group, version, plural } = WEBHOOK_SUBSCRIPTION;

/**
 * Reconciles one WebhookSubscription into the webhooks service (through the port), its signing
 * Secret, status and events. The finalizer goes on before anything is created outside the
 * cluster and comes off only after the subscription is removed.
 */
export class WebhookSubscriptionReconciler {
  readonly #o: Required<
    Omit<WebhookSubscriptionReconcilerOptions, "secretNamespace" | "labelSelector">
  >;
  readonly #labelSelector: string | undefined;
  readonly #place: SecretPlace;
  readonly #core: CoreV1Api;
  readonly #custom: CustomObjectsApi;
  readonly #events: EventRecorder;

  constructor(options: WebhookSubscriptionReconcilerOptions) {
    this.#o = {
      component: "webhook-dispatcher",
      requestTimeoutMs: 10_000,
      now: () => new Date(),
      ...options,
    };
    this.#place =
      options.secretNamespace === undefined ? {} : { secretNamespace: options.secretNamespace };
    this.#labelSelector = options.labelSelector;
    this.#core = options.kubeConfig.makeApiClient(CoreV1Api);
    this.#custom = options.kubeConfig.makeApiClient(CustomObjectsApi);
    this.#events = new EventRecorder(
      this.#core,
      this.#o.component,
      this.#o.instance,
      options.logger,
    );
  }

  /** The Reconcile function for a ReconcileLoop. */
  readonly reconcile = async (request: ReconcileRequest, signal: AbortSignal): Promise<void> => {
    const options = () => withTimeout(this.#o.requestTimeoutMs, signal);
    let cr = await this.#get(request, options());
    if (!cr) return;
    if (cr.metadata.deletionTimestamp) return this.#finalize(cr, options);
    if (!(cr.metadata.finalizers ?? []).includes(SUBSCRIPTION_FINALIZER)) {
      cr = await this.#setFinalizers(
        cr,
        [...(cr.metadata.finalizers ?? []), SUBSCRIPTION_FINALIZER],
        options(),
      );
    }
    const outcome = await syncSubscription(
      { core: this.#core, port: this.#o.port, place: this.#place, options },
      cr,
    );
    await this.#writeStatus(cr, outcome, options());
    const note = eventFor(cr, outcome);
    if (note) await this.#events.record(cr, note.type, note.reason, note.message);
    // Passes that change nothing (resyncs, echoes of our own writes) log at debug only.
    const line = {
      key: request.key,
      ready: outcome.ready,
      reason: outcome.reason,
      subscriptionId: outcome.subscriptionId,
    };
    if (note) this.#o.logger.info(line, "webhook subscription reconciled");
    else this.#o.logger.debug?.(line, "webhook subscription reconciled");
    if (outcome.retry !== undefined) throw outcome.retry;
  };

  async #get(
    request: ReconcileRequest,
    opts: ConfigurationOptions,
  ): Promise<WebhookSubscription | undefined> {
    const { namespace, name } = request;
    try {
      if (this.#labelSelector === undefined)
        return (await this.#custom.getNamespacedCustomObject(
          { group, version, plural, namespace, name },
          opts,
        )) as WebhookSubscription;
      // A key from the Secret watch or a resync may name another release's resource: the server
      // answers only if it is ours.
      const list = (await this.#custom.listNamespacedCustomObject(
        {
          group,
          version,
          plural,
          namespace,
          labelSelector: this.#labelSelector,
          fieldSelector: `metadata.name=${name}`,
        },
        opts,
      )) as { items: WebhookSubscription[] };
      return list.items[0];
    } catch (err) {
      if (isNotFound(err)) return undefined; // gone: the finalizer already saw it out
      throw err;
    }
  }

  async #setFinalizers(
    cr: WebhookSubscription,
    finalizers: string[],
    opts: ConfigurationOptions,
  ): Promise<WebhookSubscription> {
    const body = { ...cr, metadata: { ...cr.metadata, finalizers } };
    const { namespace = "", name = "" } = cr.metadata;
    return (await this.#custom.replaceNamespacedCustomObject(
      { group, version, plural, namespace, name, body },
      opts,
    )) as WebhookSubscription;
  }

  async #writeStatus(
    cr: WebhookSubscription,
    outcome: SyncOutcome,
    opts: ConfigurationOptions,
  ): Promise<void> {
    const status = nextStatus(cr, outcome, this.#o.now());
    if (sameStatus(cr.status, status)) return;
    const { namespace = "", name = "" } = cr.metadata;
    // The status subresource ignores everything but status; resourceVersion makes a stale write a 409.
    await this.#custom.replaceNamespacedCustomObjectStatus(
      { group, version, plural, namespace, name, body: { ...cr, status } },
      opts,
    );
  }

  async #finalize(cr: WebhookSubscription, options: () => ConfigurationOptions): Promise<void> {
    const finalizers = cr.metadata.finalizers ?? [];
    if (!finalizers.includes(SUBSCRIPTION_FINALIZER)) return;
    const subscriptionId = cr.status?.subscriptionId ?? (await this.#unrecordedSubscription(cr));
    if (subscriptionId !== undefined) {
      await this.#o.port.remove(subscriptionId);
      await this.#events.record(cr, "Normal", "Deleted", `removed subscription ${subscriptionId}`);
    }
    await deleteOwnedSecret(this.#core, cr, this.#place, options);
    try {
      await this.#setFinalizers(
        cr,
        finalizers.filter((f) => f !== SUBSCRIPTION_FINALIZER),
        options(),
      );
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    this.#o.logger.info(
      { key: `${cr.metadata.namespace}/${cr.metadata.name}`, subscriptionId },
      "webhook subscription removed",
    );
  }

  /**
   * A subscription created just before a crash may be missing from status. The port is keyed by
   * the resource (uid), so asking it (paused, so nothing is delivered meanwhile) finds it, or
   * creates one that is removed at once; a spec it refuses never created anything.
   */
  async #unrecordedSubscription(cr: WebhookSubscription): Promise<string | undefined> {
    try {
      const found = await this.#o.port.ensure(
        refOf(cr),
        cr.spec.clientId,
        { ...desiredOf(cr), enabled: false },
        { needSecret: false },
      );
      return found.subscriptionId;
    } catch (err) {
      if (err instanceof InvalidSubscriptionError) return undefined;
      throw err;
    }
  }
}
