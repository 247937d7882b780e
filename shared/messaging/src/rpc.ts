import { errors } from "@nats-io/transport-node";
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
} from "@opentelemetry/api";
import { DomainError } from "@svc/errors";
import type { Msg, MsgHdrs, NatsConnection, Subscription } from "@nats-io/transport-node";
import { concurrencyLimit } from "./concurrency-limit.ts";
import { MessagingRemoteError, MessagingUnavailableError } from "./errors.ts";
import { getHeader, makeHeaders, natsHeaderGetter, natsHeaderSetter } from "./headers.ts";
import type { Logger } from "@svc/logging";

const tracer = trace.getTracer("@svc/messaging");

/** The messaging semantic conventions' attributes of a request/reply span. */
const spanAttributes = (subject: string, operation: "send" | "process") => ({
  "messaging.system": "nats",
  "messaging.destination.name": subject,
  "messaging.operation.type": operation,
  "messaging.operation.name": operation === "send" ? "request" : "reply",
});

function failed(span: Span, errorType: string, err?: unknown): void {
  span.setAttribute("error.type", errorType);
  if (err instanceof Error) span.recordException(err);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

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
 * Inside a traced operation the request is a CLIENT span whose W3C context travels in the request's
 * headers, so the responder's span is its child.
 */
export async function request<Res = unknown, Req = unknown>(
  nc: NatsConnection,
  subject: string,
  payload: Req,
  options: RequestOptions<Res>,
): Promise<Res> {
  const active = context.active();
  // Only within a traced operation: a request outside any would be a trace of one span.
  const span = trace.getSpan(active)
    ? tracer.startSpan(
        `request ${subject}`,
        { kind: SpanKind.CLIENT, attributes: spanAttributes(subject, "send") },
        active,
      )
    : undefined;
  try {
    return await requestIn(nc, subject, payload, options, span);
  } finally {
    span?.end();
  }
}

async function requestIn<Res, Req>(
  nc: NatsConnection,
  subject: string,
  payload: Req,
  options: RequestOptions<Res>,
  span: Span | undefined,
): Promise<Res> {
  let reply: Msg;
  const headers = makeHeaders({ [TIMEOUT_HEADER]: String(options.timeoutMs) });
  for (const [name, values] of options.headers ?? []) {
    for (const value of values) headers.append(name, value);
  }
  if (span) propagation.inject(trace.setSpan(context.active(), span), headers, natsHeaderSetter);
  try {
    reply = await nc.request(subject, JSON.stringify(payload), {
      timeout: options.timeoutMs,
      headers,
    });
  } catch (err) {
    const cause = unavailable(subject, err);
    if (span)
      failed(span, cause instanceof MessagingUnavailableError ? cause.reason : "error", cause);
    throw cause;
  }
  const code = getHeader(reply.headers, ERROR_CODE_HEADER);
  if (code !== undefined) {
    const remote = new MessagingRemoteError(
      subject,
      Number(code),
      getHeader(reply.headers, ERROR_HEADER) ?? "",
      getHeader(reply.headers, DOMAIN_CODE_HEADER),
    );
    if (span) failed(span, remote.remoteErrorCode ?? code, remote);
    throw remote;
  }
  try {
    const decoded: unknown = JSON.parse(reply.string());
    return options.parse ? options.parse(decoded) : (decoded as Res);
  } catch (err) {
    const invalid = new MessagingRemoteError(
      subject,
      502,
      `invalid reply: ${(err as Error).message}`,
    );
    if (span) failed(span, "invalid_reply", invalid);
    throw invalid;
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

/**
 * A request that carries a trace context is answered in a SERVER span, its child, and the
 * handler's work (legacy queries, ...) below that span; one without starts no trace here.
 */
async function answerOne<Req, Res>(
  msg: Msg,
  handler: (data: Req, context: RequestContext) => Promise<Res> | Res,
  options: ServeOptions<Req>,
): Promise<void> {
  const parent = msg.headers
    ? propagation.extract(ROOT_CONTEXT, msg.headers, natsHeaderGetter)
    : ROOT_CONTEXT;
  if (!trace.getSpanContext(parent)) return answerIn(msg, handler, options, undefined);
  const span = tracer.startSpan(
    `reply ${msg.subject}`,
    { kind: SpanKind.SERVER, attributes: spanAttributes(msg.subject, "process") },
    parent,
  );
  try {
    await context.with(trace.setSpan(parent, span), () => answerIn(msg, handler, options, span));
  } finally {
    span.end();
  }
}

async function answerIn<Req, Res>(
  msg: Msg,
  handler: (data: Req, context: RequestContext) => Promise<Res> | Res,
  options: ServeOptions<Req>,
  span: Span | undefined,
): Promise<void> {
  let data: Req;
  try {
    const decoded: unknown = JSON.parse(msg.string());
    data = options.parse ? options.parse(decoded) : (decoded as Req);
  } catch (err) {
    options.logger.warn({ subject: msg.subject, err }, "rejected malformed request");
    if (span) failed(span, "invalid_request");
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
      if (span) failed(span, err.code, err);
      return respondError(msg, err.status, err.message, err.code);
    }
    options.logger.error({ subject: msg.subject, err }, "request handler failed");
    if (span) failed(span, "internal_error", err);
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
