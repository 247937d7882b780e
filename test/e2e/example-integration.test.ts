/**
 * examples/node-integration as a customer runs it: the client and webhooks packages packed with
 * `npm pack` (their prepack builds dist/ from the sources), the example installed from those
 * tarballs into a temporary copy (`npm install --offline`: no registry), then run against a whole
 * private stack whose dispatcher delivers to the example's HTTPS receiver on loopback.
 */
import { execFile } from "node:child_process";
import { cp, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestCa, unusedPort, type TestCa } from "@svc/testing";
import { startPrivateStack, type PrivateStack } from "../support/private-stack.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const run = promisify(execFile);

let ca: TestCa;
let stack: PrivateStack;
let dir: string;

beforeAll(async () => {
  ca = createTestCa();
  dir = await mkdtemp(join(tmpdir(), "node-integration-"));
  await cp(join(ROOT, "examples/node-integration"), dir, {
    recursive: true,
    filter: (src) => !/node_modules|\.tgz$|package-lock/.test(src),
  });
  const workspaces = ["@integration-service/client", "@integration-service/webhooks"];
  const pack = [
    "pack",
    ...workspaces.flatMap((w) => ["--workspace", w]),
    "--pack-destination",
    dir,
  ];
  await run("npm", pack, { cwd: ROOT });
  await run("npm", ["install", "--offline", "--no-audit", "--no-fund"], { cwd: dir });
  // The receiver's certificate, signed by the CA the dispatcher trusts in this test.
  await writeFile(join(dir, "server.key"), ca.serverKey);
  await writeFile(join(dir, "server.pem"), ca.serverCert);
  stack = await startPrivateStack({
    env: { WEBHOOK_ALLOW_LOOPBACK: "true", WEBHOOK_EXTRA_CA_FILE: ca.caFile },
  });
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  ca?.dispose();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("examples/node-integration", () => {
  it("installs from the packed tarballs with no other dependency", async () => {
    const installed = await readdir(join(dir, "node_modules/@integration-service"));
    expect(installed.sort()).toEqual(["client", "webhooks"]);
    const packages = (await readdir(join(dir, "node_modules"))).filter((n) => !n.startsWith("."));
    expect(packages).toEqual(["@integration-service"]);
    const files = await readdir(join(dir, "node_modules/@integration-service/client/dist"));
    expect(files).toEqual(expect.arrayContaining(["index.js", "index.d.ts"]));
  });

  it("lists vacancies, creates an application and verifies its delivery", async () => {
    const port = await unusedPort();
    const { stdout } = await run(process.execPath, ["index.mjs"], {
      cwd: dir,
      timeout: 60_000,
      env: {
        PATH: process.env.PATH,
        BASE_URL: stack.baseUrl,
        CLIENT_ID: stack.demoClient.clientId,
        CLIENT_SECRET: stack.demoClient.clientSecret,
        RECEIVER_PORT: String(port),
        RECEIVER_URL: `https://127.0.0.1:${port}/hooks`,
        TLS_KEY_FILE: join(dir, "server.key"),
        TLS_CERT_FILE: join(dir, "server.pem"),
      },
    });
    const application = /created application (\S+)/.exec(stdout)?.[1];
    expect(stdout).toMatch(/^vacancies page 1\/\d+ \(request [0-9a-f-]{36}\)$/m);
    expect(application).toMatch(/^[0-9a-f-]{36}$/);
    expect(stdout).toContain(`verified application.created ${application} (delivery `);
    expect(stdout).toContain(`application ${application} for vacancy `);
    expect(stdout).toMatch(/^NOT_FOUND 404 \(request [0-9a-f-]{36}\)$/m);
  });
});
