import { afterAll, beforeAll, describe, expect, it } from "vitest";
import express from "express";
import { createHttpApp, sendData } from "@svc/http";
import { ValidationError } from "@svc/errors";
import { fetchJson, silentLogger, startApp, type StartedApp } from "@svc/testing";
import { idempotency } from "./idempotency-middleware.ts";
import type {
  IdempotencyRecordId,
  IdempotencyStore,
  Reservation,
  ReserveInput,
  StoredResponse,
} from "../domain/ports.ts";

/** The store's contract in memory, so the middleware's waiting and lease rules run in isolation. */
class MemoryStore implements IdempotencyStore {
  readonly rows = new Map<
    string,
    { requestHash: Buffer; response?: StoredResponse; expiresAt: Date; lockedUntil: Date }
  >();
  #id = (id: IdempotencyRecordId) => `${id.clientId}:${id.keyHash.toString("hex")}`;
  async reserve(input: ReserveInput): Promise<Reservation> {
    const row = this.rows.get(this.#id(input));
    const abandoned =
      row &&
      !row.response &&
      row.requestHash.equals(input.requestHash) &&
      row.lockedUntil <= input.now;
    if (!row || row.expiresAt <= input.now || abandoned) {
      this.rows.set(this.#id(input), {
        requestHash: input.requestHash,
        expiresAt: input.expiresAt,
        lockedUntil: input.lockedUntil,
      });
      return { kind: "reserved" };
    }
    return row.response
      ? { kind: "completed", requestHash: row.requestHash, response: row.response }
      : { kind: "in_progress", requestHash: row.requestHash };
  }
  async complete(id: IdempotencyRecordId, response: StoredResponse) {
    const row = this.rows.get(this.#id(id));
    if (row) row.response = response;
  }
  async release(id: IdempotencyRecordId) {
    this.rows.delete(this.#id(id));
  }
  async pruneExpired() {
    return 0;
  }
}

let app: StartedApp;
let executions = 0;
let gate: Promise<void> = Promise.resolve();
let now = new Date("2026-01-01T00:00:00Z");

beforeAll(async () => {
  const routes = express.Router();
  const guard: express.RequestHandler = (_req, res, next) => {
    res.locals.auth = { clientId: "c1" };
    next();
  };
  const mw = idempotency({
    store: new MemoryStore(),
    clientOf: (res) => String(res.locals.auth.clientId),
    ttlMs: 86_400_000,
    now: () => now,
    logger: silentLogger(),
    waitMs: 300,
    leaseMs: 60_000,
  });
  routes.post("/things", guard, mw, async (req, res) => {
    executions++;
    await gate;
    if (req.body.bad) throw new ValidationError([{ field: "bad", message: "is bad" }]);
    sendData(res, { n: executions }, { status: 201 });
  });
  app = await startApp(
    createHttpApp({
      platform: { service: "t", version: "0.0.0", environment: "sandbox" },
      logger: silentLogger(),
      routes,
    }),
  );
});
afterAll(() => app.close());

const post = (key: string, body: unknown) =>
  fetchJson<{ data: { n: number }; error: { code: string } }>(`${app.baseUrl}/things`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Idempotency-Key": key },
    body: JSON.stringify(body),
  });

/**
 * Waits until the previous request is inside the handler (holding the key), however slow the
 * machine.
 */
async function untilRunning(before: number): Promise<void> {
  while (executions === before) await new Promise((r) => setTimeout(r, 5));
}

function hold(): () => void {
  let open = () => {};
  gate = new Promise((resolve) => (open = resolve));
  return open;
}

describe("idempotency middleware", () => {
  it("makes a retry wait for the running request and replays its response", async () => {
    const open = hold();
    const running = executions;
    const first = post("k1", { a: 1 });
    await untilRunning(running);
    const retry = post("k1", { a: 1 });
    setTimeout(open, 100);
    const [a, b] = await Promise.all([first, retry]);
    expect(b.status).toBe(201);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(b.text).toBe(a.text);
  });

  it("answers 409 with Retry-After when the running request outlasts the wait", async () => {
    const open = hold();
    const running = executions;
    const first = post("k2", { a: 1 });
    await untilRunning(running);
    const retry = await post("k2", { a: 1 });
    open();
    expect(retry.status).toBe(409);
    expect(retry.body.error.code).toBe("IDEMPOTENT_REQUEST_IN_PROGRESS");
    expect(retry.headers.get("retry-after")).toBe("1");
    expect((await first).status).toBe(201);
  });

  it("lets a request with another body wait: the key is free again when the first one fails", async () => {
    const open = hold();
    const running = executions;
    const failing = post("k3", { bad: true });
    await untilRunning(running);
    const other = post("k3", { a: 2 });
    setTimeout(open, 50);
    expect((await failing).status).toBe(422);
    expect((await other).status).toBe(201);
  });

  it("answers 422 naming the body for a body nested thousands of levels deep", async () => {
    const res = await fetchJson<{ error: { code: string; details: Array<{ field: string }> } }>(
      `${app.baseUrl}/things`,
      {
        method: "POST",
        headers: { "Content-Type": "application/json", "Idempotency-Key": "deep" },
        body: `${'{"a":'.repeat(5_000)}1${"}".repeat(5_000)}`,
      },
    );
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(res.body.error.details.map((d) => d.field)).toEqual(["body"]);
  });

  it("lets the same request take over a key whose holder stopped answering past its lease", async () => {
    const open = hold();
    const running = executions;
    void post("k4", { a: 1 });
    await untilRunning(running);
    now = new Date(now.getTime() + 61_000);
    const before = executions;
    const takeover = post("k4", { a: 1 });
    setTimeout(open, 20);
    expect((await takeover).status).toBe(201);
    expect(executions).toBe(before + 1);
  });
});
