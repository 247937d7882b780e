import { encodeRevocation, revocationKey, sameRevocation, type RevocationWatch } from "@svc/auth";
import type { Logger } from "@svc/logging";
import type { KV } from "@svc/messaging";
import { revocationOf } from "../domain/clients/client.ts";
import type { ClientStore, RevocationPublisher } from "../domain/ports.ts";

/**
 * Writes one revocation to the bucket every service watches; resolves once the server stored it.
 */
export function kvRevocationPublisher(kv: () => KV | undefined): RevocationPublisher {
  return async (revocation) => {
    const bucket = kv();
    if (!bucket) throw new Error("the revocations bucket is not connected");
    await bucket.put(revocationKey(revocation.clientId), encodeRevocation(revocation));
  };
}

export interface ReconcileDeps {
  store: ClientStore;
  /** The bucket as this process sees it (auth watches it too). */
  watch: RevocationWatch;
  publish: RevocationPublisher;
  logger: Logger;
}

/**
 * The database is the truth about revocations; the bucket is its projection. Writes every
 * revocation or expiry the bucket lacks or holds differently: repairs a CLI run whose
 * publication failed (NATS down) and a bucket that was lost. Returns how many it wrote.
 */
export async function reconcileRevocations(deps: ReconcileDeps): Promise<number> {
  let written = 0;
  for (const client of await deps.store.listRevokedOrExpiring()) {
    const wanted = revocationOf(client);
    if (!wanted || sameRevocation(deps.watch.get(client.id), wanted)) continue;
    await deps.publish(wanted);
    written++;
  }
  if (written > 0) deps.logger.warn({ written }, "revocations re-published from the database");
  return written;
}

/**
 * Runs reconcileRevocations once the bucket has been loaded, then every `intervalMs`. Failures
 * (NATS or the database down) are logged and retried at the next tick.
 */
export function scheduleReconciliation(
  feed: { watch(): RevocationWatch | undefined; bucket(): KV | undefined; loaded: Promise<void> },
  deps: { store: ClientStore; logger: Logger; intervalMs: number },
): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    const watch = feed.watch();
    if (!watch?.isLoaded()) return;
    const publish = kvRevocationPublisher(() => feed.bucket());
    running = reconcileRevocations({
      store: deps.store,
      watch,
      publish,
      logger: deps.logger,
    }).catch((err: unknown) =>
      deps.logger.warn({ err }, "revocation reconciliation failed; retrying at the next interval"),
    );
  };
  const timer = setInterval(tick, deps.intervalMs);
  timer.unref();
  void feed.loaded.then(tick);
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
