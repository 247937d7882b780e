/**
 * The allowed dependency graph of the workspaces, written down once. Dependencies point one way:
 * services → shared packages, and inside shared/ from a higher layer to a lower one only.
 * test/architecture/layering.test.ts reads every workspace's manifest and imports against it.
 */

/** Shared packages by layer; a package may import only packages of a lower layer. */
export const LAYERS: ReadonlyArray<{ name: string; packages: ReadonlyArray<string> }> = [
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
  { name: "contract", packages: ["@svc/openapi"] },
  { name: "test tooling", packages: ["@svc/testing"] },
  { name: "bench tooling", packages: ["@svc/bench"] },
];

/** Packages only tests and benchmarks may use: never imported by a service's or package's src/. */
export const TOOLING_PACKAGES: ReadonlySet<string> = new Set(["@svc/testing", "@svc/bench"]);
