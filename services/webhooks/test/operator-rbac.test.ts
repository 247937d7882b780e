import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { k8sTools } from "@svc/testing";
import { LeaseElector } from "@svc/leader/lease";
import { missingPermissions, unusedGrants } from "@svc/k8s";
import type { Permission, PolicyRule } from "@svc/k8s";
import type { RecordedRequest } from "@svc/testing/kube";
import { memoryLogger, waitFor } from "@svc/testing/kube";
import { DISPATCHER_PERMISSIONS } from "../src/workers/operator/rbac.ts";
import { Harness, NS, SECRETS, WHS } from "./support/subscription-harness.ts";

const repoRoot = resolve(import.meta.dirname, "../../..");
const chartDir = join(repoRoot, "charts/integration-service");

/** The dispatcher Role's rules as the chart renders them with its default values. */
function renderedDispatcherRole(): PolicyRule[] {
  const out = execFileSync(
    k8sTools().helm,
    [
      "template",
      "isvc",
      chartDir,
      "--namespace",
      NS,
      "--kube-version",
      "1.34.0",
      "--show-only",
      "templates/rbac.yaml",
    ],
    { encoding: "utf8" },
  );
  const role = parseAllDocuments(out)
    .map((d) => d.toJS() as { kind?: string; rules?: PolicyRule[] } | null)
    .find((o) => o?.kind === "Role");
  if (!role?.rules) throw new Error("no Role rendered from templates/rbac.yaml");
  return role.rules;
}

const VERBS: Record<string, string> = {
  POST: "create",
  PUT: "update",
  PATCH: "patch",
  DELETE: "delete",
};

/** (apiGroup, resource, verb) of one request, as the API server's authorizer sees it. */
function permissionOf(r: RecordedRequest): { apiGroup: string; resource: string; verb: string } {
  const parts = (r.resource ?? "").split("/"); // "v1/<plural>" (core group) or "<group>/<version>/<plural>"
  const apiGroup = parts.length === 3 ? (parts[0] as string) : "";
  const plural = parts.at(-1) as string;
  const read = r.query.watch === "true" ? "watch" : r.name ? "get" : "list";
  const verb = r.method === "GET" ? read : (VERBS[r.method] ?? r.method.toLowerCase());
  return { apiGroup, resource: r.subresource ? `${plural}/${r.subresource}` : plural, verb };
}

function collect(requests: RecordedRequest[]): Permission[] {
  const seen = new Map<string, Permission>();
  for (const r of requests) {
    const p = permissionOf(r);
    const key = `${p.apiGroup}|${p.resource}`;
    const entry = seen.get(key) ?? { apiGroup: p.apiGroup, resource: p.resource, verbs: [] };
    if (!entry.verbs.includes(p.verb)) entry.verbs.push(p.verb);
    seen.set(key, entry);
  }
  return [...seen.values()].map((p) => ({ ...p, verbs: p.verbs.sort() }));
}

const byKey = (a: Permission, b: Permission) =>
  `${a.apiGroup}|${a.resource}`.localeCompare(`${b.apiGroup}|${b.resource}`);

describe("RBAC the dispatcher needs", () => {
  let h: Harness;
  let used: Permission[];

  beforeAll(async () => {
    // Exercise every code path once against the fake and record what the code asked for.
    h = await Harness.start({ resyncMs: 100 });
    const stop = new AbortController();
    const elector = new LeaseElector({
      kubeConfig: h.api.kubeConfig(),
      namespace: NS,
      name: "dispatcher",
      identity: "dispatcher-0",
      logger: memoryLogger(),
      leaseDurationSeconds: 1,
      renewDeadlineMs: 600,
      retryPeriodMs: 100,
    });
    const leading = elector.run(
      async (signal) =>
        new Promise<void>((r) => signal.addEventListener("abort", () => r(), { once: true })),
      stop.signal,
    );
    h.create("feed");
    await h.waitReady("feed", "True", "Reconciled");
    h.api.store.delete(SECRETS, NS, "ats-vacancy-feed-signing");
    await waitFor("secret restored", () => h.secretValue("ats-vacancy-feed-signing"));
    h.updateSpec("feed", { enabled: false });
    await waitFor("generation 2", () => h.cr("feed")?.status?.observedGeneration === 2);
    const secret = h.secret("ats-vacancy-feed-signing");
    h.api.store.update(SECRETS, NS, "ats-vacancy-feed-signing", {
      ...secret,
      metadata: secret?.metadata ?? { name: "" },
      data: {},
    }); // emptied: rotation replaces it in place
    await waitFor("secret rewritten", () => h.secretValue("ats-vacancy-feed-signing"));
    h.api.store.delete(WHS, NS, "feed");
    await waitFor("gone", () => h.cr("feed") === undefined);
    stop.abort();
    await leading;
    used = collect(h.api.requests.filter((r) => r.status !== 0));
  });

  afterAll(async () => {
    await h.close();
  });

  it("declares exactly what the code uses (plus the finalizers subresource admission needs)", () => {
    const declared = DISPATCHER_PERMISSIONS.filter(
      (p) => p.resource !== "webhooksubscriptions/finalizers",
    ).map((p) => ({ ...p, verbs: [...p.verbs].sort() }));
    expect(used.sort(byKey)).toEqual(declared.sort(byKey));
  });

  it("is granted by the chart's dispatcher Role", () => {
    const rules = renderedDispatcherRole();
    expect(missingPermissions(DISPATCHER_PERMISSIONS, rules)).toEqual([]);
  });

  it("is granted by the rules as written in the template file (no helm needed)", () => {
    // The Role's rules are plain YAML between "rules:" and the next document; no template logic inside.
    const text = readFileSync(join(chartDir, "templates/rbac.yaml"), "utf8");
    const rulesBlock = /\nrules:\n([\s\S]*?)\n---/.exec(text)?.[1];
    const rules = parse(`rules:\n${rulesBlock ?? ""}`) as { rules: PolicyRule[] };
    expect(rules.rules.length).toBeGreaterThan(0);
    expect(missingPermissions(DISPATCHER_PERMISSIONS, rules.rules)).toEqual([]);
  });

  it("lists what the chart grants beyond need (for least privilege)", () => {
    const extra = unusedGrants(DISPATCHER_PERMISSIONS, renderedDispatcherRole()).sort(byKey);
    expect(extra).toEqual([
      { apiGroup: "", resource: "events", verbs: ["patch"] },
      { apiGroup: "", resource: "secrets", verbs: ["list", "watch", "patch"] },
      { apiGroup: "coordination.k8s.io", resource: "leases", verbs: ["list", "watch", "patch"] },
      { apiGroup: "events.k8s.io", resource: "events", verbs: ["create", "patch"] },
      { apiGroup: "integration.svc.io", resource: "webhooksubscriptions", verbs: ["patch"] },
      {
        apiGroup: "integration.svc.io",
        resource: "webhooksubscriptions/status",
        verbs: ["get", "patch"],
      },
    ]);
  });
});
