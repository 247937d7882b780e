import { randomUUID } from "node:crypto";
import { DomainError, NotFoundError, ValidationError } from "@svc/errors";
import { buildEvent, eventTypesFor } from "@svc/events";
import type { Logger } from "@svc/logging";
import { BlockedUrlError, type UrlGuard } from "../outbound/url-guard.ts";
import { traceContextOf } from "./trace-context.ts";
import type {
  Clock,
  Delivery,
  DeliveryDetail,
  DeliveryMessage,
  DeliveryStatus,
  Page,
  PageRequest,
  Subscription,
} from "./model.ts";
import type {
  DeliveryQueue,
  DeliveryStore,
  SecretBox,
  SubscriptionPatch,
  SubscriptionStore,
} from "./ports.ts";
import { generateSecret } from "./signing.ts";

export type SubscriptionServiceDeps = {
  subscriptions: SubscriptionStore;
  deliveries: DeliveryStore;
  queue: DeliveryQueue;
  guard: UrlGuard;
  secretBox: SecretBox;
  clock: Clock;
  logger: Logger;
  environment: "production" | "sandbox";
  publicBaseUrl: string;
  rotationOverlapMs: number;
};

export type SubscriptionInput = { url: string; eventTypes: string[] };
/** What only the Kubernetes reconciler sets on creation (src/workers/operator). */
export type CreateOptions = { enabled?: boolean; k8sUid?: string };
export type WithSecret = { subscription: Subscription; secret: string };

/**
 * Webhook subscriptions and their deliveries, for one owner (an API client id) at a time: the
 * API calls it with the token's client, and the Kubernetes reconciler (src/operator) with the
 * client id a resource names. Another owner's subscription is NOT_FOUND.
 */
export class SubscriptionService {
  readonly #d: SubscriptionServiceDeps;
  constructor(deps: SubscriptionServiceDeps) {
    this.#d = deps;
  }

  async create(
    owner: string,
    input: SubscriptionInput,
    options: CreateOptions = {},
  ): Promise<WithSecret> {
    const url = await this.#checkedUrl(input.url);
    const eventTypes = this.#checkedEventTypes(input.eventTypes);
    const id = randomUUID();
    const secret = generateSecret();
    const subscription = await this.#d.subscriptions.insert({
      id,
      ownerClientId: owner,
      url,
      eventTypes,
      secretSealed: this.#d.secretBox.seal(secret, id),
      now: this.#d.clock.now(),
      enabled: options.enabled,
      k8sUid: options.k8sUid,
    });
    return { subscription, secret };
  }

  list(owner: string, page: PageRequest): Promise<Page<Subscription>> {
    return this.#d.subscriptions.list(owner, page);
  }

  get(owner: string, id: string): Promise<Subscription> {
    return this.#owned(owner, id);
  }

  async update(owner: string, id: string, patch: SubscriptionPatch): Promise<Subscription> {
    await this.#owned(owner, id);
    const checked: SubscriptionPatch = {
      ...(patch.url !== undefined && { url: await this.#checkedUrl(patch.url) }),
      ...(patch.eventTypes !== undefined && {
        eventTypes: this.#checkedEventTypes(patch.eventTypes),
      }),
      ...(patch.enabled !== undefined && { enabled: patch.enabled }),
    };
    return orNotFound(await this.#d.subscriptions.update(owner, id, checked, this.#d.clock.now()));
  }

  /**
   * Deletes the subscription and its delivery records; a pending delivery then stops before its
   * next attempt.
   */
  async remove(owner: string, id: string): Promise<void> {
    if (!(await this.#d.subscriptions.delete(owner, id)))
      throw new NotFoundError("webhook subscription not found");
  }

  /** A new secret, shown once; the old one keeps signing (second signature) for the overlap. */
  async rotateSecret(owner: string, id: string): Promise<WithSecret> {
    await this.#owned(owner, id);
    const now = this.#d.clock.now();
    const secret = generateSecret();
    const subscription = await this.#d.subscriptions.rotateSecret(owner, id, {
      secretSealed: this.#d.secretBox.seal(secret, id),
      overlapUntil: new Date(now.getTime() + this.#d.rotationOverlapMs),
      now,
    });
    return { subscription: orNotFound(subscription), secret };
  }

  /** The test ping: a `system.ping` event to this subscription only, delivered like any other. */
  async sendTest(owner: string, id: string): Promise<Delivery> {
    const subscription = await this.#owned(owner, id);
    if (!subscription.enabled)
      throw new DomainError(
        409,
        "CONFLICT",
        "the webhook subscription is disabled; enable it to send a test event",
      );
    const event = buildEvent({
      type: "system.ping",
      entityId: id,
      publicBaseUrl: this.#d.publicBaseUrl,
      occurredAt: this.#d.clock.now(),
    });
    const body = JSON.stringify(event);
    // The ping carries the request's trace, so its attempt spans join the POST /test trace.
    const newEvent = {
      eventUuid: event.event_uuid,
      eventType: event.event_type,
      body,
      trace: traceContextOf(),
    };
    const delivery = await this.#d.deliveries.createSingle(
      id,
      newEvent,
      randomUUID(),
      this.#d.clock.now(),
    );
    await this.#enqueue(delivery);
    return delivery;
  }

  async listDeliveries(
    owner: string,
    id: string,
    filter: { status?: DeliveryStatus | undefined },
    page: PageRequest,
  ): Promise<Page<Delivery>> {
    await this.#owned(owner, id);
    return this.#d.deliveries.list(id, filter, page);
  }

  async getDelivery(owner: string, id: string, deliveryId: string): Promise<DeliveryDetail> {
    await this.#owned(owner, id);
    const delivery = await this.#d.deliveries.get(id, deliveryId);
    if (!delivery) throw new NotFoundError("webhook delivery not found");
    return delivery;
  }

  /** A failed or dead delivery gets a new round of attempts on the full schedule. */
  async redeliver(owner: string, id: string, deliveryId: string): Promise<Delivery> {
    const subscription = await this.#owned(owner, id);
    if (!subscription.enabled)
      throw new DomainError(
        409,
        "CONFLICT",
        "the webhook subscription is disabled; enable it to redeliver",
      );
    const delivery = await this.#d.deliveries.startNewRound(id, deliveryId, this.#d.clock.now());
    if (!delivery) {
      const existing = await this.#d.deliveries.get(id, deliveryId);
      if (!existing) throw new NotFoundError("webhook delivery not found");
      throw new DomainError(
        409,
        "CONFLICT",
        `only a failed or dead delivery can be redelivered; this one is ${existing.status}`,
      );
    }
    await this.#enqueue(delivery);
    return delivery;
  }

  /**
   * Queues the delivery now. If the stream cannot be reached the record stays unqueued and the
   * dispatcher's requeue sweep sends it later: the request still succeeds (the delivery exists).
   */
  async #enqueue(delivery: Delivery): Promise<void> {
    const message: DeliveryMessage = {
      v: 1,
      delivery_uuid: delivery.id,
      subscription_uuid: delivery.subscriptionId,
      event_uuid: delivery.eventUuid,
      round: delivery.round,
    };
    try {
      await this.#d.queue.enqueue([message]);
      await this.#d.deliveries.markQueued([message], this.#d.clock.now());
    } catch (err) {
      this.#d.logger.warn(
        { err, delivery_uuid: delivery.id },
        "delivery not queued now; the requeue sweep will queue it",
      );
    }
  }

  async #owned(owner: string, id: string): Promise<Subscription> {
    return orNotFound(await this.#d.subscriptions.get(owner, id));
  }

  async #checkedUrl(raw: string): Promise<string> {
    try {
      return (await this.#d.guard.vet(raw)).url.href;
    } catch (err) {
      if (err instanceof BlockedUrlError)
        throw new ValidationError([{ field: "url", message: err.message }]);
      throw err;
    }
  }

  #checkedEventTypes(types: string[]): string[] {
    const allowed = eventTypesFor(this.#d.environment) as ReadonlyArray<string>;
    const issues = types.flatMap((t, i) =>
      allowed.includes(t)
        ? []
        : [
            {
              field: `event_types.${i}`,
              message: `is not an event type of the ${this.#d.environment} catalogue`,
            },
          ],
    );
    if (issues.length > 0) throw new ValidationError(issues);
    return [...new Set(types)];
  }
}

function orNotFound(subscription: Subscription | undefined): Subscription {
  if (!subscription) throw new NotFoundError("webhook subscription not found");
  return subscription;
}
