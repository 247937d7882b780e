// The production image runs the bundles with only the files the Dockerfile's runtime stage copies
// (@svc/manifest RUNTIME_FILES). Here that file set is laid out in an empty folder beside the
// installed node_modules, and every process the chart runs is started from it with the chart's
// own command line: a file the code reads that the image lacks, or a source import left in a
// bundle, fails here rather than in a cluster. (No Docker engine here, so the folder stands in
// for the image; test/chart/image.test.ts checks that the Dockerfile copies the same set.)
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServiceUnderBench } from "@svc/bench";
import { build } from "@svc/build";
import { buildPortal } from "@integration-service/portal/build";
import {
  createTempMysqlDatabase,
  createTempPgDatabase,
  fetchJson,
  type TempDatabase,
} from "@svc/testing";
import {
  bundleArgs,
  DEPLOYED_PROCESSES,
  REPO_ROOT,
  RUNTIME_FILES,
  SCHEMA_MIGRATIONS,
} from "@svc/manifest";
import { NODE_FLAGS, RUNTIME_ENV } from "@svc/runtime";

const run = promisify(execFile);
const version = (
  JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string }
).version;

describe("the image's file set (bundles and RUNTIME_FILES only)", () => {
  let image: string;
  let legacy: TempDatabase;

  beforeAll(async () => {
    await build();
    await buildPortal();
    image = mkdtempSync(join(tmpdir(), "image-layout-"));
    for (const file of RUNTIME_FILES)
      cpSync(join(REPO_ROOT, file), join(image, file), { recursive: true });
    symlinkSync(join(REPO_ROOT, "node_modules"), join(image, "node_modules"));
    legacy = await createTempMysqlDatabase("image");
  }, 60_000);

  afterAll(async () => {
    await legacy?.drop();
    if (image) rmSync(image, { recursive: true, force: true });
  });

  const node = (args: string[], env: Record<string, string> = {}) =>
    run(process.execPath, [...NODE_FLAGS, ...args], {
      cwd: image,
      env: { PATH: process.env.PATH ?? "", ...RUNTIME_ENV, NODE_ENV: "production", ...env },
      timeout: 120_000,
    });

  it("the migrations Job migrates every schema", { timeout: 120_000 }, async () => {
    const database = await createTempPgDatabase("image");
    try {
      const { stdout } = await node(bundleArgs("tools/migrate.ts"), { DATABASE_URL: database.url });
      expect(stdout.match(/^migrated schema \w+$/gm)).toEqual(
        SCHEMA_MIGRATIONS.map((s) => `migrated schema ${s.schema}`),
      );
    } finally {
      await database.drop();
    }
  });

  it("the seeding Job loads the sandbox data set", { timeout: 120_000 }, async () => {
    // As the chart runs it: only --if-empty, the target from LEGACY_DATABASE_URL.
    const database = new URL(legacy.url).pathname.slice(1);
    const job = () =>
      node([...bundleArgs("shared/sandbox/src/cli/seed.ts"), "--if-empty"], {
        LEGACY_DATABASE_URL: legacy.url,
      });
    const { stdout } = await job();
    expect(stdout).toContain(`sandbox database "${database}" loaded`);
    // Run again (a Helm upgrade): the data set is kept, not reloaded.
    const again = await job();
    expect(again.stdout).toContain(`sandbox database "${database}" already loaded`);
  });

  // Every process the chart deploys, with what it needs besides the image, by process name.
  interface Needs {
    env?: Record<string, string>;
    publicPath?: string;
    /** Further public paths that must answer 200 with a body. */
    alsoServes?: string[];
    /** Public paths whose body must contain a text. */
    servesContaining?: Record<string, string>;
  }
  const needs: Record<string, Needs> = {
    // The reference page's files come from node_modules (swagger-ui-dist), found from the bundle.
    auth: {
      publicPath: "/openapi.json",
      alsoServes: ["/reference", "/reference/renderer.js", "/reference/renderer.css"],
    },
    practices: { env: { LEGACY_DATABASE_URL: "" } },
    vacancies: { env: { LEGACY_DATABASE_URL: "" } },
    identity: { env: { IDENTITY_PEPPER: "image-layout-test-pepper-of-at-least-32-bytes" } },
    // The subscriber portal's built page (packages/portal/dist), not the placeholder shown when
    // it is missing.
    webhooks: {
      servesContaining: { "/portal/": '<script type="module" crossorigin src="/portal/assets/' },
    },
  };
  const services: Array<Needs & { entry: string }> = DEPLOYED_PROCESSES.map((p) => ({
    entry: `${p.workspace}/${p.entry}`,
    ...needs[p.name],
  }));
  for (const service of services) {
    it(
      `${service.entry}: starts, migrates its schema, becomes ready and reports the installation's version`,
      { timeout: 120_000 },
      async () => {
        const env = Object.fromEntries(
          Object.entries({ ...RUNTIME_ENV, ...service.env }).map(([k, v]) => [
            k,
            k === "LEGACY_DATABASE_URL" ? legacy.url : v,
          ]),
        );
        const started = await startServiceUnderBench({
          root: image,
          entry: service.entry,
          args: [...NODE_FLAGS, ...bundleArgs(service.entry)],
          env,
        });
        try {
          const health = await fetchJson(`${started.internalOrigin}/readyz`);
          expect(health.status).toBe(200);
          if (service.publicPath !== undefined) {
            const served = await fetch(`${started.origin}${service.publicPath}`);
            expect(served.status).toBe(200);
            // The environment defaults to the sandbox.
            expect(await served.text()).toBe(
              readFileSync(join(REPO_ROOT, "shared/openapi/openapi.sandbox.json"), "utf8"),
            );
          }
          for (const [path, text] of Object.entries(service.servesContaining ?? {})) {
            const served = await fetch(`${started.origin}${path}`);
            expect(served.status, path).toBe(200);
            expect(await served.text(), path).toContain(text);
          }
          for (const path of service.alsoServes ?? []) {
            const served = await fetch(`${started.origin}${path}`);
            expect(served.status, path).toBe(200);
            expect((await served.text()).length, path).toBeGreaterThan(0);
          }
          if (!service.entry.endsWith("dispatcher-main.ts")) {
            const reported = await fetchJson<{ data: { build: string } }>(
              `${started.origin}/version`,
            );
            expect(reported.body.data.build).toBe(version);
          }
        } finally {
          await started.stop();
        }
      },
    );
  }

  it("the local gateway starts with the route table", { timeout: 60_000 }, async () => {
    const child = execFile(process.execPath, bundleArgs("services/gateway/src/main.ts"), {
      cwd: image,
      env: {
        PATH: process.env.PATH ?? "",
        PORT: "0",
        GATEWAY_UPSTREAMS: "auth=http://127.0.0.1:9",
      },
    });
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => void (output += chunk.toString()));
    try {
      await expect.poll(() => output, { timeout: 30_000 }).toContain("gateway listening");
    } finally {
      child.kill();
    }
  });
});
