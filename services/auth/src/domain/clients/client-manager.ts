import type { ClientStore, RevocationPublisher } from "../ports.ts";
import { revocationOf, stateOf, type ClientRecord, type ClientState } from "./client.ts";
import { assignableScopes, ClientRuleError, type Environment } from "./client-scopes.ts";
import { hashSecret, newClientId, newClientSecret } from "./credentials.ts";

export { ClientRuleError } from "./client-scopes.ts";

export class ClientNotFoundError extends Error {
  constructor(id: string) {
    super(`no client with id ${id}`);
    this.name = "ClientNotFoundError";
  }
}

/** A client as management shows it: everything but the secret hash. */
export type ClientSummary = Omit<ClientRecord, "secretHash"> & { state: ClientState };

/**
 * Whether a revocation or expiry reached the revocations bucket (auth re-publishes it later if
 * not).
 */
export type Propagation = { propagated: true } | { propagated: false; error: unknown };

export interface ClientManagerDeps {
  store: ClientStore;
  environment: Environment;
  /** Writes one revocation to the bucket every service watches. */
  publish: RevocationPublisher;
  now?: () => Date;
}

export interface CreateClientInput {
  name: string;
  scopes: ReadonlyArray<string>;
  isCrmMirror?: boolean;
  expiresAt?: Date | null;
}

const PG_UNIQUE_VIOLATION = "23505";

/** drizzle wraps the driver's error; the SQLSTATE is on it or on its cause. */
function pgCodeOf(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = e?.code ?? e?.cause?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * Client management (the CLI's domain functions): a secret is returned exactly twice in a
 * client's life, by create and by rotate, and never stored other than hashed.
 */
export class ClientManager {
  readonly #deps: ClientManagerDeps;
  readonly #now: () => Date;

  constructor(deps: ClientManagerDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => new Date());
  }

  async create(
    input: CreateClientInput,
  ): Promise<{ client: ClientSummary; secret: string; propagation: Propagation }> {
    const name = input.name.trim();
    if (name === "" || name.length > 200)
      throw new ClientRuleError("a client needs a name of 1 to 200 characters");
    const isCrmMirror = input.isCrmMirror ?? false;
    const scopes = assignableScopes(this.#deps.environment, input.scopes, isCrmMirror);
    if (input.expiresAt && !(input.expiresAt.getTime() > this.#now().getTime()))
      throw new ClientRuleError("the expiry must be a future instant");
    const secret = newClientSecret();
    const record = {
      id: newClientId(),
      name,
      secretHash: await hashSecret(secret),
      scopes,
      isCrmMirror,
      expiresAt: input.expiresAt ?? null,
    };
    const client = await this.#deps.store.insert(record).catch((err: unknown) => {
      if (pgCodeOf(err) === PG_UNIQUE_VIOLATION && isCrmMirror) {
        throw new ClientRuleError(
          "an active CRM mirror client already exists; rotate its secret instead of adding another",
        );
      }
      throw err;
    });
    return { client: this.#summary(client), secret, propagation: await this.#propagate(client) };
  }

  async list(): Promise<ClientSummary[]> {
    return (await this.#deps.store.list()).map((c) => this.#summary(c));
  }

  /** A new secret for an active client. Tokens issued before stay valid until they expire. */
  async rotate(id: string): Promise<{ client: ClientSummary; secret: string }> {
    const state = stateOf(await this.#existing(id), this.#now().getTime());
    if (state !== "active")
      throw new ClientRuleError(
        `client ${id} is ${state}; only an active client's secret can be rotated`,
      );
    const secret = newClientSecret();
    const rotated = await this.#deps.store.replaceSecret(id, await hashSecret(secret), this.#now());
    if (!rotated) throw new ClientRuleError(`client ${id} is no longer active`);
    return { client: this.#summary(rotated), secret };
  }

  /**
   * Idempotent: revoking a revoked client publishes its revocation again (repairs a failed
   * propagation).
   */
  async revoke(id: string): Promise<{ client: ClientSummary; propagation: Propagation }> {
    const revoked = await this.#deps.store.revoke(id, this.#now());
    if (!revoked) throw new ClientNotFoundError(id);
    return { client: this.#summary(revoked), propagation: await this.#propagate(revoked) };
  }

  /**
   * Sets the expiry (now by default, or another instant); an expired or revoked client stays so.
   */
  async expire(
    id: string,
    at?: Date,
  ): Promise<{ client: ClientSummary; propagation: Propagation }> {
    const state = stateOf(await this.#existing(id), this.#now().getTime());
    if (state !== "active") throw new ClientRuleError(`client ${id} is already ${state}`);
    const when = at ?? this.#now();
    if (Number.isNaN(when.getTime()))
      throw new ClientRuleError("the expiry is not a valid instant");
    const expired = await this.#deps.store.setExpiry(id, when);
    if (!expired) throw new ClientNotFoundError(id);
    return { client: this.#summary(expired), propagation: await this.#propagate(expired) };
  }

  #summary(client: ClientRecord): ClientSummary {
    const { secretHash: _hidden, ...rest } = client;
    return { ...rest, state: stateOf(client, this.#now().getTime()) };
  }

  async #existing(id: string): Promise<ClientRecord> {
    const client = await this.#deps.store.find(id);
    if (!client) throw new ClientNotFoundError(id);
    return client;
  }

  async #propagate(client: ClientRecord): Promise<Propagation> {
    const revocation = revocationOf(client);
    if (!revocation) return { propagated: true };
    try {
      await this.#deps.publish(revocation);
      return { propagated: true };
    } catch (error) {
      return { propagated: false, error };
    }
  }
}
