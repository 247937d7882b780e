import type { TraceContext } from "@svc/messaging";
import type {
  AttemptOutcome,
  DeliveryMessage,
  DeliveryStatus,
  ErrorClass,
  FailureReason,
} from "./model.ts";
import type { NewEvent } from "./ports.ts";

/** Everything one attempt needs, read in one query. */
export type AttemptContext = {
  deliveryId: string;
  subscriptionId: string;
  eventUuid: string;
  eventType: string;
  status: DeliveryStatus;
  round: number;
  roundAttempts: number;
  nextAttemptAt: Date | null;
  /** When the delivery record was made (its fan-out, ping or redelivery). */
  createdAt: Date;
  body: string;
  /** The fan-out's W3C trace context, stored with the event: attempts are its children or link to it. */
  trace: TraceContext | undefined;
  url: string;
  enabled: boolean;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
};

export type AttemptRecord = {
  deliveryId: string;
  round: number;
  /** The round's attempt count the worker saw; a concurrent duplicate that got there first wins. */
  expectedRoundAttempts: number;
  attemptedAt: Date;
  durationMs: number;
  statusCode: number | null;
  outcome: AttemptOutcome;
  errorClass: ErrorClass | null;
  errorDetail: string | null;
  responseSample: string | null;
  status: DeliveryStatus;
  failureReason: FailureReason | null;
  nextAttemptAt: Date | null;
};

/** The dispatcher's view of the store: fan-out, attempt bookkeeping, the requeue sweep. */
export interface DispatchStore {
  /**
   * Records the event and one delivery per matching enabled subscription (idempotent), and
   * returns every first-round delivery of the event still pending: the caller publishes them
   * all before acking the event, so a crash before that republishes them (the stream de-duplicates).
   */
  fanOut(event: NewEvent, now: Date): Promise<DeliveryMessage[]>;
  markQueued(messages: ReadonlyArray<DeliveryMessage>, now: Date): Promise<void>;
  loadForAttempt(deliveryId: string): Promise<AttemptContext | undefined>;
  /** False when the delivery moved on meanwhile (another copy of the message recorded first). */
  recordAttempt(record: AttemptRecord): Promise<boolean>;
  /** Ends a pending delivery whose subscription was disabled, without an attempt. */
  closeAsDisabled(deliveryId: string, round: number, now: Date): Promise<void>;
  findUnqueued(
    olderThan: Date,
    limit: number,
  ): Promise<Array<{ message: DeliveryMessage; trace: TraceContext | undefined }>>;
}
