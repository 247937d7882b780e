import { randomBytes } from "node:crypto";
import { connectNats, getHeader, jetstream, jetstreamManager } from "@svc/messaging";
import { recordingLogger, sleep, waitFor } from "@svc/testing";
import type { JetStreamClient, JetStreamManager, NatsConnection } from "@svc/messaging";

/**
 * A namespace no other test file uses, so files share one NATS server without seeing each other.
 */
export function testNamespace(): string {
  return `t${randomBytes(5).toString("hex")}`;
}

export { recordingLogger, sleep, waitFor };

export async function connectForTest(
  servers: string,
  name: string,
): Promise<{ nc: NatsConnection; js: JetStreamClient; jsm: JetStreamManager }> {
  const nc = await connectNats({
    servers,
    name,
    logger: recordingLogger(),
    connectTimeoutMs: 2_000,
    reconnectTimeWaitMs: 100,
  });
  return { nc, js: jetstream(nc), jsm: await jetstreamManager(nc) };
}

export async function deleteNamespaceStreams(
  jsm: JetStreamManager,
  namespace: string,
): Promise<void> {
  const doomed: string[] = [];
  for await (const name of jsm.streams.names())
    if (name.startsWith(`${namespace.toUpperCase()}_`)) doomed.push(name);
  await Promise.all(doomed.map((name) => jsm.streams.delete(name)));
}

export type StoredMessage = {
  subject: string;
  msgId: string | undefined;
  traceparent: string | undefined;
  tracestate: string | undefined;
  data: unknown;
};

/** Every message in a stream, read with an ordered consumer. */
export async function readStream(
  js: JetStreamClient,
  jsm: JetStreamManager,
  stream: string,
): Promise<StoredMessage[]> {
  const total = (await jsm.streams.info(stream)).state.messages;
  const out: StoredMessage[] = [];
  if (total === 0) return out;
  const consumer = await js.consumers.get(stream);
  const messages = await consumer.consume({ max_messages: 1_000 });
  for await (const m of messages) {
    const h = m.headers;
    out.push({
      subject: m.subject,
      msgId: getHeader(h, "Nats-Msg-Id"),
      traceparent: getHeader(h, "traceparent"),
      tracestate: getHeader(h, "tracestate"),
      data: m.json(),
    });
    if (m.info.pending === 0) break;
  }
  await messages.close();
  return out;
}
