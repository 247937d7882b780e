import type { Logger } from "@svc/logging";
import { watchKv, type KV, type KvChange, type KvWatcher } from "@svc/messaging";
import { clientIdOfKey, parseRevocation, type ClientRevocation } from "./revocation-record.ts";
import type { AccessToken, RevocationView } from "./verifier.ts";

export interface RevocationWatchOptions {
  /** The revocations bucket, opened with REVOCATION_BUCKET_OPTIONS. */
  kv: KV;
  logger: Logger;
  /**
   * How long the list may go unconfirmed (bucket unreachable, watch broken) before `status`
   * answers "unknown" (the verifier's 503). Revocations already known keep answering "revoked".
   */
  maxStalenessMs?: number;
  /** How often the bucket's head is compared with what the watch has delivered. */
  probeIntervalMs?: number;
  /**
   * A watch that stays behind the bucket's head (or never finishes loading) this long is restarted.
   */
  restartAfterMs?: number;
  now?: () => number;
}

export interface RevocationWatchHealth {
  loaded: boolean;
  /** Milliseconds since the list was last confirmed complete; null before the first load. */
  confirmedAgoMs: number | null;
  entries: number;
}

/** A RevocationView over the watched bucket, answering from memory (no I/O per request). */
export interface RevocationWatch extends RevocationView {
  /** Resolves once the bucket's contents have been loaded completely for the first time. */
  readonly loaded: Promise<void>;
  isLoaded(): boolean;
  health(): RevocationWatchHealth;
  get(clientId: string): ClientRevocation | undefined;
  /** Called for every revocation written while watching (not for those loaded at the start). */
  onRevocation(listener: (revocation: ClientRevocation) => void): void;
  stop(): Promise<void>;
}

/** One run of the KV watch; a restart starts a new one and adopts its map once it has loaded. */
interface Generation {
  map: Map<string, ClientRevocation>;
  seen: number;
  startedAt: number;
  watcher?: KvWatcher;
}

/**
 * Semantics (the auth README, "Revocation everywhere within seconds"): before the first complete
 * load every token is "unknown" (503): a fresh process cannot tell a revoked token from a good one.
 * After it, the last known list is kept while NATS reconnects, for at most `maxStalenessMs` since
 * the list was last confirmed to hold everything in the bucket; after that "unknown" again (fail
 * closed), except for clients already known to be revoked, which stay "revoked".
 */
export function watchRevocations(options: RevocationWatchOptions): RevocationWatch {
  return new KvRevocationWatch(options);
}

class KvRevocationWatch implements RevocationWatch {
  readonly loaded: Promise<void>;
  readonly #kv: KV;
  readonly #logger: Logger;
  readonly #maxStalenessMs: number;
  readonly #restartAfterMs: number;
  readonly #now: () => number;
  readonly #listeners: Array<(revocation: ClientRevocation) => void> = [];
  readonly #timer: NodeJS.Timeout;
  #markLoaded: () => void = () => {};
  #live = new Map<string, ClientRevocation>();
  #isLoaded = false;
  #confirmedAt = Number.NEGATIVE_INFINITY;
  #current: Generation | undefined;
  /** The bucket's head seen by a probe the watch had not yet reached, and when it was seen. */
  #target: { seq: number; at: number } | undefined;
  #probing = false;
  #probeFailing = false;
  #stopped = false;

  constructor(options: RevocationWatchOptions) {
    this.#kv = options.kv;
    this.#logger = options.logger;
    this.#maxStalenessMs = options.maxStalenessMs ?? 60_000;
    this.#restartAfterMs = options.restartAfterMs ?? 5_000;
    this.#now = options.now ?? Date.now;
    this.loaded = new Promise<void>((resolve) => (this.#markLoaded = resolve));
    const probeIntervalMs = options.probeIntervalMs ?? 1_000;
    this.#timer = setInterval(() => void this.#probe(probeIntervalMs * 2), probeIntervalMs).unref();
    void this.#startGeneration();
  }

  status(token: AccessToken): "valid" | "revoked" | "unknown" {
    const now = this.#now();
    const entry = this.#live.get(token.clientId);
    if (entry && now >= entry.notAfterMs) return "revoked";
    if (!this.#isLoaded || now - this.#confirmedAt > this.#maxStalenessMs) return "unknown";
    return "valid";
  }

  isLoaded(): boolean {
    return this.#isLoaded;
  }

  health(): RevocationWatchHealth {
    return {
      loaded: this.#isLoaded,
      confirmedAgoMs: this.#isLoaded ? this.#now() - this.#confirmedAt : null,
      entries: this.#live.size,
    };
  }

  get(clientId: string): ClientRevocation | undefined {
    return this.#live.get(clientId);
  }

  onRevocation(listener: (revocation: ClientRevocation) => void): void {
    this.#listeners.push(listener);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#current?.watcher?.stop().catch(() => {});
  }

  async #startGeneration(): Promise<void> {
    const generation: Generation = { map: new Map(), seen: 0, startedAt: this.#now() };
    const previous = this.#current;
    this.#current = generation;
    this.#target = undefined;
    await previous?.watcher?.stop().catch(() => {});
    try {
      // Values are parsed here, not by watchKv, so a value this version rejects still counts as
      // seen.
      generation.watcher = await watchKv<unknown>(this.#kv, {
        logger: this.#logger,
        onChange: (change) => this.#apply(generation, change),
      });
    } catch (err) {
      this.#logger.warn({ err }, "revocation watch could not start; retrying");
      if (this.#current === generation) this.#current = undefined;
      return;
    }
    if (this.#stopped) return void (await generation.watcher.stop());
    void generation.watcher.ready.then(() => this.#adopt(generation));
  }

  #adopt(generation: Generation): void {
    if (this.#stopped || this.#current !== generation) return;
    this.#live = generation.map;
    // Everything written before the watch started is in the map now.
    this.#confirmedAt = Math.max(this.#confirmedAt, generation.startedAt);
    if (!this.#isLoaded) {
      this.#isLoaded = true;
      this.#markLoaded();
      this.#logger.info({ entries: generation.map.size }, "revocation list loaded");
    }
  }

  #apply(generation: Generation, change: KvChange<unknown>): void {
    generation.seen = Math.max(generation.seen, change.revision);
    const clientId = clientIdOfKey(change.key);
    if (clientId !== undefined && change.value === null) generation.map.delete(clientId);
    else if (clientId !== undefined) this.#record(generation, clientId, change);
    if (this.#target && this.#live === generation.map && generation.seen >= this.#target.seq) {
      this.#confirmedAt = this.#target.at;
      this.#target = undefined;
    }
  }

  #record(generation: Generation, clientId: string, change: KvChange<unknown>): void {
    let revocation: ClientRevocation;
    try {
      revocation = parseRevocation(change.value);
      if (revocation.clientId !== clientId) throw new TypeError("client_id does not match the key");
    } catch (err) {
      this.#logger.error(
        { err, key: change.key, revision: change.revision },
        "revocation record rejected; skipped",
      );
      return;
    }
    generation.map.set(clientId, revocation);
    if (!change.isUpdate) return;
    for (const listener of this.#listeners) listener(revocation);
  }

  /** Confirms the list against the bucket's head, or restarts a watch that fell behind. */
  async #probe(timeoutMs: number): Promise<void> {
    if (this.#probing || this.#stopped) return;
    this.#probing = true;
    try {
      const generation = this.#current;
      const startedAt = this.#now();
      if (!generation) return await this.#startGeneration();
      const adopted = this.#live === generation.map;
      if (!adopted && startedAt - generation.startedAt >= this.#restartAfterMs)
        return await this.#restart("initial load did not finish");
      const state = (await withTimeout(this.#kv.status(), timeoutMs)).streamInfo.state;
      this.#probeRecovered();
      if (!adopted || generation !== this.#current) return;
      // Sequences only grow; a head below what was seen means the bucket was deleted and made anew.
      if (state.last_seq < generation.seen) return await this.#restart("the bucket was recreated");
      if (state.messages === 0 || generation.seen >= state.last_seq) {
        this.#confirmedAt = startedAt;
        this.#target = undefined;
        return;
      }
      this.#target ??= { seq: state.last_seq, at: startedAt };
      if (startedAt - this.#target.at >= this.#restartAfterMs)
        await this.#restart("watch fell behind the bucket");
    } catch (err) {
      this.#probeFailed(err);
    } finally {
      this.#probing = false;
    }
  }

  async #restart(reason: string): Promise<void> {
    this.#logger.warn({ reason }, "restarting the revocation watch");
    await this.#startGeneration();
  }

  #probeFailed(err: unknown): void {
    if (this.#probeFailing) return;
    this.#probeFailing = true;
    this.#logger.warn(
      { err, max_staleness_ms: this.#maxStalenessMs },
      "revocation bucket unreachable; keeping the last known list",
    );
  }

  #probeRecovered(): void {
    if (!this.#probeFailing) return;
    this.#probeFailing = false;
    this.#logger.info({}, "revocation bucket reachable again");
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
