import { randomBytes } from "node:crypto";
import { jetstreamManager } from "@nats-io/jetstream";
import type { JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { connectNats } from "../src/index.ts";
import type { Logger } from "../src/index.ts";

/** A namespace no other test file (or earlier run) uses, so files can share one server. */
export function testNamespace(): string {
  return `t${randomBytes(5).toString("hex")}`;
}

export type LogEntry = { level: "info" | "warn" | "error"; obj: object; msg: string };

/** A logger that keeps what it was given, so tests can assert on warnings and errors. */
export function recordingLogger(): Logger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at = (level: LogEntry["level"]) => (obj: object, msg: string) =>
    void entries.push({ level, obj, msg });
  return { entries, info: at("info"), warn: at("warn"), error: at("error") };
}

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

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls until `check` returns true; fails with `what` after `timeoutMs`. */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 5_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}
