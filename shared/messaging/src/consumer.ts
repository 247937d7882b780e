import { millis } from "@nats-io/transport-node";
import type { ConsumerMessages, JetStreamClient, JsMsg } from "@nats-io/jetstream";
import type { MsgHdrs } from "@nats-io/transport-node";
import type { Meter } from "@opentelemetry/api";
import { concurrencyLimit } from "./concurrency-limit.ts";
import type { ConcurrencyLimit } from "./concurrency-limit.ts";
import { failureBackoff } from "./failure-backoff.ts";
import type { Admission, FailureBackoff } from "./failure-backoff.ts";
import type { Logger } from "@svc/logging";

/**
 * What happens to a message after its handler ran. `nak` schedules the retry itself (the server
 * redelivers after `delayMs`); `term` ends it for good. There is no term reason: 2.9.10 ignores
 * `+TERM <reason>` and would redeliver.
 */
export type Decision = { action: "ack" } | { action: "nak"; delayMs: number } | { action: "term" };

export type Delivery<T> = {
  data: T;
  headers: MsgHdrs | undefined;
  /** 1 on the first delivery; the attempt number when retries are driven by nak(delay). */
  deliveryCount: number;
  subject: string;
  /** When the message was first stored in the stream (the same on every redelivery). */
  timestampMs: number;
  msg: JsMsg;
};

export type StartConsumerOptions<T> = {
  js: JetStreamClient;
  stream: string;
  /** A durable pull consumer, created beforehand (ensureConsumer). */
  consumer: string;
  /** Most handlers running at once in this process. */
  concurrency: number;
  handler: (delivery: Delivery<T>) => Promise<Decision> | Decision;
  logger: Logger;
  /**
   * Validates the decoded JSON, e.g. a zod schema's `parse`; a message failing it is terminated.
   */
  parse?: (data: unknown) => T;
  /**
   * After a handler throws: the first retry delay of the message and the first pause of the
   * consumer, both doubling with each further failure; default 1 s.
   */
  errorDelayMs?: number;
  /** The longest retry delay and consumer pause after handler failures; default 10 s. */
  errorMaxDelayMs?: number;
  /** Least time between two "still failing" lines of one outage; default 60 s. */
  stillFailingLogMs?: number;
  /** The process's Meter: handler failures are counted as `messaging.consumer.handler.failures`. */
  meter?: Meter | undefined;
  /** How often a running handler's message is marked in progress; default ack_wait / 3. */
  workingIntervalMs?: number;
};

export type RunningConsumer = {
  /**
   * Stops pulling, lets already received messages and running handlers finish, then resolves.
   * A message the server sent just as the client unsubscribed is dropped by the client: the server
   * redelivers it after ack_wait, with its delivery count raised, as after a crashed worker.
   */
  stop(): Promise<void>;
  inFlight(): number;
  /** Settles when the loop has ended: resolves after stop(), rejects if the subscription failed. */
  done: Promise<void>;
};

const FAILURES_METRIC = "messaging.consumer.handler.failures";

/** The payload is not JSON or fails `parse`: retrying cannot help, so it is terminated. */
class PoisonMessageError extends Error {}

/**
 * Runs a handler over a durable pull consumer with at most `concurrency` handlers in flight.
 * The client's consume() loop is kept (it re-pulls by itself after a reconnect or a server
 * restart); the bound comes from taking the next message only once a slot is free, and the
 * client only sends its next pull request when that message is taken, so at most about
 * `concurrency` received messages wait for a slot while their ack_wait runs.
 * A handler that throws (a dependency is down) pauses the whole consumer with a growing backoff
 * and its message is retried later (failure-backoff.ts).
 */
export async function startConsumer<T>(options: StartConsumerOptions<T>): Promise<RunningConsumer> {
  const { js, stream, consumer: name, concurrency, logger } = options;
  const slots = concurrencyLimit(concurrency);
  const consumer = await js.consumers.get(stream, name);
  // The server always reports ack_wait; 30 s is its default should a field ever be missing.
  const ackWaitMs = millis((await consumer.info(true)).config.ack_wait ?? 30_000_000_000);
  const workingIntervalMs = options.workingIntervalMs ?? Math.max(100, Math.floor(ackWaitMs / 3));
  const gate = failureBackoff({
    minMs: options.errorDelayMs ?? 1_000,
    maxMs: options.errorMaxDelayMs ?? 10_000,
    stillFailingLogMs: options.stillFailingLogMs ?? 60_000,
    logger,
    where: { stream, consumer: name },
    failures: options.meter?.createCounter(FAILURES_METRIC, {
      unit: "{failure}",
      description: "Message handler failures (the message is retried after a backoff)",
    }),
  });
  const messages = await consumer.consume({ max_messages: concurrency });
  void logNotifications(messages, logger, { stream, consumer: name });
  // A message that waited in the client's buffer past its ack wait (all slots busy, a backoff
  // pause) is redelivered while its first copy may still be running here: the copy runs after
  // that one has settled, so a handler never runs twice at once for one message.
  const runningCopies = new Map<number, Promise<void>>();
  const handle = (msg: JsMsg, admission: Admission) => {
    const earlier = runningCopies.get(msg.seq);
    const run = handleOne(msg, admission, gate, { ...options, workingIntervalMs }, earlier);
    runningCopies.set(msg.seq, run);
    return run.finally(() => {
      if (runningCopies.get(msg.seq) === run) runningCopies.delete(msg.seq);
    });
  };
  const stopping = new AbortController();
  const done = pullLoop(messages, slots, gate, stopping.signal, handle, logger, {
    stream,
    consumer: name,
  });
  // Rejections are logged by the loop; callers awaiting `done` still see them.
  done.catch(() => {});
  let stopped: Promise<void> | undefined;
  return {
    stop() {
      if (!stopped) {
        // A pause of the failure backoff ends at once: buffered messages are still handled.
        stopping.abort();
        // close() completes only when the loop reads on (it queues behind buffered messages,
        // which are still handled), so it is not awaited here; `done` covers it.
        void messages.close();
        stopped = done.catch(() => {});
      }
      return stopped;
    },
    inFlight: slots.inFlight,
    done,
  };
}

async function pullLoop(
  messages: ConsumerMessages,
  slots: ConcurrencyLimit,
  gate: FailureBackoff,
  stopping: AbortSignal,
  handle: (msg: JsMsg, admission: Admission) => Promise<void>,
  logger: Logger,
  where: { stream: string; consumer: string },
): Promise<void> {
  const iterator = messages[Symbol.asyncIterator]();
  try {
    for (;;) {
      await slots.acquire();
      // Not taking the next message holds back the client's next pull too.
      const admission = await gate.admit(stopping);
      const next = await iterator.next().catch((err: unknown) => {
        admission.cancel();
        slots.release();
        throw err;
      });
      if (next.done) {
        admission.cancel();
        slots.release();
        return;
      }
      void handle(next.value, admission).finally(() => slots.release());
    }
  } catch (err) {
    logger.error({ ...where, err }, "consumer stopped: subscription failed");
    throw err;
  } finally {
    await slots.idle();
  }
}

async function handleOne<T>(
  msg: JsMsg,
  admission: Admission,
  gate: FailureBackoff,
  options: StartConsumerOptions<T> & { workingIntervalMs: number },
  earlierCopy?: Promise<void>,
): Promise<void> {
  const { logger } = options;
  // Keeps the ack deadline from passing while a slow handler (an HTTP call) is still running,
  // or while this copy waits for an earlier one.
  const keepAlive = setInterval(() => msg.working(), options.workingIntervalMs);
  const context = {
    subject: msg.subject,
    streamSeq: msg.seq,
    deliveryCount: msg.info.deliveryCount,
  };
  try {
    await earlierCopy;
    const decision = await options.handler(toDelivery(msg, options.parse));
    apply(msg, decision);
    admission.succeeded();
  } catch (err) {
    if (err instanceof PoisonMessageError) {
      admission.cancel();
      logger.error({ ...context, err: err.cause }, "message payload rejected; terminated");
      msg.term();
      return;
    }
    // Logged by the gate once per outage, not per message.
    const delayMs = gate.retryDelayMs(context.deliveryCount);
    admission.failed(err, { ...context, delayMs });
    msg.nak(delayMs);
  } finally {
    clearInterval(keepAlive);
  }
}

function toDelivery<T>(msg: JsMsg, parse: ((data: unknown) => T) | undefined): Delivery<T> {
  let data: T;
  try {
    const decoded: unknown = JSON.parse(msg.string());
    data = parse ? parse(decoded) : (decoded as T);
  } catch (err) {
    throw new PoisonMessageError("invalid payload", { cause: err });
  }
  return {
    data,
    headers: msg.headers,
    deliveryCount: msg.info.deliveryCount,
    subject: msg.subject,
    timestampMs: msg.time.getTime(),
    msg,
  };
}

function apply(msg: JsMsg, decision: Decision): void {
  switch (decision?.action) {
    case "ack":
      return msg.ack();
    case "term":
      return msg.term();
    case "nak":
      if (!Number.isFinite(decision.delayMs) || decision.delayMs < 0) {
        throw new RangeError(`nak delay must be a non-negative number, got ${decision.delayMs}`);
      }
      // A bare nak (delay 0) redelivers at once; only ask for that explicitly.
      return msg.nak(Math.round(decision.delayMs));
    default:
      throw new TypeError(`handler returned no decision: ${JSON.stringify(decision)}`);
  }
}

async function logNotifications(
  messages: ConsumerMessages,
  logger: Logger,
  where: object,
): Promise<void> {
  for await (const n of messages.status()) {
    switch (n.type) {
      case "heartbeats_missed":
      case "consumer_not_found":
      case "stream_not_found":
      case "consumer_deleted":
      case "no_responders":
      case "exceeded_limits":
        logger.warn({ ...where, notification: n }, `consumer ${n.type}`);
        break;
      default:
        // next, heartbeat, discard, debug: routine.
        break;
    }
  }
}
