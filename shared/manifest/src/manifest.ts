/**
 * The one manifest of the system: every service (a workspace under services/), every process the
 * local stack, the image and the chart run, and the chart's Jobs. What can read TypeScript derives
 * its lists from here: the bundles and the image's files (bundles.ts, `npm run build`), the local
 * stack (tools/stack.ts: `npm start`, its ports and the gateway's upstreams), the migrations Job
 * (tools/migrate.ts) and the benchmarks. The files that cannot (the Dockerfile, the chart's
 * values.yaml, templates/_helpers.tpl and routes.json, the Tiltfile, each process's config.ts
 * defaults) are compared with it by test/chart/manifest.test.ts, which names the file and the
 * entry that disagree.
 *
 * Paths: a `workspace` and a job's `entry` are relative to the repository root; every other path
 * is relative to the workspace. Order matters: it is the order of `npm start`, the bundles and
 * the migrations.
 */

export interface ServiceManifest {
  /** The service's name: the gateway's upstream name and the `service` of its routes.json entries. */
  readonly name: string;
  /** Its workspace folder. */
  readonly workspace: string;
  /** Its own PostgreSQL schema; null when it keeps no data. */
  readonly schema: string | null;
  /** The folder of its drizzle migrations (into `schema`), in the workspace; null without a schema. */
  readonly migrations: string | null;
  /** Path prefixes of the public API it serves (charts/integration-service/routes.json). */
  readonly routes: ReadonlyArray<string>;
  /**
   * The module, in the workspace, that exports its part of the OpenAPI document as `OPENAPI`
   * (`npm run openapi` reads it); null when it serves no documented operation.
   */
  readonly operations: string | null;
}

export interface ProcessManifest {
  /** The process's name (`npm start`'s output, the benchmarks). */
  readonly name: string;
  /** The workspace of its code (a service's workspace), and its working directory locally. */
  readonly workspace: string;
  /** Its entry point, in the workspace. */
  readonly entry: string;
  /** Its preload (`node --import`), the instrument.ts beside the entry point; null: none. */
  readonly preload: string | null;
  /**
   * Its chart component: the key under `components:` in values.yaml, a Deployment of its own.
   * null: not deployed (a local development tool).
   */
  readonly component: string | null;
  /** The local port of its public API (PORT under `npm start`); null: it serves none. */
  readonly port: number | null;
  /** The local port of /livez, /readyz and /metrics (INTERNAL_PORT); null: none. */
  readonly internalPort: number | null;
}

export interface JobManifest {
  /** Its chart component (the Job is <release>-<name>). */
  readonly name: string;
  /** Its entry point, from the repository root. */
  readonly entry: string;
}

export const SERVICES: ReadonlyArray<ServiceManifest> = [
  {
    name: "auth",
    workspace: "services/auth",
    schema: "auth",
    migrations: "drizzle",
    operations: "src/http/operations.ts",
    routes: [
      "/oauth/token",
      "/v1/health",
      "/v1/version",
      "/health",
      "/version",
      "/openapi.json",
      "/reference",
    ],
  },
  {
    name: "practices",
    workspace: "services/practices",
    schema: "practices",
    migrations: "drizzle",
    operations: "src/http/operations.ts",
    routes: ["/v1/practices", "/v1/meta/practices", "/v1/crm-mirror"],
  },
  {
    name: "vacancies",
    workspace: "services/vacancies",
    schema: "vacancies",
    migrations: "drizzle",
    operations: "src/http/operations.ts",
    routes: ["/v1/vacancies", "/v1/meta/vacancies"],
  },
  {
    name: "identity",
    workspace: "services/identity",
    schema: "identity",
    migrations: "drizzle",
    operations: "src/http/operations.ts",
    routes: ["/v1/candidates", "/v1/applications", "/v1/recruitment-cases"],
  },
  {
    name: "webhooks",
    workspace: "services/webhooks",
    schema: "webhooks",
    migrations: "drizzle",
    operations: "src/http/operations.ts",
    routes: ["/v1/webhooks", "/v1/events", "/portal"],
  },
  // The local gateway: routes like the Ingress, from routes.json; never deployed.
  {
    name: "gateway",
    workspace: "services/gateway",
    schema: null,
    migrations: null,
    routes: [],
    operations: null,
  },
];

export const PROCESSES: ReadonlyArray<ProcessManifest> = [
  {
    name: "auth",
    workspace: "services/auth",
    entry: "src/main.ts",
    preload: "src/instrument.ts",
    component: "auth",
    port: 8081,
    internalPort: 9481,
  },
  {
    name: "practices",
    workspace: "services/practices",
    entry: "src/main.ts",
    preload: "src/instrument.ts",
    component: "practices",
    port: 8082,
    internalPort: 9482,
  },
  {
    name: "vacancies",
    workspace: "services/vacancies",
    entry: "src/main.ts",
    preload: "src/instrument.ts",
    component: "vacancies",
    port: 8083,
    internalPort: 9483,
  },
  {
    name: "identity",
    workspace: "services/identity",
    entry: "src/main.ts",
    preload: "src/instrument.ts",
    component: "identity",
    port: 8084,
    internalPort: 9484,
  },
  {
    name: "webhooks",
    workspace: "services/webhooks",
    entry: "src/main.ts",
    preload: "src/instrument.ts",
    component: "webhooks",
    port: 8085,
    internalPort: 9485,
  },
  {
    name: "webhooks-dispatcher",
    workspace: "services/webhooks",
    entry: "src/dispatcher-main.ts",
    preload: "src/instrument.ts",
    component: "dispatcher",
    port: null,
    internalPort: 9486,
  },
  {
    name: "gateway",
    workspace: "services/gateway",
    entry: "src/main.ts",
    preload: null,
    component: null,
    port: 8080,
    internalPort: null,
  },
];

export const JOBS: ReadonlyArray<JobManifest> = [
  { name: "migrations", entry: "tools/migrate.ts" },
  { name: "sandbox-seed", entry: "shared/sandbox/src/cli/seed.ts" },
];

/** The chart's `helm test` pods that run code of the image (templates/tests/<name>.yaml). */
export const HELM_TESTS: ReadonlyArray<JobManifest> = [
  { name: "legacy-check", entry: "shared/legacy/src/cli/legacy-check.ts" },
];

// ---- Derived -------------------------------------------------------------------------------

/** The service whose workspace holds a process's code. */
export function serviceOf(process: Pick<ProcessManifest, "workspace">): ServiceManifest {
  const service = SERVICES.find((s) => s.workspace === process.workspace);
  if (!service)
    throw new Error(`no service in the manifest has the workspace ${process.workspace}`);
  return service;
}

/** The process of that name; throws for a name the manifest lacks. */
export function processNamed(name: string): ProcessManifest {
  const found = PROCESSES.find((p) => p.name === name);
  if (!found) throw new Error(`no process ${name} in the manifest`);
  return found;
}

/** The processes the chart deploys, each its own component, in manifest order. */
export const DEPLOYED_PROCESSES: ReadonlyArray<ProcessManifest & { component: string }> =
  PROCESSES.filter((p): p is ProcessManifest & { component: string } => p.component !== null);

/** The chart's components (values.yaml `components:` keys), in manifest order. */
export const CHART_COMPONENTS: ReadonlyArray<string> = DEPLOYED_PROCESSES.map((p) => p.component);

/** Each schema the migrations Job migrates, in order, with its migrations folder from the repository root. */
export const SCHEMA_MIGRATIONS: ReadonlyArray<{ schema: string; folder: string }> =
  SERVICES.flatMap((s) =>
    s.schema === null || s.migrations === null
      ? []
      : [{ schema: s.schema, folder: `${s.workspace}/${s.migrations}` }],
  );
