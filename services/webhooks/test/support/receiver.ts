import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { validateWebhookPayload } from "@svc/testing";

/** One POST as the receiver saw it, judged by the contract's rules for subscribers. */
export type Received = {
  path: string;
  eventId: string;
  eventType: string;
  deliveryId: string;
  timestamp: number;
  /** Which of the secrets the receiver holds for this path verified a signature. */
  verifiedWith: string[];
  signatureCount: number;
  timestampOk: boolean;
  duplicate: boolean;
  body: string;
  /** The Host header and TLS server name (SNI) the client used. */
  host: string;
  servername: string;
  at: number;
};

export type Reply = {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
};
/**
 * `n` counts this path's requests for this event so far, 1-based (each test publishes its own
 * events).
 */
export type Behaviour = (n: number, eventId: string) => Reply;

export type Receiver = {
  port: number;
  url(path: string): string;
  /** The secrets this endpoint holds; a delivery is valid when any signature verifies with one. */
  setSecrets(path: string, secrets: string[]): void;
  setBehaviour(path: string, behaviour: Behaviour): void;
  received(path?: string, eventId?: string): Received[];
  /** Every POST from the `from`-th on, in arrival order (cheap to poll, unlike a filter). */
  receivedFrom(from: number): Received[];
  /** The most requests this path had open at the same time. */
  maxConcurrent(path: string): number;
  /** The most requests open at the same time over all paths. */
  maxConcurrentTotal(): number;
  /**
   * Rejects, naming each one, when a payload received did not match the OpenAPI document's
   * `webhooks`.
   */
  close(): Promise<void>;
};

const TOLERANCE_SECONDS = 300;

/**
 * Verifies like a subscriber written from the contract: raw body, constant-time compare, 300 s
 * window.
 */
export function verifySignatures(
  header: string,
  timestamp: string,
  rawBody: string,
  secret: string,
): boolean {
  const signed = `${timestamp}.${rawBody}`;
  const expected = Buffer.from(createHmac("sha256", secret).update(signed).digest("hex"));
  return header.split(",").some((part) => {
    const [version, hex] = part.trim().split("=");
    if (version !== "v1" || !hex) return false;
    const given = Buffer.from(hex);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

export async function startReceiver(tls: { key: string; cert: string }): Promise<Receiver> {
  const secrets = new Map<string, string[]>();
  const behaviours = new Map<string, Behaviour>();
  const log: Received[] = [];
  const counts = new Map<string, number>();
  const seen = new Set<string>();
  const processed = new Set<string>();
  const open = new Map<string, number>();
  const peak = new Map<string, number>();
  let openTotal = 0;
  let peakTotal = 0;
  // Contract check of every payload against the document; reported by close().
  const contractViolations: string[] = [];
  const checkPayload = (eventId: string, eventType: string, body: string) => {
    try {
      const payload = JSON.parse(body) as { event_uuid?: unknown; event_type?: unknown };
      validateWebhookPayload(eventType, payload);
      if (payload.event_uuid !== eventId)
        contractViolations.push(
          `X-SVC-Event-Id ${eventId} is not the payload's event_uuid ${String(payload.event_uuid)}`,
        );
    } catch (err) {
      contractViolations.push(err instanceof Error ? err.message : String(err));
    }
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const path = (req.url ?? "/").split("?")[0]!;
    const eventId = String(req.headers["x-svc-event-id"] ?? "");
    const key = `${path}|${eventId}`;
    const n = (counts.get(key) ?? 0) + 1;
    counts.set(key, n);
    const header = String(req.headers["x-svc-signature"] ?? "");
    const ts = String(req.headers["x-svc-timestamp"] ?? "");
    const held = secrets.get(path) ?? [];
    const verifiedWith = held.filter((s) => verifySignatures(header, ts, body, s));
    const timestampOk =
      /^\d+$/.test(ts) && Math.abs(Date.now() / 1000 - Number(ts)) <= TOLERANCE_SECONDS;
    const duplicate = seen.has(key);
    // A delivery carries the event type; other POSTs (the URL guard's client tests) are no
    // deliveries.
    const eventType = req.headers["x-svc-event-type"];
    if (typeof eventType === "string") checkPayload(eventId, eventType, body);
    seen.add(key);
    log.push({
      path,
      eventId,
      eventType: String(req.headers["x-svc-event-type"] ?? ""),
      deliveryId: String(req.headers["x-svc-delivery-id"] ?? ""),
      timestamp: Number(ts),
      verifiedWith,
      signatureCount: header.split(",").length,
      timestampOk,
      duplicate,
      body,
      host: String(req.headers.host ?? ""),
      servername: String((req.socket as { servername?: string | false }).servername || ""),
      at: Date.now(),
    });
    // The contract's rules for subscribers: verify first (401 when neither a signature nor the
    // timestamp holds up), then a delivery already processed is answered 2xx and not processed
    // again.
    const reply: Reply =
      held.length > 0 && (verifiedWith.length === 0 || !timestampOk)
        ? { status: 401, body: "bad signature" }
        : processed.has(key)
          ? { status: 200, body: "duplicate" }
          : (behaviours.get(path)?.(n, eventId) ?? { status: 204 });
    if (reply.status >= 200 && reply.status < 300) processed.add(key);
    open.set(path, (open.get(path) ?? 0) + 1);
    peak.set(path, Math.max(peak.get(path) ?? 0, open.get(path)!));
    peakTotal = Math.max(peakTotal, ++openTotal);
    try {
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      res.writeHead(reply.status, reply.headers ?? {});
      res.end(reply.body ?? "");
    } finally {
      open.set(path, open.get(path)! - 1);
      openTotal--;
    }
  };
  const server: Server = createServer(
    { key: tls.key, cert: tls.cert, keepAlive: true },
    (req, res) => {
      handle(req, res).catch(() => res.destroy());
    },
  );
  // A client killed mid-request (the fault test SIGKILLs dispatchers) resets its sockets.
  server.on("secureConnection", (socket) => socket.on("error", () => {}));
  server.on("tlsClientError", () => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path) => `https://127.0.0.1:${port}${path}`,
    setSecrets: (path, s) => void secrets.set(path, s),
    setBehaviour: (path, b) => void behaviours.set(path, b),
    maxConcurrent: (path) => peak.get(path) ?? 0,
    maxConcurrentTotal: () => peakTotal,
    received: (path, eventId) =>
      log.filter(
        (r) =>
          (path === undefined || r.path === path) &&
          (eventId === undefined || r.eventId === eventId),
      ),
    receivedFrom: (from) => log.slice(from),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close(() =>
          contractViolations.length > 0
            ? reject(new Error(contractViolations.join("\n")))
            : resolve(),
        );
      }),
  };
}
