import { randomUUID } from "node:crypto";
import { DomainError, NotFoundError, ValidationError } from "@svc/errors";
import { buildEvent, eventTypesFor, traceContextOf } from "@svc/events";
import type { Logger } from "@svc/logging";
import type {
  Clock,
  Delivery,
  DeliveryDetail,
  DeliveryFilter,
  DeliveryMessage,
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
  UrlGuard,
} from "./ports.ts";
import { generateSecret } from "./signing.ts";
import { BlockedUrlError } from "./url-policy.ts";

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
  /** How far back bulk recovery may reach (older finished deliveries are deleted); 0: no bound. */
  retentionMs: number;
};

export type SubscriptionInput = { url: string; eventTypes: string[] };
/** What only the Kubernetes reconciler sets on creation (src/workers/operator). */
export type CreateOptions = { enabled?: boolean; k8sUid?: string };
export type WithSecret = { subscription: Subscription; secret: string };
/** Bulk recovery's answer: the window it used and how many deliveries it queued. */
export type Recovery = { since: Date; until: Date; queued: number };

// Messages published (and then marked queued) at once by bulk recovery.
const RECOVERY_CHUNK = 500;

/**
 * A recovery window checked against the time of the call: `since` no earlier than `now` minus the
 * retention period (none when 0), `until` (default `now`) later than `since`; or 422 naming the
 * field.
 */
export function recoveryWindow(
  window: { since: Date; until?: Date | undefined },
  now: Date,
  retentionMs: number,
): { since: Date; until: Date } {
  const { since } = window;
  const until = window.until ?? now;
  const oldest = retentionMs > 0 ? now.getTime() - retentionMs : -Infinity;
  if (since.getTime() < oldest) {
    const days = Math.round(retentionMs / 86_400_000);
    throw new ValidationError([
      { field: "since", message: `must be within the retention period (the last ${days} days)` },
    ]);
  }
  if (until.getTime() <= since.getTime())
    throw new ValidationError([
      window.until !== undefined
        ? { field: "until", message: "must be later than since" }
        : { field: "since", message: "must be in the past" },
    ]);
  return { since, until };
}

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

  /** The owner's subscriptions, or only those of `only` (a portal session's subset). */
  list(
    owner: string,
    page: PageRequest,
    only: ReadonlySet<string> | null = null,
  ): Promise<Page<Subscription>> {
    return this.#d.subscriptions.list(owner, page, only && [...only]);
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
    await this.#ownedEnabled(owner, id, "send a test event");
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
    filter: DeliveryFilter,
    page: PageRequest,
  ): Promise<Page<Delivery>> {
    await this.#owned(owner, id);
    return this.#d.deliveries.list(id, filter, page);
  }

  /** Deliveries across the owner's subscriptions, or those of `only` (a portal session's). */
  listAllDeliveries(
    owner: string,
    only: ReadonlySet<string> | null,
    filter: DeliveryFilter,
    page: PageRequest,
  ): Promise<Page<Delivery>> {
    return this.#d.deliveries.listForOwner(owner, only && [...only], filter, page);
  }

  async getDelivery(owner: string, id: string, deliveryId: string): Promise<DeliveryDetail> {
    await this.#owned(owner, id);
    const delivery = await this.#d.deliveries.get(id, deliveryId);
    if (!delivery) throw new NotFoundError("webhook delivery not found");
    return delivery;
  }

  /** A failed or dead delivery gets a new round of attempts on the full schedule. */
  async redeliver(owner: string, id: string, deliveryId: string): Promise<Delivery> {
    await this.#ownedEnabled(owner, id, "redeliver");
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
   * Bulk recovery: every failed or dead delivery created in [since, until) (until: now) gets a
   * new round, queued like any other so the dispatcher's per-subscription cap paces it. A
   * delivery already pending is left alone, so repeating the call queues nothing twice.
   */
  async recover(
    owner: string,
    id: string,
    window: { since: Date; until?: Date | undefined },
  ): Promise<Recovery> {
    await this.#ownedEnabled(owner, id, "recover its deliveries");
    const now = this.#d.clock.now();
    const { since, until } = recoveryWindow(window, now, this.#d.retentionMs);
    const messages = await this.#d.deliveries.startNewRounds(id, { since, until }, now);
    for (let i = 0; i < messages.length; i += RECOVERY_CHUNK) {
      const chunk = messages.slice(i, i + RECOVERY_CHUNK);
      if (!(await this.#enqueueAll(chunk))) break; // the requeue sweep queues the rest
    }
    return { since, until, queued: messages.length };
  }

  /** Publishes and marks queued; false (logged) when the stream could not be reached. */
  async #enqueueAll(messages: DeliveryMessage[]): Promise<boolean> {
    try {
      await this.#d.queue.enqueue(messages);
      await this.#d.deliveries.markQueued(messages, this.#d.clock.now());
      return true;
    } catch (err) {
      this.#d.logger.warn(
        { err, count: messages.length },
        "deliveries not queued now; the requeue sweep will queue them",
      );
      return false;
    }
  }

  /**
   * Queues the delivery now. If the stream cannot be reached the record stays unqueued and the
   * dispatcher's requeue sweep sends it later: the request still succeeds (the delivery exists).
   */
  async #enqueue(delivery: Delivery): Promise<void> {
    await this.#enqueueAll([
      {
        v: 1,
        delivery_uuid: delivery.id,
        subscription_uuid: delivery.subscriptionId,
        event_uuid: delivery.eventUuid,
        round: delivery.round,
      },
    ]);
  }

  /** A disabled subscription sends nothing: what would send is 409 until it is enabled. */
  async #ownedEnabled(owner: string, id: string, toDo: string): Promise<Subscription> {
    const subscription = await this.#owned(owner, id);
    if (!subscription.enabled)
      throw new DomainError(
        409,
        "CONFLICT",
        `the webhook subscription is disabled; enable it to ${toDo}`,
      );
    return subscription;
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
