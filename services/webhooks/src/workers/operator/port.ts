/** Which custom resource a subscription belongs to; the uid tells a re-created namesake apart. */
export type SubscriptionRef = { namespace: string; name: string; uid: string };

export type DesiredSubscription = { url: string; eventTypes: string[]; enabled: boolean };

export type EnsureOptions = {
  /**
   * The signing Secret is missing or empty (deleted by hand, or lost after a failed write): the
   * port must return a secret, rotating the existing subscription's secret if need be.
   */
  needSecret: boolean;
};

export type EnsureResult = {
  subscriptionId: string;
  /** Only when the subscription was created or its secret rotated; never logged. */
  secret?: string;
};

/**
 * The webhooks service as the reconciler sees it (the webhooks service implements it).
 * `ensure` is idempotent per ref: the same ref always names the same subscription, created when
 * missing and updated to the spec when it differs. `remove` succeeds when already gone.
 */
export interface SubscriptionPort {
  ensure(
    ref: SubscriptionRef,
    owner: string,
    spec: DesiredSubscription,
    options: EnsureOptions,
  ): Promise<EnsureResult>;
  remove(subscriptionId: string): Promise<void>;
}

/** Reasons a spec cannot be reconciled until someone changes it; they become the Ready condition's reason. */
export type InvalidSubscriptionReason = "InvalidURL" | "UnknownClient" | "InvalidEventType";

/**
 * A spec the webhooks service refuses (permanent until the spec changes, so not retried). Any
 * other error from the port counts as BackendUnavailable and is retried with backoff.
 */
export class InvalidSubscriptionError extends Error {
  readonly reason: InvalidSubscriptionReason;

  constructor(reason: InvalidSubscriptionReason, message: string) {
    super(message);
    this.name = "InvalidSubscriptionError";
    this.reason = reason;
  }
}
