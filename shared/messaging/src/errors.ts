/**
 * Another service could not be reached over NATS in time: nobody answered, no responder was
 * subscribed, or the connection is closed or draining. Callers answer 503, since a retry may work.
 */
export class MessagingUnavailableError extends Error {
  readonly code = "MESSAGING_UNAVAILABLE";
  readonly subject: string;
  readonly reason: "timeout" | "no_responders" | "connection_closed";
  constructor(
    subject: string,
    reason: MessagingUnavailableError["reason"],
    options?: { cause?: unknown },
  ) {
    super(`no reply on ${subject}: ${reason}`, options);
    this.name = "MessagingUnavailableError";
    this.subject = subject;
    this.reason = reason;
  }
}

/**
 * The responder was reached but its handler failed. It is a fault on the other side (usually a
 * 500 there), not an outage, so callers should not blindly retry it as if it were a 503.
 */
export class MessagingRemoteError extends Error {
  readonly code = "MESSAGING_REMOTE_ERROR";
  readonly subject: string;
  readonly remoteCode: number;
  constructor(subject: string, remoteCode: number, description: string) {
    super(`responder on ${subject} failed (${remoteCode}): ${description}`);
    this.name = "MessagingRemoteError";
    this.subject = subject;
    this.remoteCode = remoteCode;
  }
}
