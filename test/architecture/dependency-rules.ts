/**
 * The allowed dependency graph of the workspaces, written down once. Dependencies point one way:
 * services → shared packages, and inside shared/ from a higher layer to a lower one only.
 * test/architecture/layering.test.ts reads every workspace's manifest and imports against it.
 */

/** Shared packages by layer; a package may import only packages of a lower layer. */
export const LAYERS: ReadonlyArray<{ name: string; packages: ReadonlyArray<string> }> = [
  { name: "command line", packages: ["@svc/cli"] },
  {
    name: "foundation",
    packages: [
      "@svc/config",
      "@svc/errors",
      "@svc/time",
      "@svc/catalogue",
      "@svc/logging",
      "@svc/legacy",
      "@svc/manifest",
      "@svc/runtime",
    ],
  },
  {
    name: "platform adapters",
    packages: [
      "@svc/telemetry",
      "@svc/db",
      "@svc/messaging",
      "@svc/paging",
      "@svc/k8s",
      "@svc/build",
    ],
  },
  { name: "HTTP and leadership", packages: ["@svc/http", "@svc/leader"] },
  { name: "request authentication", packages: ["@svc/auth"] },
  { name: "events", packages: ["@svc/events"] },
  { name: "process host", packages: ["@svc/host"] },
  { name: "contract", packages: ["@svc/openapi"] },
  { name: "test tooling", packages: ["@svc/testing", "@svc/sandbox"] },
  { name: "bench tooling", packages: ["@svc/bench"] },
];

/**
 * Packages only tests, benchmarks and the local tools may use: never imported by a service's or
 * package's src/. @svc/sandbox (the synthetic legacy data set) runs from tools/ and its own seed CLI.
 */
export const TOOLING_PACKAGES: ReadonlySet<string> = new Set([
  "@svc/testing",
  "@svc/bench",
  "@svc/sandbox",
]);

/** What an adapter folder may import: the domain, whose ports it implements. */
const ADAPTER = {
  mayImport: ["domain"],
  why: "an adapter implements domain ports, not another adapter",
} as const;

/**
 * Inside every service: the folders of services/<name>/src/ and which other folders each may
 * import. `http` → `domain` → the ports the domain owns (domain/ports.ts) ← `store` / `source` /
 * `messaging` / `outbound` / `workers`. A folder imports its own files and the folders listed;
 * no other folder, no top-level file and nothing outside src/ (tests and benchmarks import src/,
 * never the other way). test/architecture/layering.test.ts reads every service's src/ against it.
 */
export const SERVICE_FOLDERS = {
  domain: { mayImport: [], why: "domain owns its ports; adapters implement them" },
  http: {
    mayImport: ["domain"],
    why: "http calls the domain; the domain reaches adapters through its ports",
  },
  store: ADAPTER,
  source: ADAPTER,
  messaging: ADAPTER,
  outbound: ADAPTER,
  workers: {
    mayImport: ["domain"],
    why: "a worker uses domain ports; its start-*.ts wires the adapters",
  },
} as const satisfies Record<string, { mayImport: readonly string[]; why: string }>;

/**
 * Composition roots, by path inside src/: they may import anything inside their service. Every
 * top-level file (main.ts, app.ts, config.ts, warm-up.ts, instrument.ts, a process's own main,
 * a composition module beside them), everything under cli/ (command-line entry points), and a
 * worker's wiring: a `start-*.ts` file anywhere under workers/. Nothing else imports a top-level
 * file: configuration and dependencies reach the other folders as parameters.
 */
export const COMPOSITION_ROOTS: ReadonlyArray<RegExp> = [
  /^[^/]+\.ts$/,
  /^cli\//,
  /^workers\/(?:.+\/)?start-[^/]+\.ts$/,
];

/**
 * What the service-folder rules do not apply to: unit tests beside the code (`*.test.ts`) wire
 * real adapters as a composition root does. A service's test/ and bench/ sit outside src/ and
 * are not read at all (the workspace rules above still cover them).
 */
export const EXEMPT_FROM_FOLDER_RULES: RegExp = /\.test\.ts$/;

/**
 * Packages the domain never imports, not even for a type: HTTP, persistence, messaging, the
 * legacy database and platform clients belong to the adapters and the composition roots. An
 * entry ending in `/*` stands for its whole scope. Pure libraries (crypto, dates, @svc/errors,
 * @svc/events, @svc/paging, OpenTelemetry's API) stay allowed.
 */
export const DOMAIN_FORBIDDEN_PACKAGES = {
  why: "the domain stays free of transport and storage; adapters bring them",
  packages: [
    "@svc/http",
    "@svc/openapi",
    "@svc/db",
    "@svc/legacy",
    "@svc/messaging",
    "@svc/k8s",
    "@svc/leader",
    "express",
    "pg",
    "mysql2",
    "drizzle-orm",
    "@nats-io/*",
    "undici",
    "@kubernetes/client-node",
    "node:http",
    "node:https",
    "node:http2",
    "node:dns",
    "node:tls",
  ],
} as const;
