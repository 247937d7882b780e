import { existsSync, readdirSync } from "node:fs";
import { join, posix } from "node:path";
import { describe, expect, it } from "vitest";
import {
  bundleArgs,
  bundlePath,
  CHART_COMPONENTS,
  DEPLOYED_PROCESSES,
  ENTRY_POINTS,
  entryArgs,
  HELM_TESTS,
  JOBS,
  PROCESSES,
  processNamed,
  REPO_ROOT,
  RUNTIME_FILES,
  SCHEMA_MIGRATIONS,
  serviceOf,
  SERVICES,
} from "../src/index.ts";

const exists = (path: string) => existsSync(join(REPO_ROOT, path));
const unique = (values: ReadonlyArray<unknown>) => new Set(values).size === values.length;

describe("the manifest", () => {
  it("names every workspace under services/ as a service, and only those", () => {
    const workspaces = readdirSync(join(REPO_ROOT, "services"), { withFileTypes: true })
      .filter((d) => d.isDirectory() && exists(`services/${d.name}/package.json`))
      .map((d) => `services/${d.name}`);
    for (const workspace of workspaces)
      expect(
        SERVICES.map((s) => s.workspace),
        `${workspace} is not in shared/manifest/src/manifest.ts`,
      ).toContain(workspace);
    for (const service of SERVICES)
      expect(workspaces, `service ${service.name}: no workspace`).toContain(service.workspace);
  });

  it("has unique names, components, ports and route prefixes", () => {
    expect(unique(SERVICES.map((s) => s.name))).toBe(true);
    expect(unique(PROCESSES.map((p) => p.name))).toBe(true);
    expect(unique(CHART_COMPONENTS)).toBe(true);
    expect(unique(JOBS.map((j) => j.name))).toBe(true);
    const ports = PROCESSES.flatMap((p) => [p.port, p.internalPort]).filter((p) => p !== null);
    expect(unique(ports)).toBe(true);
    expect(unique(SERVICES.flatMap((s) => s.routes))).toBe(true);
  });

  it("gives every service with a schema its migrations folder, and none without", () => {
    for (const service of SERVICES) {
      expect(service.schema === null, service.name).toBe(service.migrations === null);
      if (service.migrations !== null)
        expect(exists(`${service.workspace}/${service.migrations}`), service.name).toBe(true);
    }
    expect(SCHEMA_MIGRATIONS).toEqual([
      { schema: "auth", folder: "services/auth/drizzle" },
      { schema: "practices", folder: "services/practices/drizzle" },
      { schema: "vacancies", folder: "services/vacancies/drizzle" },
      { schema: "identity", folder: "services/identity/drizzle" },
      { schema: "webhooks", folder: "services/webhooks/drizzle" },
    ]);
  });

  it("puts every process in a service's workspace, with its entry point and its preload beside it", () => {
    for (const p of PROCESSES) {
      expect(serviceOf(p).workspace, p.name).toBe(p.workspace);
      expect(exists(`${p.workspace}/${p.entry}`), `${p.name}: ${p.entry}`).toBe(true);
      // entryArgs and bundleArgs find a preload as the instrument.ts beside the entry point.
      const beside = posix.join(posix.dirname(p.entry), "instrument.ts");
      expect(p.preload ?? beside, p.name).toBe(beside);
      expect(exists(`${p.workspace}/${beside}`), `${p.name}: preload`).toBe(p.preload !== null);
    }
    for (const job of [...JOBS, ...HELM_TESTS]) expect(exists(job.entry), job.name).toBe(true);
  });

  it("deploys every process but the local gateway, each as its own chart component", () => {
    expect(CHART_COMPONENTS).toEqual([
      "auth",
      "practices",
      "vacancies",
      "identity",
      "webhooks",
      "dispatcher",
    ]);
    expect(DEPLOYED_PROCESSES.map((p) => p.name)).not.toContain("gateway");
    expect(processNamed("webhooks-dispatcher").component).toBe("dispatcher");
    expect(() => processNamed("nonexistent")).toThrow(/no process nonexistent/);
  });
});

describe("the bundles", () => {
  it("build every process's entry point and preload, the Jobs and the helm test pods, in the manifest's order", () => {
    expect(ENTRY_POINTS).toEqual([
      "services/auth/src/main.ts",
      "services/auth/src/instrument.ts",
      "services/practices/src/main.ts",
      "services/practices/src/instrument.ts",
      "services/vacancies/src/main.ts",
      "services/vacancies/src/instrument.ts",
      "services/identity/src/main.ts",
      "services/identity/src/instrument.ts",
      "services/webhooks/src/main.ts",
      "services/webhooks/src/dispatcher-main.ts",
      "services/webhooks/src/instrument.ts",
      "services/gateway/src/main.ts",
      "tools/migrate.ts",
      "shared/sandbox/src/cli/seed.ts",
      "shared/legacy/src/cli/legacy-check.ts",
    ]);
    expect(unique(ENTRY_POINTS.map(bundlePath))).toBe(true);
  });

  it("sit two folders deep under dist/, named after the workspace and the file", () => {
    expect(bundlePath("services/vacancies/src/main.ts")).toBe("dist/vacancies/main.js");
    expect(bundlePath("shared/sandbox/src/cli/seed.ts")).toBe("dist/sandbox/seed.js");
    expect(bundlePath("tools/migrate.ts")).toBe("dist/tools/migrate.js");
  });

  it("run with the preload beside the entry point when there is one", () => {
    expect(bundleArgs("services/webhooks/src/dispatcher-main.ts")).toEqual([
      "--import",
      "./dist/webhooks/instrument.js",
      "dist/webhooks/dispatcher-main.js",
    ]);
    expect(bundleArgs("services/gateway/src/main.ts")).toEqual(["dist/gateway/main.js"]);
    expect(entryArgs("services/auth/src/main.ts", { from: "bundle" })).toEqual([
      "--import",
      join(REPO_ROOT, "dist/auth/instrument.js"),
      join(REPO_ROOT, "dist/auth/main.js"),
    ]);
    expect(
      entryArgs("src/main.ts", { cwd: join(REPO_ROOT, "services/auth"), from: "source" }),
    ).toEqual(["--import", "./src/instrument.ts", "src/main.ts"]);
    expect(
      entryArgs("src/main.ts", { cwd: join(REPO_ROOT, "services/gateway"), from: "source" }),
    ).toEqual(["src/main.ts"]);
  });

  it("ship with the version, each service's migrations, the OpenAPI documents, the route table, the malloc_trim addon and the portal page", () => {
    expect(RUNTIME_FILES).toEqual([
      "package.json",
      "dist/",
      "services/auth/drizzle/",
      "services/practices/drizzle/",
      "services/vacancies/drizzle/",
      "services/identity/drizzle/",
      "services/webhooks/drizzle/",
      "shared/openapi/openapi.json",
      "shared/openapi/openapi.sandbox.json",
      "charts/integration-service/routes.json",
      "shared/runtime/build/Release/malloc_trim.node",
      "packages/portal/dist/",
    ]);
    // Built ones aside (the bundles, the portal page), each is in the repository.
    for (const file of RUNTIME_FILES.filter((f) => !f.endsWith("dist/")))
      expect(exists(file), file).toBe(true);
  });
});
