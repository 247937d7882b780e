import type { Counter } from "@opentelemetry/api";
import { backoffMs, sleep } from "@svc/time";
import type { Logger } from "@svc/logging";

/**
 * One consumer's reaction to handler failures (docs/decisions/handler-failure-backoff.md).
 *
 * A failure starts an outage: the consumer pauses for a backoff that doubles (with jitter, up to
 * the cap) each time a probe fails, and while it lasts runs one handler at a time (the probe) so
 * a dead dependency is not hammered with the whole backlog. The first success of a handler
 * admitted after the latest failure ends it. One warning opens an outage, one line closes it with
 * the count and duration, and at most one "still failing" line is written per `stillFailingLogMs`.
 */
export type FailureBackoffOptions = {
  /** First pause and first retry delay of a message. */
  minMs: number;
  /** Longest pause and longest retry delay of a message. */
  maxMs: number;
  /** Least time between two "still failing" lines of one outage. */
  stillFailingLogMs: number;
  logger: Logger;
  where: { stream: string; consumer: string };
  /** Counts every handler failure. */
  failures?: Counter | undefined;
};

/** A handler admitted by the gate; report its outcome exactly once. */
export type Admission = {
  succeeded(): void;
  failed(err: unknown, context: object): void;
  /** No handler ran (the subscription ended, or the payload was poison): no verdict. */
  cancel(): void;
};

export type FailureBackoff = {
  /**
   * Resolves when the next handler may start: at once when healthy; during an outage, once the
   * pause is over and no probe is running. An aborted `signal` admits at once (stopping drains).
   */
  admit(signal: AbortSignal): Promise<Admission>;
  /** The nak delay of a message that failed: exponential in its delivery count, capped. */
  retryDelayMs(deliveryCount: number): number;
  /** True while an outage is open. */
  failing(): boolean;
};

type Outage = {
  startedAt: number;
  failures: number;
  /** Probes that failed: the exponent of the pause. */
  level: number;
  pausedUntil: number;
  probeRunning: boolean;
  lastLoggedAt: number;
};

export function failureBackoff(options: FailureBackoffOptions): FailureBackoff {
  const { minMs, maxMs, logger, where } = options;
  if (!(minMs > 0 && maxMs >= minMs))
    throw new RangeError(`need 0 < minMs <= maxMs, got ${minMs} and ${maxMs}`);
  const attributes = {
    "messaging.system": "nats",
    "messaging.destination.name": where.stream,
    "messaging.consumer.group.name": where.consumer,
  };
  let outage: Outage | undefined;
  // Raised at every failure that sets a pause, and at recovery.
  let epoch = 0;
  let wake: (() => void) | undefined;
  const wakeUp = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };

  const onFailure = (admittedAt: number, probe: boolean, err: unknown, context: object) => {
    options.failures?.add(1, attributes);
    const now = Date.now();
    const fresh = admittedAt === epoch;
    // A handler admitted before the latest pause or recovery says nothing about the dependency now.
    if (!outage && !fresh) return;
    if (!outage) {
      outage = {
        startedAt: now,
        failures: 0,
        level: 0,
        pausedUntil: 0,
        probeRunning: false,
        lastLoggedAt: now,
      };
      logger.warn({ ...where, ...context, err }, "message handler failing; backing off");
    }
    outage.failures++;
    if (probe) outage.probeRunning = false;
    if (fresh) {
      epoch++;
      outage.level++;
      outage.pausedUntil = now + backoffMs(outage.level, minMs, maxMs);
    }
    if (now - outage.lastLoggedAt >= options.stillFailingLogMs) {
      outage.lastLoggedAt = now;
      logger.warn(
        { ...where, failures: outage.failures, durationMs: now - outage.startedAt, err },
        "message handler still failing; backing off",
      );
    }
    wakeUp();
  };

  const onSuccess = (admittedAt: number, probe: boolean) => {
    if (!outage) return;
    if (probe) outage.probeRunning = false;
    if (admittedAt === epoch) {
      logger.info(
        { ...where, failures: outage.failures, durationMs: Date.now() - outage.startedAt },
        "message handler recovered",
      );
      outage = undefined;
      epoch++;
    }
    wakeUp();
  };

  const waitForTurn = async (signal: AbortSignal): Promise<void> => {
    while (outage && !signal.aborted) {
      const pausedFor = outage.pausedUntil - Date.now();
      if (pausedFor > 0) {
        await sleep(pausedFor, signal);
        continue;
      }
      if (!outage.probeRunning) return;
      // A verdict (or stop) ends the wait; the loop then re-checks the state.
      await new Promise<void>((resolve) => {
        const done = () => {
          signal.removeEventListener("abort", done);
          resolve();
        };
        wake = done;
        signal.addEventListener("abort", done, { once: true });
      });
    }
  };

  return {
    async admit(signal) {
      await waitForTurn(signal);
      const admittedAt = epoch;
      const probe = outage !== undefined && !signal.aborted;
      if (probe) outage!.probeRunning = true;
      let settled = false;
      const once = (verdict: () => void) => {
        if (settled) return;
        settled = true;
        verdict();
      };
      return {
        succeeded: () => once(() => onSuccess(admittedAt, probe)),
        failed: (err, context) => once(() => onFailure(admittedAt, probe, err, context)),
        cancel: () =>
          once(() => {
            if (probe && outage) outage.probeRunning = false;
            wakeUp();
          }),
      };
    },
    retryDelayMs: (deliveryCount) => backoffMs(deliveryCount, minMs, maxMs),
    failing: () => outage !== undefined,
  };
}
