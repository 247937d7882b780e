import {
  InvalidSubscriptionError,
  type DesiredSubscription,
  type EnsureOptions,
  type EnsureResult,
  type SubscriptionPort,
  type SubscriptionRef,
} from "./port.ts";
import { NotFoundError, ValidationError } from "@svc/errors";
import type { Subscription } from "../../domain/model.ts";
import type { K8sLinks, SubscriptionPatch } from "../../domain/ports.ts";
import type { SubscriptionService } from "../../domain/subscription-service.ts";

/**
 * The webhooks service as the WebhookSubscription reconciler sees it (SubscriptionPort, ./port.ts).
 * Every change goes through SubscriptionService, so the URL guard and the event catalogue apply
 * exactly as for the API; the resource's uid (column k8s_uid, unique) names its subscription.
 *
 * Clients: this service keeps no client registry (clients live in auth, and its API trusts the
 * token's client id), so it cannot tell an unknown client: any non-empty client id is accepted
 * and UnknownClient is reported only for an empty one.
 */
export class ServiceSubscriptionPort implements SubscriptionPort {
  readonly #service: SubscriptionService;
  readonly #links: K8sLinks;
  constructor(service: SubscriptionService, links: K8sLinks) {
    this.#service = service;
    this.#links = links;
  }

  async ensure(
    ref: SubscriptionRef,
    owner: string,
    spec: DesiredSubscription,
    options: EnsureOptions,
  ): Promise<EnsureResult> {
    if (owner.trim() === "")
      throw new InvalidSubscriptionError("UnknownClient", "clientId is empty");
    if (spec.eventTypes.length === 0)
      throw new InvalidSubscriptionError("InvalidEventType", "eventTypes is empty");
    return mapValidation(async () => {
      let existing = await this.#links.byUid(ref.uid);
      if (existing && existing.ownerClientId !== owner) {
        // clientId changed: the subscription belongs to one client, so the old one goes and a new one is made.
        await this.#removeOwned(existing.ownerClientId, existing.id);
        existing = undefined;
      }
      if (!existing) {
        const created = await this.#service.create(owner, spec, {
          enabled: spec.enabled,
          k8sUid: ref.uid,
        });
        return { subscriptionId: created.subscription.id, secret: created.secret };
      }
      const patch = patchFor(existing, spec);
      if (patch) await this.#service.update(owner, existing.id, patch);
      if (!options.needSecret) return { subscriptionId: existing.id };
      const rotated = await this.#service.rotateSecret(owner, existing.id);
      return { subscriptionId: existing.id, secret: rotated.secret };
    });
  }

  async remove(subscriptionId: string): Promise<void> {
    const owner = await this.#links.ownerOf(subscriptionId);
    if (owner !== undefined) await this.#removeOwned(owner, subscriptionId);
  }

  async #removeOwned(owner: string, id: string): Promise<void> {
    try {
      await this.#service.remove(owner, id);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err; // already gone: removal succeeded
    }
  }
}

/** Only what differs, so a periodic resync does not rewrite (and re-stamp) an unchanged row. */
function patchFor(current: Subscription, spec: DesiredSubscription): SubscriptionPatch | undefined {
  const sameTypes =
    new Set(spec.eventTypes).size === current.eventTypes.length &&
    spec.eventTypes.every((t) => current.eventTypes.includes(t));
  // An automatic disabling (endpoint_failing) stands through resyncs; setting enabled to false
  // makes it the resource's own, and true then enables it again.
  const autoDisabled = current.disabledReason === "endpoint_failing";
  const setEnabled = spec.enabled
    ? !current.enabled && !autoDisabled
    : current.enabled || autoDisabled;
  const patch: SubscriptionPatch = {
    ...(normalised(spec.url) !== current.url && { url: spec.url }),
    ...(!sameTypes && { eventTypes: spec.eventTypes }),
    ...(setEnabled && { enabled: spec.enabled }),
  };
  return Object.keys(patch).length > 0 ? patch : undefined;
}

/** The stored URL is the guard's normalised href; an unparsable one always differs (and fails the guard). */
function normalised(url: string): string | undefined {
  try {
    return new URL(url).href;
  } catch {
    return undefined;
  }
}

/** The service's 422s become the reconciler's permanent reasons; anything else is retried. */
async function mapValidation<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    const issues = err.details ?? [];
    const urlIssue = issues.find((i) => i.field === "url");
    if (urlIssue) throw new InvalidSubscriptionError("InvalidURL", urlIssue.message);
    throw new InvalidSubscriptionError(
      "InvalidEventType",
      issues.map((i) => `${i.field.replace("event_types", "eventTypes")}: ${i.message}`).join("; "),
    );
  }
}
