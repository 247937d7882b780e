import { createWebhookSubscriptionController } from "../../src/workers/operator/controller.ts";
import type {
  Condition,
  WebhookSubscription,
  WebhookSubscriptionSpec,
} from "../../src/workers/operator/types.ts";
import { FakeKubeApi, recordingLogger, waitFor } from "@svc/testing/kube";
import type { Obj, ResourceConfig } from "@svc/testing/kube";
import type { ControllerMetrics } from "@svc/k8s";
import { FakePort } from "./fake-port.ts";

export const NS = "integration";
export const WHS = "integration.svc.io/v1alpha1/webhooksubscriptions";
export const SECRETS = "v1/secrets";
export const EVENTS = "v1/events";

/** The custom resource as the fake API server serves it: status subresource, generation. */
export const WEBHOOK_SUBSCRIPTIONS: ResourceConfig = {
  id: WHS,
  apiVersion: "integration.svc.io/v1alpha1",
  kind: "WebhookSubscription",
  statusSubresource: true,
  generation: true,
};

export const exampleSpec: WebhookSubscriptionSpec = {
  clientId: "ats-connector",
  url: "https://hooks.example.com/integration/vacancies",
  eventTypes: ["vacancy.created", "vacancy.updated", "vacancy.deleted"],
  enabled: true,
  secretName: "ats-vacancy-feed-signing",
};

/**
 * The fake API server (no kube-apiserver can run on these machines), the fake webhooks service
 * and the real controller, wired together.
 */
export class Harness {
  readonly port = new FakePort();
  readonly logger = recordingLogger();
  readonly #stop = new AbortController();
  readonly api: FakeKubeApi;
  /** Where the signing Secrets are: NS, or the dedicated namespace the test chose. */
  readonly secretNamespace: string;
  #running: Promise<void> | undefined;

  private constructor(api: FakeKubeApi, secretNamespace: string) {
    this.api = api;
    this.secretNamespace = secretNamespace;
  }

  static async start(
    options: { resyncMs?: number; secretNamespace?: string; metrics?: ControllerMetrics } = {},
  ): Promise<Harness> {
    const h = new Harness(
      await FakeKubeApi.start({ resources: [WEBHOOK_SUBSCRIPTIONS] }),
      options.secretNamespace ?? NS,
    );
    const controller = createWebhookSubscriptionController({
      kubeConfig: h.api.kubeConfig(),
      namespace: NS,
      port: h.port,
      logger: h.logger,
      instance: "dispatcher-0",
      requestTimeoutMs: 2_000,
      ...(options.secretNamespace !== undefined && { secretNamespace: options.secretNamespace }),
      ...(options.metrics && { metrics: options.metrics }),
      loop: {
        retryMinMs: 20,
        retryMaxMs: 200,
        watchBackoffMinMs: 20,
        watchBackoffMaxMs: 100,
        resyncMs: options.resyncMs ?? 60_000,
      },
    });
    h.#running = controller.run(h.#stop.signal);
    return h;
  }

  async close(): Promise<void> {
    this.#stop.abort();
    await this.#running;
    await this.api.close();
  }

  create(name: string, spec: Partial<WebhookSubscriptionSpec> = {}): Obj {
    return this.api.store.create(WHS, NS, {
      apiVersion: "integration.svc.io/v1alpha1",
      kind: "WebhookSubscription",
      metadata: { name },
      spec: { ...exampleSpec, ...spec },
    });
  }

  updateSpec(name: string, spec: Partial<WebhookSubscriptionSpec>): Obj {
    const current = this.api.store.get(WHS, NS, name);
    return this.api.store.update(WHS, NS, name, { ...current, spec: { ...current.spec, ...spec } });
  }

  cr(name: string): WebhookSubscription | undefined {
    return this.api.store.find(WHS, NS, name) as unknown as WebhookSubscription | undefined;
  }

  ready(name: string): Condition | undefined {
    return this.cr(name)?.status?.conditions?.find((c) => c.type === "Ready");
  }

  /** Waits until Ready has the given status and reason for the object's current generation. */
  async waitReady(
    name: string,
    status: "True" | "False",
    reason: string,
  ): Promise<WebhookSubscription> {
    return waitFor(`${name} Ready=${status} ${reason}`, () => {
      const cr = this.cr(name);
      const c = this.ready(name);
      return (
        c?.status === status &&
        c.reason === reason &&
        cr?.status?.observedGeneration === cr?.metadata.generation &&
        cr
      );
    });
  }

  secret(name: string): Obj | undefined {
    return this.api.store.find(SECRETS, this.secretNamespace, name);
  }

  secretValue(name: string): string | undefined {
    const data = this.secret(name)?.data as Record<string, string> | undefined;
    return data?.secret === undefined
      ? undefined
      : Buffer.from(data.secret, "base64").toString("utf8");
  }

  events(name: string): Array<{ type: string; reason: string; message: string }> {
    return this.api.store
      .list(EVENTS, NS)
      .filter((e) => (e.involvedObject as { name?: string }).name === name)
      .map((e) => ({
        type: e.type as string,
        reason: e.reason as string,
        message: e.message as string,
      }));
  }
}
