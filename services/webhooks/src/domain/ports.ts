import type { TraceContext } from "@svc/messaging";
import type {
  Delivery,
  DeliveryDetail,
  DeliveryMessage,
  DeliveryStatus,
  Page,
  PageRequest,
  Subscription,
} from "./model.ts";

export type NewSubscription = {
  id: string;
  ownerClientId: string;
  url: string;
  eventTypes: string[];
  secretSealed: string;
  now: Date;
  /** Created paused (a reconciler looking up a half-made subscription); default enabled. */
  enabled?: boolean | undefined;
  /** The managing custom resource's uid (operator-made subscriptions only). */
  k8sUid?: string | undefined;
};

export type SubscriptionPatch = { url?: string; eventTypes?: string[]; enabled?: boolean };

/** Subscriptions, always scoped to their owner: another client's subscription does not exist. */
export interface SubscriptionStore {
  insert(input: NewSubscription): Promise<Subscription>;
  list(owner: string, page: PageRequest): Promise<Page<Subscription>>;
  get(owner: string, id: string): Promise<Subscription | undefined>;
  update(
    owner: string,
    id: string,
    patch: SubscriptionPatch,
    now: Date,
  ): Promise<Subscription | undefined>;
  delete(owner: string, id: string): Promise<boolean>;
  /** The current secret becomes the previous one (signing until `overlapUntil`); the new one is current. */
  rotateSecret(
    owner: string,
    id: string,
    input: { secretSealed: string; overlapUntil: Date; now: Date },
  ): Promise<Subscription | undefined>;
}

export type NewEvent = {
  eventUuid: string;
  eventType: string;
  body: string;
  trace?: TraceContext | undefined;
};

/** Delivery records as the API reads and changes them (the subscription's ownership is checked first). */
export interface DeliveryStore {
  list(
    subscriptionId: string,
    filter: { status?: DeliveryStatus | undefined },
    page: PageRequest,
  ): Promise<Page<Delivery>>;
  get(subscriptionId: string, deliveryId: string): Promise<DeliveryDetail | undefined>;
  /** Records an event addressed to one subscription only (the test ping) and its delivery. */
  createSingle(
    subscriptionId: string,
    event: NewEvent,
    deliveryId: string,
    now: Date,
  ): Promise<Delivery>;
  /** Starts a new round for a failed or dead delivery; undefined when it is not in such a state. */
  startNewRound(
    subscriptionId: string,
    deliveryId: string,
    now: Date,
  ): Promise<Delivery | undefined>;
  markQueued(messages: ReadonlyArray<DeliveryMessage>, now: Date): Promise<void>;
}

/** The deliveries work stream. Resolves once the stream has stored every message. */
export interface DeliveryQueue {
  enqueue(messages: ReadonlyArray<DeliveryMessage>, trace?: TraceContext): Promise<void>;
}
