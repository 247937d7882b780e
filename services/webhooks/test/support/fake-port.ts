import { randomBytes, randomUUID } from "node:crypto";
import { InvalidSubscriptionError } from "../../src/workers/operator/port.ts";
import type {
  DesiredSubscription,
  EnsureOptions,
  EnsureResult,
  SubscriptionPort,
  SubscriptionRef,
} from "../../src/workers/operator/port.ts";

type Stored = { id: string; owner: string; spec: DesiredSubscription; secret: string };
export type EnsureCall = {
  ref: SubscriptionRef;
  owner: string;
  spec: DesiredSubscription;
  options: EnsureOptions;
};

/**
 * The webhooks service as the port promises it: idempotent per ref uid, refuses private URLs
 * (InvalidURL) and unknown clients (UnknownClient), fails with a plain error while `down`.
 */
export class FakePort implements SubscriptionPort {
  readonly subscriptions = new Map<string, Stored>();
  readonly ensureCalls: EnsureCall[] = [];
  readonly removeCalls: string[] = [];
  readonly knownClients = new Set(["ats-connector", "crm-connector"]);
  down = false;

  async ensure(
    ref: SubscriptionRef,
    owner: string,
    spec: DesiredSubscription,
    options: EnsureOptions,
  ): Promise<EnsureResult> {
    this.ensureCalls.push({ ref, owner, spec: structuredClone(spec), options });
    if (this.down) throw new Error("connect ECONNREFUSED webhooks:8080");
    if (!this.knownClients.has(owner))
      throw new InvalidSubscriptionError("UnknownClient", `client "${owner}" does not exist`);
    if (/^https:\/\/(127\.|10\.|localhost)/.test(spec.url))
      throw new InvalidSubscriptionError(
        "InvalidURL",
        "the URL resolves to a private or loopback address",
      );
    const existing = this.subscriptions.get(ref.uid);
    if (!existing) {
      const created = {
        id: randomUUID(),
        owner,
        spec: structuredClone(spec),
        secret: `whsec_${randomBytes(24).toString("base64url")}`,
      };
      this.subscriptions.set(ref.uid, created);
      return { subscriptionId: created.id, secret: created.secret };
    }
    existing.spec = structuredClone(spec);
    if (!options.needSecret) return { subscriptionId: existing.id };
    existing.secret = `whsec_${randomBytes(24).toString("base64url")}`;
    return { subscriptionId: existing.id, secret: existing.secret };
  }

  async remove(subscriptionId: string): Promise<void> {
    this.removeCalls.push(subscriptionId);
    if (this.down) throw new Error("connect ECONNREFUSED webhooks:8080");
    for (const [uid, s] of this.subscriptions)
      if (s.id === subscriptionId) this.subscriptions.delete(uid);
  }

  byId(id: string): Stored | undefined {
    return [...this.subscriptions.values()].find((s) => s.id === id);
  }
}
