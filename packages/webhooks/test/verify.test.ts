/**
 * verify() and the handler on their own: the subscriber guide's example request, header forms,
 * and the handler's answers over a real loopback HTTP server. Real deliveries from the running
 * dispatcher: test/e2e/integrator-kit.test.ts.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { createWebhookHandler, sign, verify, WebhookVerificationError } from "../src/index.ts";

// The example request and secret of docs/webhook-subscribers.md.
const GUIDE = {
  secret: "whsec_AhOqrxGr8yewRU7XX9lzH0yEIlReMkqXkpbSFNYr55k",
  timestamp: "1795766813",
  signature: "v1=a8c01b6278b82b6c4725e1e3aba6c300bc519073002611ea409aac84df78f0ce",
  body: '{"links":{"self":"https://api.example.com/v1/applications/04036cb7-b44e-43df-b49a-00cbefaee3d9"},"entity":{"id":"04036cb7-b44e-43df-b49a-00cbefaee3d9","type":"application"},"event_type":"application.created","event_uuid":"703d2064-da0c-4376-950e-bfc9046c4886","occurred_at":"2026-11-27T08:06:53.134+00:00","event_version":1}',
};
const at = (seconds: string) => () => Number(seconds) * 1000;

function reason(run: () => unknown): string {
  try {
    run();
    return "ok";
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    return error.reason;
  }
}

describe("verify", () => {
  it("accepts the guide's example request from a Headers, a record or node's headers", () => {
    const options = { secret: GUIDE.secret, now: at(GUIDE.timestamp) };
    const headers = { "X-SVC-Timestamp": GUIDE.timestamp, "X-SVC-Signature": GUIDE.signature };
    expect(verify(GUIDE.body, headers, options).event_type).toBe("application.created");
    expect(verify(Buffer.from(GUIDE.body), new Headers(headers), options).entity.type).toBe(
      "application",
    );
    expect(sign(GUIDE.secret, GUIDE.timestamp, GUIDE.body)).toBe(GUIDE.signature);
  });

  it("names what is wrong with a delivery", () => {
    const check = (headers: Record<string, string>) => () =>
      verify(GUIDE.body, headers, { secret: GUIDE.secret, now: at(GUIDE.timestamp) });
    expect(reason(check({ "x-svc-signature": GUIDE.signature }))).toBe("missing_timestamp");
    const ts = { "x-svc-timestamp": GUIDE.timestamp };
    expect(reason(check({ "x-svc-timestamp": "1.5", "x-svc-signature": "v1=00" }))).toBe(
      "malformed_timestamp",
    );
    expect(reason(check(ts))).toBe("missing_signature");
    expect(reason(check({ ...ts, "x-svc-signature": `v0=${"0".repeat(64)}` }))).toBe(
      "signature_mismatch",
    );
    const rotated = `${sign("whsec_new", GUIDE.timestamp, GUIDE.body)}, ${GUIDE.signature}`;
    expect(reason(check({ ...ts, "x-svc-signature": rotated }))).toBe("ok");
  });
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(handler).listen(0, "127.0.0.1");
  await once(server, "listening");
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

describe("createWebhookHandler", () => {
  it("answers 405 to other methods, 413 above the size limit, 500 after a JSON body parser", async () => {
    const handler = createWebhookHandler({
      secret: GUIDE.secret,
      maxBodyBytes: 100,
      onEvent: () => undefined,
    });
    const { url, server } = await serve((req, res) => {
      // Like express.json(): the stream read and parsed before the handler runs.
      if (req.url === "/parsed/")
        return req.resume().on("end", () => handler(Object.assign(req, { body: {} }), res));
      handler(req, res);
    });
    try {
      expect((await fetch(url)).status).toBe(405);
      expect((await fetch(url, { method: "POST", body: "x".repeat(101) })).status).toBe(413);
      expect((await fetch(`${url}parsed/`, { method: "POST", body: "{}" })).status).toBe(500);
    } finally {
      server.close();
    }
  });
});
