import type { V1Lease, V1LeaseSpec, V1MicroTime } from "@kubernetes/client-node";
import { formatMicroTime, parseMicroTime } from "./micro-time.ts";

// The pure rules of a coordination.k8s.io/v1 Lease used as a leader-election lock, with the
// semantics of client-go's LeaseLock so a Go peer and this one read the record the same way.

/** A MicroTime string typed as the library's V1MicroTime: its serializer passes strings through. */
function microTime(nowMs: number): V1MicroTime {
  return formatMicroTime(nowMs * 1000) as unknown as V1MicroTime;
}

function renewMicros(spec: V1LeaseSpec | undefined): number | undefined {
  const raw = (spec?.renewTime ?? spec?.acquireTime) as unknown;
  if (typeof raw !== "string" && !(raw instanceof Date)) return undefined;
  try {
    return parseMicroTime(raw);
  } catch {
    return undefined; // an unreadable time counts as no renewal: the lease is expired
  }
}

export function holderOf(lease: V1Lease | undefined): string {
  return lease?.spec?.holderIdentity ?? "";
}

/** Free (no holder) or expired: renewTime + leaseDurationSeconds < now. */
export function isAcquirable(lease: V1Lease, nowMs: number): boolean {
  if (holderOf(lease) === "") return true;
  const renewed = renewMicros(lease.spec);
  if (renewed === undefined) return true;
  const durationMicros = (lease.spec?.leaseDurationSeconds ?? 0) * 1_000_000;
  return renewed + durationMicros < nowMs * 1000;
}

/**
 * The spec with `identity` holding the lease from now. A change of holder (from a peer, an
 * expired holder or a released lease) is a transition, as in client-go.
 */
export function claimSpec(
  previous: V1LeaseSpec | undefined,
  identity: string,
  durationSeconds: number,
  nowMs: number,
): V1LeaseSpec {
  const now = microTime(nowMs);
  const transitions = previous?.leaseTransitions ?? 0;
  const takeover = previous !== undefined && previous.holderIdentity !== identity;
  const keepAcquire = previous?.holderIdentity === identity && previous.acquireTime !== undefined;
  return {
    ...previous,
    holderIdentity: identity,
    leaseDurationSeconds: durationSeconds,
    acquireTime: keepAcquire ? previous.acquireTime : now,
    renewTime: now,
    leaseTransitions: takeover ? transitions + 1 : transitions,
  };
}

export function renewSpec(spec: V1LeaseSpec | undefined, nowMs: number): V1LeaseSpec {
  return { ...spec, renewTime: microTime(nowMs) };
}

/** Hands the lease back: no holder, so any candidate may take it at once (client-go's release). */
export function releaseSpec(spec: V1LeaseSpec | undefined, nowMs: number): V1LeaseSpec {
  const { holderIdentity: _gone, ...rest } = spec ?? {};
  return { ...rest, leaseDurationSeconds: 1, renewTime: microTime(nowMs) };
}
