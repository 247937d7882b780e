import { randomBytes } from "node:crypto";
import { jetstreamManager } from "@nats-io/jetstream";
import type { JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { connectNats } from "../src/index.ts";
import { recordingLogger, sleep, waitFor } from "@svc/testing";

/** A namespace no other test file (or earlier run) uses, so files can share one server. */
export function testNamespace(): string {
  return `t${randomBytes(5).toString("hex")}`;
}

export { recordingLogger, sleep, waitFor };

export async function connectForTest(
  servers: string,
  name: string,
): Promise<{ nc: NatsConnection; jsm: JetStreamManager }> {
  const nc = await connectNats({
    servers,
    name,
    logger: recordingLogger(),
    connectTimeoutMs: 2_000,
  });
  return { nc, jsm: await jetstreamManager(nc) };
}

/** Deletes every stream this namespace created, KV buckets included. */
export async function deleteNamespaceStreams(
  jsm: JetStreamManager,
  namespace: string,
): Promise<void> {
  const prefixes = [`${namespace.toUpperCase()}_`, `KV_${namespace}_`];
  const doomed: string[] = [];
  for await (const name of jsm.streams.names()) {
    if (prefixes.some((p) => name.startsWith(p))) doomed.push(name);
  }
  await Promise.all(doomed.map((name) => jsm.streams.delete(name)));
}
