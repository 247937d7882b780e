import { CoordinationV1Api } from "@kubernetes/client-node";
import type { KubeConfig, V1Lease } from "@kubernetes/client-node";
import {
  claimSpec,
  describeError,
  holderOf,
  isAcquirable,
  isConflict,
  isNotFound,
  releaseSpec,
  renewSpec,
  withTimeout,
} from "@svc/k8s";
import { LeadershipLostError } from "./leader.ts";
import type { Fence, LeaderElector } from "./leader.ts";
import type { Logger } from "@svc/logging";
import { jittered, sleep } from "@svc/time";

export type LeaseElectorOptions = {
  kubeConfig: KubeConfig;
  /** Namespace of the Lease (the dispatcher's own; its Role grants leases there). */
  namespace: string;
  /** Lease name = what is being led, e.g. "webhooks-dispatcher". */
  name: string;
  /** This candidate, unique among peers: the pod name (POD_NAME from the downward API). */
  identity: string;
  logger: Logger;
  /** How long a holder's claim lasts without renewal; default 15 s (client-go's default). */
  leaseDurationSeconds?: number;
  /** The leader gives up when it has not renewed for this long; default 10 s. */
  renewDeadlineMs?: number;
  /** Pause between renewals, and between campaign attempts (with jitter); default 2 s. */
  retryPeriodMs?: number;
  /**
   * The fence fails once the last successful renewal is older than leaseDuration − margin. It
   * must cover clock skew between nodes and the time a fenced commit takes; default
   * leaseDuration − renewDeadline, so the fence closes when the renew deadline passes.
   */
  fenceMarginMs?: number;
  /** Clock in epoch milliseconds; tests may pass their own. */
  now?: () => number;
};

type Settings = Required<Omit<LeaseElectorOptions, "fenceMarginMs">> & { fenceMarginMs: number };
type Term = { controller: AbortController; renewedAt: number; lease: V1Lease };

/**
 * LeaderElector over a coordination.k8s.io/v1 Lease (what client-go's leaderelection does, which
 * @kubernetes/client-node lacks). Every write carries the resourceVersion it read, so of two
 * candidates racing for a free or expired lease the API server accepts one and answers the other
 * 409. The leader renews every retryPeriod; when it has not managed to for renewDeadline it aborts
 * its task, well before a peer may take over (leaseDuration after the last renewal).
 */
export class LeaseElector implements LeaderElector {
  readonly #o: Settings;
  readonly #api: CoordinationV1Api;
  #term: Term | undefined;

  constructor(options: LeaseElectorOptions) {
    this.#o = settings(options);
    this.#api = options.kubeConfig.makeApiClient(CoordinationV1Api);
  }

  isLeader(): boolean {
    return this.#term !== undefined && !this.#term.controller.signal.aborted;
  }

  async run(
    task: (signal: AbortSignal, fence: Fence) => Promise<void>,
    stop: AbortSignal,
  ): Promise<void> {
    while (!stop.aborted) {
      const won = await this.#tryAcquire(stop);
      if (won) await this.#lead(won, task, stop);
      await sleep(jittered(this.#o.retryPeriodMs), stop);
    }
  }

  /** One campaign attempt: the lease (with our claim) when won, undefined otherwise. */
  async #tryAcquire(stop: AbortSignal): Promise<{ lease: V1Lease; at: number } | undefined> {
    const { namespace, name, identity } = this.#o;
    const opts = withTimeout(this.#o.renewDeadlineMs, stop);
    let current: V1Lease | undefined;
    try {
      current = await this.#api.readNamespacedLease({ name, namespace }, opts);
    } catch (err) {
      if (!isNotFound(err)) return this.#campaignFailed(err, stop);
    }
    const at = this.#o.now();
    if (current && !isAcquirable(current, at) && holderOf(current) !== identity) return undefined;
    const spec = claimSpec(current?.spec, identity, this.#o.leaseDurationSeconds, at);
    try {
      const lease = current
        ? await this.#api.replaceNamespacedLease(
            { name, namespace, body: { ...current, spec } },
            opts,
          )
        : await this.#api.createNamespacedLease(
            {
              namespace,
              body: {
                apiVersion: "coordination.k8s.io/v1",
                kind: "Lease",
                metadata: { name, namespace },
                spec,
              },
            },
            opts,
          );
      return { lease, at };
    } catch (err) {
      // 409: another candidate wrote first (Conflict on replace, AlreadyExists on create).
      if (isConflict(err)) return undefined;
      return this.#campaignFailed(err, stop);
    }
  }

  #campaignFailed(err: unknown, stop: AbortSignal): undefined {
    if (!stop.aborted)
      this.#o.logger.warn(
        { lease: this.#o.name, err: describeError(err) },
        "leader election: lease request failed",
      );
    return undefined;
  }

  async #lead(
    won: { lease: V1Lease; at: number },
    task: (signal: AbortSignal, fence: Fence) => Promise<void>,
    stop: AbortSignal,
  ): Promise<void> {
    const term: Term = { controller: new AbortController(), renewedAt: won.at, lease: won.lease };
    const onStop = () => term.controller.abort(new LeadershipLostError("stopping"));
    stop.addEventListener("abort", onStop, { once: true });
    if (stop.aborted) onStop();
    this.#term = term;
    this.#o.logger.info(
      {
        lease: this.#o.name,
        identity: this.#o.identity,
        transitions: won.lease.spec?.leaseTransitions ?? 0,
      },
      "leadership acquired",
    );
    const renewing = this.#renewLoop(term);
    try {
      await task(term.controller.signal, async () => this.#fence(term));
    } catch (err) {
      if (!term.controller.signal.aborted)
        this.#o.logger.error({ err, lease: this.#o.name }, "leader task failed; handing over");
    } finally {
      if (!term.controller.signal.aborted)
        term.controller.abort(new LeadershipLostError("task ended"));
      stop.removeEventListener("abort", onStop);
      await renewing;
      this.#term = undefined;
      await this.#release(term);
      this.#o.logger.info(
        { lease: this.#o.name, reason: (term.controller.signal.reason as Error).message },
        "leadership ended",
      );
    }
  }

  /** Passes only while the last successful renewal is younger than leaseDuration − margin. */
  #fence(term: Term): void {
    if (term.controller.signal.aborted)
      throw new LeadershipLostError("no longer leader", { cause: term.controller.signal.reason });
    const age = this.#o.now() - term.renewedAt;
    if (age >= this.#o.leaseDurationSeconds * 1000 - this.#o.fenceMarginMs) {
      throw new LeadershipLostError(`lease last renewed ${age} ms ago; a peer may take over`);
    }
  }

  async #renewLoop(term: Term): Promise<void> {
    const signal = term.controller.signal;
    const untilDeadline = () => term.renewedAt + this.#o.renewDeadlineMs - this.#o.now();
    while (!signal.aborted) {
      await sleep(Math.min(this.#o.retryPeriodMs, Math.max(0, untilDeadline())), signal);
      if (signal.aborted) return;
      if (untilDeadline() <= 0) {
        this.#o.logger.warn(
          { lease: this.#o.name, renewDeadlineMs: this.#o.renewDeadlineMs },
          "lease renewal missed its deadline; giving up leadership",
        );
        term.controller.abort(new LeadershipLostError("lease renewal missed its deadline"));
        return;
      }
      const lostTo = await this.#renewOnce(term, untilDeadline());
      if (lostTo !== undefined) {
        this.#o.logger.warn({ lease: this.#o.name, holder: lostTo }, "lease taken over by a peer");
        term.controller.abort(new LeadershipLostError(`lease now held by ${lostTo || "nobody"}`));
      }
    }
  }

  /** One renewal; returns the new holder when the lease is no longer ours. */
  async #renewOnce(term: Term, timeoutMs: number): Promise<string | undefined> {
    const { namespace, name } = this.#o;
    const at = this.#o.now();
    const opts = withTimeout(timeoutMs, term.controller.signal);
    try {
      term.lease = await this.#api.replaceNamespacedLease(
        { name, namespace, body: { ...term.lease, spec: renewSpec(term.lease.spec, at) } },
        opts,
      );
      term.renewedAt = at;
      return undefined;
    } catch (err) {
      if (term.controller.signal.aborted) return undefined;
      if (isNotFound(err)) return "";
      if (!isConflict(err)) {
        this.#o.logger.warn(
          { lease: name, err: describeError(err) },
          "lease renewal failed; retrying",
        );
        return undefined;
      }
    }
    return this.#recheck(term, timeoutMs);
  }

  /**
   * After a 409 on renewal: an earlier renewal that timed out on our side may have landed, so the
   * lease can still be ours under a newer resourceVersion. Adopt it then; otherwise it is lost.
   */
  async #recheck(term: Term, timeoutMs: number): Promise<string | undefined> {
    try {
      const current = await this.#api.readNamespacedLease(
        { name: this.#o.name, namespace: this.#o.namespace },
        withTimeout(timeoutMs, term.controller.signal),
      );
      if (holderOf(current) !== this.#o.identity) return holderOf(current);
      term.lease = current;
    } catch (err) {
      if (isNotFound(err)) return "";
    }
    return undefined;
  }

  /**
   * Clears holderIdentity so a peer takes over at once; the resourceVersion makes it a no-op when a
   * peer already has.
   */
  async #release(term: Term): Promise<void> {
    const { namespace, name, identity } = this.#o;
    // Not tied to `stop`: releasing is part of stopping. One re-read after a 409, because a
    // renewal cut short by the stop may have landed and moved the resourceVersion on.
    const opts = () => withTimeout(Math.min(this.#o.renewDeadlineMs, 5_000));
    let lease: V1Lease | undefined = term.lease;
    for (let attempt = 0; attempt < 2 && holderOf(lease) === identity; attempt++) {
      try {
        const body = { ...lease, spec: releaseSpec(lease?.spec, this.#o.now()) };
        await this.#api.replaceNamespacedLease({ name, namespace, body }, opts());
        return;
      } catch (err) {
        if (!isConflict(err)) {
          this.#o.logger.warn(
            { lease: name, err: describeError(err) },
            "lease release failed; peers wait for it to expire",
          );
          return;
        }
        lease = await this.#api
          .readNamespacedLease({ name, namespace }, opts())
          .catch(() => undefined);
      }
    }
  }
}

function settings(options: LeaseElectorOptions): Settings {
  const s = {
    leaseDurationSeconds: 15,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 2_000,
    now: Date.now,
    ...options,
  };
  const leaseMs = s.leaseDurationSeconds * 1000;
  const fenceMarginMs = options.fenceMarginMs ?? leaseMs - s.renewDeadlineMs;
  if (!options.identity) throw new Error("LeaseElector: identity (the pod name) is required");
  if (!Number.isInteger(s.leaseDurationSeconds) || s.leaseDurationSeconds < 1)
    throw new Error("LeaseElector: leaseDurationSeconds must be a whole number ≥ 1");
  if (!(s.renewDeadlineMs < leaseMs))
    throw new Error("LeaseElector: renewDeadlineMs must be shorter than the lease duration");
  if (!(s.retryPeriodMs < s.renewDeadlineMs))
    throw new Error("LeaseElector: retryPeriodMs must be shorter than renewDeadlineMs");
  if (!(fenceMarginMs >= 0 && fenceMarginMs < leaseMs))
    throw new Error("LeaseElector: fenceMarginMs must lie in [0, lease duration)");
  return { ...s, fenceMarginMs };
}
