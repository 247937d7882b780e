import type { RequestHandler, Response } from "express";
import { DomainError, ValidationError } from "@svc/errors";
import type { Logger } from "@svc/logging";
import { sleep } from "@svc/time";
import type { IdempotencyRecordId, IdempotencyStore, Reservation } from "../domain/ports.ts";
import {
  BodyTooDeepError,
  hashKey,
  isValidIdempotencyKey,
  requestFingerprint,
} from "./request-fingerprint.ts";

export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";
export const REPLAYED_HEADER = "Idempotent-Replayed";

/** A request with the same key is still running after we waited for it (our 409 code). */
export class IdempotentRequestInProgressError extends DomainError {
  constructor() {
    super(
      409,
      "IDEMPOTENT_REQUEST_IN_PROGRESS",
      "a request with this Idempotency-Key is still being processed; retry shortly",
      { headers: { "Retry-After": "1" } },
    );
  }
}

export interface IdempotencyOptions {
  store: IdempotencyStore;
  /** The key space of a request: keys are per client (the verified token's client id). */
  clientOf: (res: Response) => string;
  /** How long a key and its response are kept (at least 24 h). */
  ttlMs: number;
  now: () => Date;
  logger: Logger;
  /** How long a request waits for a concurrent one with the same key before answering 409. */
  waitMs?: number;
  /** How long a running request holds its key before a retry may take over (a crashed process). */
  leaseMs?: number;
}

const keyReused = () =>
  new ValidationError([
    {
      field: IDEMPOTENCY_KEY_HEADER,
      message: "was already used with a different request; use a new key",
    },
  ]);

/**
 * Idempotency-Key support (our reading where the contract is silent) for a JSON POST route, placed
 * after the scope guard and before the handler:
 *
 * - no header: the request runs as usual; a header that is not 1–255 printable ASCII: 422.
 * - first use: the key is taken (one row per client and key), the handler runs, and a 2xx response
 *   is stored with the key for `ttlMs`; any other outcome (422, 503, 500…) releases the key, so
 *   the client can fix the request and use the same key again.
 * - same key, same request: the stored status and body are replayed with
 *   `Idempotent-Replayed: true`; while the first is still running the retry waits for it (never a
 *   second execution).
 * - same key, another request: 422 VALIDATION_ERROR naming the Idempotency-Key header.
 */
export function idempotency(options: IdempotencyOptions): RequestHandler {
  return async (req, res, next) => {
    const key = req.get(IDEMPOTENCY_KEY_HEADER);
    if (key === undefined) return next();
    if (!isValidIdempotencyKey(key))
      throw new ValidationError([
        { field: IDEMPOTENCY_KEY_HEADER, message: "must be 1 to 255 printable ASCII characters" },
      ]);
    const id: IdempotencyRecordId = { clientId: options.clientOf(res), keyHash: hashKey(key) };
    const turn = await waitForTurn(
      options,
      id,
      fingerprintOf(req.method, `${req.baseUrl}${req.path}`, req.body),
    );
    if (turn.kind === "completed") {
      res
        .status(turn.response.status)
        .set(REPLAYED_HEADER, "true")
        .type("application/json")
        .send(turn.response.body);
      return;
    }
    settleWithResponse(res, options, id, turn.lockedUntil);
    next();
  };
}

/** A body too deep to fingerprint is no request body of this service: 422, not a stack overflow. */
function fingerprintOf(method: string, path: string, body: unknown): Buffer {
  try {
    return requestFingerprint(method, path, body);
  } catch (err) {
    if (err instanceof BodyTooDeepError)
      throw new ValidationError([{ field: "body", message: err.message }]);
    throw err;
  }
}

/** This request runs, holding the key until `lockedUntil`, or replays the stored response. */
type Turn = { kind: "reserved"; lockedUntil: Date } | Extract<Reservation, { kind: "completed" }>;

async function waitForTurn(
  options: IdempotencyOptions,
  id: IdempotencyRecordId,
  requestHash: Buffer,
): Promise<Turn> {
  const deadline = Date.now() + (options.waitMs ?? 10_000);
  for (let pause = 10; ; pause = Math.min(pause * 2, 200)) {
    const now = options.now();
    const lockedUntil = new Date(now.getTime() + (options.leaseMs ?? 60_000));
    const turn = await options.store.reserve({
      ...id,
      requestHash,
      now,
      expiresAt: new Date(now.getTime() + options.ttlMs),
      lockedUntil,
    });
    if (turn.kind === "reserved") return { kind: "reserved", lockedUntil };
    // A running request with another body may still fail and free the key: a stored one is final.
    if (turn.kind === "completed") {
      if (!turn.requestHash.equals(requestHash)) throw keyReused();
      return turn;
    }
    if (Date.now() >= deadline)
      throw turn.requestHash.equals(requestHash)
        ? new IdempotentRequestInProgressError()
        : keyReused();
    await sleep(pause);
  }
}

/**
 * Stores or releases the key when the response is ready, before it is sent: once a client has a
 * response, a retry with the key finds it. Every response of these routes goes through res.json
 * (sendData and the error middleware).
 */
function settleWithResponse(
  res: Response,
  options: IdempotencyOptions,
  id: IdempotencyRecordId,
  lockedUntil: Date,
): void {
  const sendJson = res.json.bind(res);
  res.json = ((body: unknown) => {
    const status = res.statusCode;
    const stored = status >= 200 && status < 300;
    const settled = stored
      ? storeResponse(options, id, { status, body: JSON.stringify(body) })
      : releaseKey(options, id, lockedUntil);
    // A 5xx may be the key store's database failing or hanging: releasing would wait out the
    // same timeout once more. It is answered at once; until the release lands, a retry with the
    // key waits for it as for any running request.
    if (!stored && status >= 500) sendJson(body);
    else void settled.finally(() => sendJson(body));
    return res;
  }) as Response["json"];
}

/** A 2xx kept with the key. If storing fails, the key stays held until its lease ends. */
function storeResponse(
  options: IdempotencyOptions,
  id: IdempotencyRecordId,
  response: { status: number; body: string },
): Promise<void> {
  return options.store
    .complete(id, response)
    .catch((err: unknown) =>
      options.logger.warn(
        { error_name: (err as Error).name, status: response.status },
        "idempotency record not updated",
      ),
    );
}

/**
 * Frees the key of a request that failed; resolves after the first attempt. The client was told it
 * may retry with the same key, so a failed release (the database is down, often why the request
 * failed) is retried in the background until it lands or the lease ends: otherwise every retry
 * would wait for a 409 for the rest of the lease.
 */
function releaseKey(
  options: IdempotencyOptions,
  id: IdempotencyRecordId,
  lockedUntil: Date,
): Promise<void> {
  return options.store.release(id).catch((err: unknown) => {
    options.logger.warn(
      { error_name: (err as Error).name },
      "idempotency key not released; retrying until its lease ends",
    );
    void retryRelease(options, id, lockedUntil);
  });
}

async function retryRelease(
  options: IdempotencyOptions,
  id: IdempotencyRecordId,
  lockedUntil: Date,
): Promise<void> {
  for (
    let pause = 250;
    options.now().getTime() < lockedUntil.getTime();
    pause = Math.min(pause * 2, 5_000)
  ) {
    // Unreferenced: a process shutting down does not wait for a key its lease will free anyway.
    await new Promise<void>((resolve) => setTimeout(resolve, pause).unref());
    const released = await options.store.release(id).then(
      () => true,
      () => false,
    );
    if (released) return options.logger.info({}, "idempotency key released on a later attempt");
  }
  options.logger.warn({}, "idempotency key not released; held until its lease ends");
}
