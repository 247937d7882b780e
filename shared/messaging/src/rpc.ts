import { errors } from "@nats-io/transport-node";
import { DomainError } from "@svc/errors";
import type { Msg, MsgHdrs, NatsConnection, Subscription } from "@nats-io/transport-node";
import { concurrencyLimit } from "./concurrency-limit.ts";
import { MessagingRemoteError, MessagingUnavailableError } from "./errors.ts";
import { getHeader, makeHeaders } from "./headers.ts";
import type { Logger } from "./logger.ts";

// The NATS services (micro) convention for error replies, so `nats req` shows them too.
const ERROR_HEADER = "Nats-Service-Error";
const ERROR_CODE_HEADER = "Nats-Service-Error-Code";
/** The contract's error code of a DomainError the responder threw (e.g. the legacy source's). */
const DOMAIN_CODE_HEADER = "Svc-Error-Code";
/** How long the requester waits: a responder can give up, and say why, before it stops waiting. */
const TIMEOUT_HEADER = "Svc-Timeout-Ms";

export type RequestOptions<Res> = {
  timeoutMs: number;
  headers?: MsgHdrs;
  /** Validates the decoded reply, e.g. a zod schema's `parse`. */
  parse?: (data: unknown) => Res;
};

/**
 * Sends a JSON request and returns the decoded JSON reply. Throws MessagingUnavailableError when
 * nobody answers in time, nobody listens, or the connection is closing (callers answer 503), and
 * MessagingRemoteError when the responder reported a failure (with the contract's error code when
 * it was a DomainError, so the caller can answer with the real cause).
 */
export async function request<Res = unknown, Req = unknown>(
  nc: NatsConnection,
  subject: string,
  payload: Req,
  options: RequestOptions<Res>,
): Promise<Res> {
  let reply: Msg;
  const headers = makeHeaders({ [TIMEOUT_HEADER]: String(options.timeoutMs) });
  for (const [name, values] of options.headers ?? []) {
    for (const value of values) headers.append(name, value);
  }
  try {
    reply = await nc.request(subject, JSON.stringify(payload), {
      timeout: options.timeoutMs,
      headers,
    });
  } catch (err) {
    throw unavailable(subject, err);
  }
  const code = getHeader(reply.headers, ERROR_CODE_HEADER);
  if (code !== undefined) {
    throw new MessagingRemoteError(
      subject,
      Number(code),
      getHeader(reply.headers, ERROR_HEADER) ?? "",
      getHeader(reply.headers, DOMAIN_CODE_HEADER),
    );
  }
  try {
    const decoded: unknown = JSON.parse(reply.string());
    return options.parse ? options.parse(decoded) : (decoded as Res);
  } catch (err) {
    throw new MessagingRemoteError(subject, 502, `invalid reply: ${(err as Error).message}`);
  }
}

function unavailable(subject: string, err: unknown): unknown {
  if (err instanceof errors.TimeoutError)
    return new MessagingUnavailableError(subject, "timeout", { cause: err });
  if (
    err instanceof errors.NoRespondersError ||
    (err instanceof errors.RequestError && err.isNoResponders())
  ) {
    return new MessagingUnavailableError(subject, "no_responders", { cause: err });
  }
  const cause = err instanceof errors.RequestError ? err.cause : err;
  if (cause instanceof errors.PermissionViolationError) return err;
  if (
    err instanceof errors.ClosedConnectionError ||
    err instanceof errors.DrainingConnectionError ||
    err instanceof errors.RequestError
  ) {
    return new MessagingUnavailableError(subject, "connection_closed", { cause: err });
  }
  return err;
}

export type ServeOptions<Req> = {
  /** Queue group: each request goes to one member, so replicas share the load. */
  queue: string;
  logger: Logger;
  /** Most requests handled at once by this process; default 32. */
  concurrency?: number;
  /** Validates the decoded request; a failure is answered with code 400. */
  parse?: (data: unknown) => Req;
};

export type RequestContext = {
  subject: string;
  headers: MsgHdrs | undefined;
  /** How long the requester waits for this answer (undefined: it did not say). */
  timeoutMs: number | undefined;
};

export type Responder = {
  /** Stops taking requests, answers those already received, then resolves. */
  stop(): Promise<void>;
};

/** Answers JSON requests on `subject` as one member of the queue group `queue`. */
export function serve<Req = unknown, Res = unknown>(
  nc: NatsConnection,
  subject: string,
  handler: (data: Req, context: RequestContext) => Promise<Res> | Res,
  options: ServeOptions<Req>,
): Responder {
  const sub = nc.subscribe(subject, { queue: options.queue });
  const slots = concurrencyLimit(options.concurrency ?? 32);
  const answer = (msg: Msg) => answerOne(msg, handler, options);
  const done = serveLoop(sub, slots, answer);
  let stopping: Promise<void> | undefined;
  return {
    stop() {
      stopping ??= (async () => {
        if (!sub.isClosed()) await sub.drain().catch(() => {});
        await done;
      })();
      return stopping;
    },
  };
}

async function serveLoop(
  sub: Subscription,
  slots: ReturnType<typeof concurrencyLimit>,
  answer: (msg: Msg) => Promise<void>,
): Promise<void> {
  try {
    for await (const msg of sub) {
      await slots.acquire();
      void answer(msg).finally(() => slots.release());
    }
  } finally {
    await slots.idle();
  }
}

async function answerOne<Req, Res>(
  msg: Msg,
  handler: (data: Req, context: RequestContext) => Promise<Res> | Res,
  options: ServeOptions<Req>,
): Promise<void> {
  let data: Req;
  try {
    const decoded: unknown = JSON.parse(msg.string());
    data = options.parse ? options.parse(decoded) : (decoded as Req);
  } catch (err) {
    options.logger.warn({ subject: msg.subject, err }, "rejected malformed request");
    return respondError(msg, 400, "invalid request");
  }
  try {
    const result = await handler(data, {
      subject: msg.subject,
      headers: msg.headers,
      timeoutMs: timeoutOf(msg.headers),
    });
    msg.respond(JSON.stringify(result ?? null));
  } catch (err) {
    if (err instanceof DomainError) {
      // An expected failure in the contract's terms (the legacy source is down): the requester
      // learns its code and answers with the real cause.
      options.logger.warn({ subject: msg.subject, code: err.code, err }, "request refused");
      return respondError(msg, err.status, err.message, err.code);
    }
    options.logger.error({ subject: msg.subject, err }, "request handler failed");
    // The cause stays in this process's log; the requester only learns that it failed.
    respondError(msg, 500, "internal error");
  }
}

function timeoutOf(headers: MsgHdrs | undefined): number | undefined {
  const ms = Number(getHeader(headers, TIMEOUT_HEADER));
  return Number.isInteger(ms) && ms > 0 ? ms : undefined;
}

function respondError(msg: Msg, code: number, description: string, domainCode?: string): void {
  msg.respond("", {
    headers: makeHeaders({
      [ERROR_HEADER]: description,
      [ERROR_CODE_HEADER]: String(code),
      ...(domainCode !== undefined && { [DOMAIN_CODE_HEADER]: domainCode }),
    }),
  });
}
