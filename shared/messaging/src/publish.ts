import type { JetStreamClient, PubAck } from "@nats-io/jetstream";
import type { MsgHdrs } from "@nats-io/transport-node";
import { makeHeaders } from "./headers.ts";

export type PublishOptions = {
  /**
   * Becomes `Nats-Msg-Id`: the stream stores a message with an id it saw within its duplicate
   * window only once, and answers the repeat with `duplicate: true`. Use the event uuid, or
   * `${eventId}:${subscriptionId}` for deliveries.
   */
  msgId?: string;
  headers?: MsgHdrs | Record<string, string>;
  /** How long to wait for the stream's acknowledgement; default 5 s. */
  timeoutMs?: number;
};

/**
 * Publishes a JSON payload to a stream subject and waits until the stream has stored it. A
 * duplicate resolves too (with `duplicate: true` and the first copy's `seq`); it does not throw.
 * Rejects when no stream captures the subject, or on timeout: the caller must treat the message
 * as not sent (the outbox relay retries it later with the same msgId).
 */
export async function publish<T>(
  js: JetStreamClient,
  subject: string,
  payload: T,
  options: PublishOptions = {},
): Promise<PubAck> {
  const body = JSON.stringify(payload);
  if (body === undefined) throw new TypeError(`payload for ${subject} is not JSON-serialisable`);
  const headers =
    options.headers === undefined || isMsgHdrs(options.headers)
      ? options.headers
      : makeHeaders(options.headers);
  return js.publish(subject, body, {
    ...(options.msgId !== undefined && { msgID: options.msgId }),
    ...(headers !== undefined && { headers }),
    timeout: options.timeoutMs ?? 5_000,
  });
}

function isMsgHdrs(h: MsgHdrs | Record<string, string>): h is MsgHdrs {
  return typeof (h as MsgHdrs).keys === "function" && typeof (h as MsgHdrs).get === "function";
}
