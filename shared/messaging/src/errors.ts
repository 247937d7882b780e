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
 * The responder was reached but its handler failed. A fault on the other side (a 500 there) is not
 * an outage, so callers should not blindly retry it as if it were a 503; a refusal in the
 * contract's terms carries its status (`remoteCode`) and error code (`remoteErrorCode`, such as
 * LEGACY_SOURCE_UNAVAILABLE).
 */
export class MessagingRemoteError extends Error {
  readonly code = "MESSAGING_REMOTE_ERROR";
  readonly subject: string;
  readonly remoteCode: number;
  readonly remoteErrorCode: string | undefined;
  constructor(subject: string, remoteCode: number, description: string, remoteErrorCode?: string) {
    super(`responder on ${subject} failed (${remoteCode}): ${description}`);
    this.name = "MessagingRemoteError";
    this.subject = subject;
    this.remoteCode = remoteCode;
    this.remoteErrorCode = remoteErrorCode;
  }
}
