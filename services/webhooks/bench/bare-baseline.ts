import { createSecureContext, rootCertificates } from "node:tls";
import { Agent, request } from "undici";
import { buildEvent } from "@svc/events";
import { deliveryHeaders } from "../src/domain/signing.ts";

/**
 * The floor the dispatcher is compared with: the same signed POSTs to the same receiver from a
 * plain keep-alive undici loop, with no queue, no database and no guard.
 */
export async function bareBaseline(o: {
  url: string;
  caPem: string;
  count: number;
  concurrency: number;
  pacedRate: number;
  pacedSeconds: number;
}) {
  // One secure context, as the dispatcher has: a `ca` list per connection re-parses the root store
  // each time.
  // A generous connect timeout: 128 TLS handshakes at once on a busy machine may take more than
  // undici's default 10 s, and one failed POST would end the run.
  const agent = new Agent({
    connect: {
      secureContext: createSecureContext({ ca: [...rootCertificates, o.caPem] }),
      timeout: 60_000,
    },
    allowH2: false,
  });
  const secret = "whsec_bench";
  const post = async () => {
    const event = buildEvent({
      type: "vacancy.updated",
      entityId: "bare",
      publicBaseUrl: "https://bench.invalid",
    });
    const body = JSON.stringify(event);
    const headers = deliveryHeaders({
      eventUuid: event.event_uuid,
      eventType: event.event_type,
      deliveryUuid: event.event_uuid,
      timestampSeconds: Math.floor(Date.now() / 1000),
      body,
      secrets: [secret],
    });
    const started = performance.now();
    const res = await request(o.url, {
      method: "POST",
      body,
      headers: { ...headers, "content-type": "application/json" },
      dispatcher: agent,
    });
    await res.body.dump();
    return performance.now() - started;
  };
  try {
    let next = 0;
    const burst: number[] = [];
    const started = performance.now();
    await Promise.all(
      Array.from({ length: o.concurrency }, async () => {
        while (next++ < o.count) burst.push(await post());
      }),
    );
    const perSecond = o.count / ((performance.now() - started) / 1000);
    const paced: Promise<number>[] = [];
    const pacedStart = performance.now();
    for (let i = 0; i < o.pacedRate * o.pacedSeconds; i++) {
      const wait = pacedStart + (i * 1000) / o.pacedRate - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      paced.push(post());
    }
    const pacedMs = (await Promise.all(paced)).sort((a, b) => a - b);
    burst.sort((a, b) => a - b);
    return {
      count: o.count,
      perSecond,
      p50: percentile(burst, 50),
      p99: percentile(burst, 99),
      pacedP50: percentile(pacedMs, 50),
      pacedP99: percentile(pacedMs, 99),
    };
  } finally {
    await agent.close();
  }
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export async function waitUntil(
  check: () => boolean,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
