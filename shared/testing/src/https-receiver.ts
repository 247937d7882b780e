/**
 * A loopback HTTPS endpoint for webhook tests across packages: a throw-away CA (what the
 * dispatcher's WEBHOOK_EXTRA_CA_FILE points at) with a server certificate for 127.0.0.1/localhost,
 * and a receiver that records every request byte for byte, so a test checks signatures itself
 * against the raw body, as a subscriber must, instead of trusting the sender's code.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TestCa {
  /** The CA certificate file: what WEBHOOK_EXTRA_CA_FILE points at. */
  caFile: string;
  caPem: string;
  /** The receiver's key and certificate (SAN: 127.0.0.1, ::1, localhost, hooks.example.com). */
  serverKey: string;
  serverCert: string;
  dispose(): void;
}

/**
 * A CA and a server certificate it signed, made with the openssl CLI at run time (valid 2 days).
 */
export function createTestCa(): TestCa {
  const dir = mkdtempSync(join(tmpdir(), "test-ca-"));
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) =>
    execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  openssl(
    "req",
    "-x509",
    ...ec,
    "-keyout",
    file("ca.key"),
    "-out",
    file("ca.pem"),
    "-days",
    "2",
    "-subj",
    "/CN=test CA",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  );
  openssl(
    "req",
    ...ec,
    "-keyout",
    file("server.key"),
    "-out",
    file("server.csr"),
    "-subj",
    "/CN=localhost",
  );
  writeFileSync(
    file("server.ext"),
    "subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost,DNS:hooks.example.com\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
  );
  openssl(
    "x509",
    "-req",
    "-in",
    file("server.csr"),
    "-CA",
    file("ca.pem"),
    "-CAkey",
    file("ca.key"),
    "-CAcreateserial",
    "-out",
    file("server.pem"),
    "-days",
    "2",
    "-extfile",
    file("server.ext"),
  );
  return {
    caFile: file("ca.pem"),
    caPem: readFileSync(file("ca.pem"), "utf8"),
    serverKey: readFileSync(file("server.key"), "utf8"),
    serverCert: readFileSync(file("server.pem"), "utf8"),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** One request as it arrived. */
export interface ReceivedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  /** Lower-cased header names, as node:http gives them. */
  headers: IncomingHttpHeaders;
  /** The body exactly as sent (what a signature covers). */
  rawBody: Buffer;
  receivedAt: number;
}

export interface HttpsReceiver {
  port: number;
  /** `https://127.0.0.1:<port><path>` */
  url(path: string): string;
  /** Every request so far, in arrival order (optionally only those for `path`). */
  received(path?: string): ReceivedRequest[];
  close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1 with the given certificate and answers every request with `status` (204).
 */
export async function startHttpsReceiver(
  tls: { key: string; cert: string },
  options: { status?: number } = {},
): Promise<HttpsReceiver> {
  const log: ReceivedRequest[] = [];
  const server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      log.push({
        method: req.method ?? "",
        path: (req.url ?? "/").split("?")[0]!,
        headers: req.headers,
        rawBody: Buffer.concat(chunks),
        receivedAt: Date.now(),
      });
      res.writeHead(options.status ?? 204).end();
    });
    req.on("error", () => res.destroy());
  });
  // A sender that gives up mid-request resets its socket; that is its business, not a test failure.
  server.on("tlsClientError", () => {});
  server.on("secureConnection", (socket) => socket.on("error", () => {}));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path) => `https://127.0.0.1:${port}${path}`,
    received: (path) => log.filter((r) => path === undefined || r.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
