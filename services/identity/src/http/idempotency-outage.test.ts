import { afterAll, beforeAll, describe, expect, it } from "vitest";
import express from "express";
import { createHttpApp, sendData } from "@svc/http";
import { DependencyUnavailableError } from "@svc/errors";
import { fetchJson, silentLogger, startApp, type StartedApp } from "@svc/testing";
import { idempotency } from "./idempotency-middleware.ts";
import type {
  IdempotencyRecordId,
  IdempotencyStore,
  Reservation,
  ReserveInput,
  StoredResponse,
} from "../domain/ports.ts";

/** Keys held in memory; each outage below differs only in how releasing a key behaves. */
abstract class HeldKeysStore implements IdempotencyStore {
  readonly held = new Set<string>();
  protected idOf = (id: IdempotencyRecordId) => `${id.clientId}:${id.keyHash.toString("hex")}`;
  async reserve(input: ReserveInput): Promise<Reservation> {
    if (this.held.has(this.idOf(input)))
      return { kind: "in_progress", requestHash: input.requestHash };
    this.held.add(this.idOf(input));
    return { kind: "reserved" };
  }
  async complete(_id: IdempotencyRecordId, _response: StoredResponse) {}
  abstract release(id: IdempotencyRecordId): Promise<void>;
  async pruneExpired() {
    return 0;
  }
}

/**
 * The database behind the keys hangs: the request fails with 503 after its query timeout, and
 * releasing its key would wait out the same timeout once more. The 503 must not wait for it.
 */
class HangingReleaseStore extends HeldKeysStore {
  releasing: Promise<void> | undefined;
  open: () => void = () => {};
  release(id: IdempotencyRecordId): Promise<void> {
    this.releasing = new Promise<void>((resolve) => (this.open = resolve)).then(
      () => void this.held.delete(this.idOf(id)),
    );
    return this.releasing;
  }
}

/** The database is down when the request fails: releasing its key fails too, until it is back. */
class DownReleaseStore extends HeldKeysStore {
  down = true;
  async release(id: IdempotencyRecordId) {
    if (this.down)
      throw new DependencyUnavailableError(
        "the service database",
        new Error("connect ECONNREFUSED"),
      );
    this.held.delete(this.idOf(id));
  }
}

const store = new HangingReleaseStore();
const downStore = new DownReleaseStore();
let app: StartedApp;
let failing = true;

beforeAll(async () => {
  const routes = express.Router();
  const guard: express.RequestHandler = (_req, res, next) => {
    res.locals.auth = { clientId: "c1" };
    next();
  };
  const options = {
    clientOf: (res: express.Response) => String(res.locals.auth.clientId),
    ttlMs: 86_400_000,
    now: () => new Date(),
    logger: silentLogger(),
    waitMs: 5_000,
  };
  const handler: express.RequestHandler = (_req, res) => {
    if (failing)
      throw new DependencyUnavailableError("the service database", new Error("Query read timeout"));
    sendData(res, { ok: true }, { status: 201 });
  };
  routes.post("/things", guard, idempotency({ store, ...options }), handler);
  routes.post("/down", guard, idempotency({ store: downStore, ...options }), handler);
  app = await startApp(
    createHttpApp({
      platform: { service: "t", version: "0.0.0", environment: "sandbox" },
      logger: silentLogger(),
      routes,
    }),
  );
});
afterAll(() => app.close());

const post = (path = "/things") =>
  fetchJson<{ error?: { code: string } }>(`${app.baseUrl}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Idempotency-Key": "k-outage" },
    body: "{}",
  });

describe("Idempotency-Key when the database fails the request", () => {
  it("answers the 503 without waiting for the key's release, and frees the key once the release lands", async () => {
    const started = Date.now();
    const first = await post();
    expect(first.status).toBe(503);
    expect(first.body.error?.code).toBe("SERVICE_UNAVAILABLE");
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(store.releasing).toBeDefined();
    // The database answers again: the release lands and the same key runs the request anew.
    failing = false;
    store.open();
    await store.releasing;
    expect((await post()).status).toBe(201);
  });

  it("keeps releasing the key of a failed request while the database is down, so a retry runs once it is back", async () => {
    failing = true;
    expect((await post("/down")).status).toBe(503);
    expect(downStore.held.size).toBe(1);
    // The database comes back: a later attempt frees the key (it is not left held for the lease).
    downStore.down = false;
    for (const deadline = Date.now() + 5_000; downStore.held.size > 0 && Date.now() < deadline;)
      await new Promise((r) => setTimeout(r, 20));
    expect(downStore.held.size).toBe(0);
    failing = false;
    expect((await post("/down")).status).toBe(201);
  });
});
