import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type TestCa = {
  /** The CA certificate file: what WEBHOOK_EXTRA_CA_FILE points at. */
  caFile: string;
  caPem: string;
  /** The receiver's key and certificate (SAN: 127.0.0.1, ::1, hooks.example.com, localhost). */
  serverKey: string;
  serverCert: string;
  dispose(): void;
};

/** A throw-away CA and a server certificate it signed, made with the openssl CLI at run time. */
export function createTestCa(): TestCa {
  const dir = mkdtempSync(join(tmpdir(), "webhooks-ca-"));
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
    "/CN=webhooks test CA",
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
    "/CN=hooks.example.com",
  );
  writeFileSync(
    file("server.ext"),
    "subjectAltName=IP:127.0.0.1,IP:::1,DNS:hooks.example.com,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
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
