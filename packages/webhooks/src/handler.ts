/**
 * A request handler for node:http, node:https and Express that keeps the raw body, verifies the
 * delivery and hands the event over: 204 when your handler returns, 401 when the delivery is not
 * authentic (a 4xx is final: the service does not retry it), 500 when your handler throws (the
 * service retries).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { WebhookEvent } from "./generated/events.ts";
import { verify, WebhookVerificationError, type VerifyOptions } from "./verify.ts";

/** The delivery's own headers, for logs and for reading its record through the API. */
export type Delivery = { deliveryId: string | undefined; timestamp: string | undefined };

export type HandlerOptions = VerifyOptions & {
  /** Handle one authentic event; deduplicate on `event.event_uuid` (delivery is at least once). */
  onEvent(event: WebhookEvent, delivery: Delivery): void | Promise<void>;
  /** Called with what went wrong when a request is refused or onEvent throws. */
  onError?(error: unknown): void;
  /** Largest body accepted (default 1 MiB); a larger one is answered 413. */
  maxBodyBytes?: number;
};

type Request = IncomingMessage & { body?: unknown };

class BodyError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

async function rawBodyOf(req: Request, limit: number): Promise<Buffer> {
  // Behind express.raw() or express.text() the body is already read, unparsed.
  if (Buffer.isBuffer(req.body)) return req.body;
  if (typeof req.body === "string") return Buffer.from(req.body, "utf8");
  if (req.body !== undefined || req.readableEnded)
    throw new BodyError(
      500,
      "the body was parsed before verification: mount before express.json()",
    );
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BodyError(413, "body too large");
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function answer(res: ServerResponse, status: number, text?: string): void {
  if (res.headersSent) return;
  res.writeHead(status, text ? { "content-type": "text/plain; charset=utf-8" } : {});
  res.end(text);
}

/** `(req, res) => void` for `http.createServer(handler)` or `app.post(path, handler)`. */
export function createWebhookHandler(
  options: HandlerOptions,
): (req: Request, res: ServerResponse) => void {
  const limit = options.maxBodyBytes ?? 1024 * 1024;
  const handle = async (req: Request, res: ServerResponse): Promise<void> => {
    if (req.method !== "POST") return answer(res, 405, "POST only");
    let event: WebhookEvent;
    try {
      event = verify(await rawBodyOf(req, limit), req.headers, options);
    } catch (error) {
      if (!(error instanceof WebhookVerificationError || error instanceof BodyError)) throw error;
      options.onError?.(error);
      const status = error instanceof BodyError ? error.status : 401;
      return answer(res, status, error instanceof BodyError ? error.message : error.reason);
    }
    const header = (name: string) => req.headers[name] as string | undefined;
    await options.onEvent(event, {
      deliveryId: header("x-svc-delivery-id"),
      timestamp: header("x-svc-timestamp"),
    });
    answer(res, 204);
  };
  return (req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.onError?.(error);
      answer(res, 500, "the event could not be handled");
    });
  };
}
