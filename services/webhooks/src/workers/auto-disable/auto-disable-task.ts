import type { Counter, Meter } from "@opentelemetry/api";
import type { LeaderTask } from "@svc/leader";
import type { Logger } from "@svc/logging";
import { sleep } from "@svc/time";
import type { Clock } from "../../domain/model.ts";
import type { AutoDisableStore } from "../../domain/ports.ts";

export type AutoDisableSettings = { afterMs: number; everyMs: number; batchSize: number };

/** `webhooks_subscriptions_auto_disabled_total` in Prometheus. */
export function autoDisabledCounter(meter: Meter): Counter {
  return meter.createCounter("webhooks.subscriptions.auto_disabled", {
    unit: "{subscription}",
    description: "Webhook subscriptions disabled automatically because their endpoint kept failing",
  });
}

/** One check: disables every subscription past the period, a batch at a time; returns how many. */
export async function disableFailingEndpoints(deps: {
  store: AutoDisableStore;
  settings: AutoDisableSettings;
  now: Date;
  logger: Logger;
  counter?: Counter | undefined;
}): Promise<number> {
  const { settings, now } = deps;
  const cutoff = new Date(now.getTime() - settings.afterMs);
  let total = 0;
  for (;;) {
    const disabled = await deps.store.disableFailing(cutoff, now, settings.batchSize);
    for (const s of disabled) {
      // No URL: a subscriber's URL may carry a credential in its query.
      deps.logger.warn(
        {
          webhook_uuid: s.id,
          client_id: s.ownerClientId,
          failing_since: s.firstFailureAt.toISOString(),
          last_success_at: s.lastSuccessAt?.toISOString() ?? null,
          disabled_reason: "endpoint_failing",
        },
        "webhook subscription disabled: every attempt failed for the auto-disable period",
      );
    }
    deps.counter?.add(disabled.length);
    total += disabled.length;
    if (disabled.length < settings.batchSize) return total;
  }
}

/**
 * The check as a task of the dispatcher's leader group: at once when elected, then every
 * `everyMs`. A failed check is logged and retried next round; leadership is kept.
 */
export function autoDisableTask(deps: {
  store: AutoDisableStore;
  settings: AutoDisableSettings;
  clock: Clock;
  logger: Logger;
  counter?: Counter | undefined;
}): LeaderTask {
  const run = async (signal: AbortSignal) => {
    while (!signal.aborted) {
      try {
        await disableFailingEndpoints({ ...deps, now: deps.clock.now() });
      } catch (err) {
        if (!signal.aborted) deps.logger.warn({ err }, "auto-disable check failed; retrying");
      }
      await sleep(deps.settings.everyMs, signal);
    }
  };
  return { name: "auto-disable", run };
}
