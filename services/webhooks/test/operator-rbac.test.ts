// The dispatcher's RBAC, derived from what the code asks: the operator and the Lease elector run
// every path once against the fake API server (@svc/testing/kube: no kube-apiserver can run
// here), each recorded request becomes the (namespace, group, resource, verb, name) the API
// server's authorizer would check, and that is compared with the declaration (rbac.ts) and with
// the Roles the chart renders, in both layouts (signing Secrets beside the resources, or in a
// namespace of their own).
import { execFileSync } from "node:child_process";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { k8sTools } from "@svc/testing";
import { LeaseElector } from "@svc/leader/lease";
import { grantList, missingPermissions } from "@svc/k8s";
import type { Permission, PolicyRule } from "@svc/k8s";
import type { RecordedRequest } from "@svc/testing/kube";
import { recordingLogger, waitFor } from "@svc/testing/kube";
import { LEADERSHIP_NAME } from "../src/workers/start-leader-group.ts";
import { dispatcherPermissions } from "../src/workers/operator/rbac.ts";
import { Harness, NS, SECRETS, WHS } from "./support/subscription-harness.ts";

const repoRoot = resolve(import.meta.dirname, "../../..");
const chartDir = join(repoRoot, "charts/integration-service");
const SECRET_NS = "integration-webhook-secrets";
/** The Lease the chart names after its release ("isvc"): LEADER_ELECTION_NAME. */
const CHART_LEASE = "isvc-dispatcher";

type Role = { metadata: { name: string; namespace?: string }; rules: PolicyRule[] };

/**
 * The Roles the chart renders with its default values (plus `set`), by namespace. The API server's
 * endpoints are required with network policies on; any address does for the Roles.
 */
function renderedRoles(set: string[] = []): Map<string, PolicyRule[]> {
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
      "--set",
      "networkPolicy.kubeApiServer.cidrs={10.0.0.1/32}",
      ...set.flatMap((s) => ["--set", s]),
    ],
    { encoding: "utf8" },
  );
  const roles = new Map<string, PolicyRule[]>();
  for (const doc of parseAllDocuments(out)) {
    const o = doc.toJS() as (Role & { kind?: string }) | null;
    if (o?.kind !== "Role") continue;
    const ns = o.metadata.namespace ?? NS;
    roles.set(ns, [...(roles.get(ns) ?? []), ...o.rules]);
  }
  return roles;
}

const VERBS: Record<string, string> = {
  POST: "create",
  PUT: "update",
  PATCH: "patch",
  DELETE: "delete",
};

/** What the authorizer checks for one request; `name` only where RBAC can limit by name. */
type Need = { namespace: string; grant: string };

function needOf(r: RecordedRequest): Need {
  const parts = (r.resource ?? "").split("/"); // "v1/<plural>" or "<group>/<version>/<plural>"
  const apiGroup = parts.length === 3 ? (parts[0] as string) : "";
  const plural = parts.at(-1) as string;
  const read = r.query.watch === "true" ? "watch" : r.name ? "get" : "list";
  const verb = r.method === "GET" ? read : (VERBS[r.method] ?? r.method.toLowerCase());
  const resource = r.subresource ? `${plural}/${r.subresource}` : plural;
  const namespace = /\/namespaces\/([^/]+)\//.exec(r.path)?.[1] ?? "";
  return { namespace, grant: `${apiGroup}|${resource}|${verb}|${r.name ?? "*"}` };
}

/** Whether a declared grant ("group|resource|verb|names") authorizes a need. */
function covers(grant: string, need: string): boolean {
  const [g, r, v, names] = grant.split("|");
  const [ng, nr, nv, name] = need.split("|");
  if (g !== ng || r !== nr || v !== nv) return false;
  return names === "*" || (name !== "*" && (names ?? "").split(",").includes(name ?? ""));
}

/** Runs every path of the operator and the elector once; returns the requests that got an answer. */
async function exercise(secretNamespace?: string): Promise<RecordedRequest[]> {
  const h = await Harness.start({
    resyncMs: 60_000,
    ...(secretNamespace && { secretNamespace }),
  });
  try {
    const stop = new AbortController();
    const elector = new LeaseElector({
      kubeConfig: h.api.kubeConfig(),
      namespace: NS,
      name: LEADERSHIP_NAME,
      identity: "dispatcher-0",
      logger: recordingLogger(),
      leaseDurationSeconds: 1,
      renewDeadlineMs: 600,
      retryPeriodMs: 100,
    });
    const leading = elector.run(
      async (signal) =>
        new Promise<void>((r) => signal.addEventListener("abort", () => r(), { once: true })),
      stop.signal,
    );
    const secretName = "ats-vacancy-feed-signing";
    h.create("feed");
    await h.waitReady("feed", "True", "Reconciled");
    h.api.store.delete(SECRETS, h.secretNamespace, secretName);
    await waitFor("secret restored", () => h.secretValue(secretName));
    h.updateSpec("feed", { enabled: false });
    await waitFor("generation 2", () => h.cr("feed")?.status?.observedGeneration === 2);
    const secret = h.secret(secretName);
    h.api.store.update(SECRETS, h.secretNamespace, secretName, {
      ...secret,
      metadata: secret?.metadata ?? { name: "" },
      data: {},
    }); // emptied: rotation replaces it in place
    await waitFor("secret rewritten", () => h.secretValue(secretName));
    h.api.store.delete(WHS, NS, "feed");
    await waitFor("gone", () => h.cr("feed") === undefined);
    if (secretNamespace) await waitFor("secret deleted", () => h.secret(secretName) === undefined);
    stop.abort();
    await leading;
    return h.api.requests.filter((r) => r.status !== 0);
  } finally {
    await h.close();
  }
}

/** Per namespace, the declared grants as "group|resource|verb|names". */
function declaredGrants(separate: boolean, leaseName = LEADERSHIP_NAME): Map<string, string[]> {
  const declared = dispatcherPermissions({
    leaseName,
    separateSecretNamespace: separate,
  });
  const map = new Map([[NS, grantList(declared.own)]]);
  if (separate) map.set(SECRET_NS, grantList(declared.secrets));
  return map;
}

/** Admission needs it, no request uses it (rbac.ts). */
const ADMISSION_ONLY = "integration.svc.io|webhooksubscriptions/finalizers|update|*";

for (const layout of [
  { title: "signing Secrets beside the resources", separate: false, set: [] as string[] },
  {
    title: "signing Secrets in their own namespace",
    separate: true,
    set: [`rbac.secretNamespace=${SECRET_NS}`],
  },
]) {
  describe(`the dispatcher's RBAC, ${layout.title}`, () => {
    let needs: Need[];
    const declared = declaredGrants(layout.separate);

    beforeAll(async () => {
      needs = (await exercise(layout.separate ? SECRET_NS : undefined)).map(needOf);
    });

    it("declares nothing the code does not ask for, and everything it asks for", () => {
      const uncovered = needs.filter(
        (n) => !(declared.get(n.namespace) ?? []).some((g) => covers(g, n.grant)),
      );
      expect(uncovered).toEqual([]);
      const unused = [...declared].flatMap(([ns, grants]) =>
        grants
          .filter((g) => g !== ADMISSION_ONLY)
          .filter((g) => !needs.some((n) => n.namespace === ns && covers(g, n.grant)))
          .map((g) => `${ns}: ${g}`),
      );
      expect(unused).toEqual([]);
    });

    it("limits the Lease to its name and keeps Secrets where the layout puts them", () => {
      const own = declared.get(NS) ?? [];
      expect(own.filter((g) => g.startsWith("coordination.k8s.io|leases|"))).toEqual([
        "coordination.k8s.io|leases|create|*",
        `coordination.k8s.io|leases|get|${LEADERSHIP_NAME}`,
        `coordination.k8s.io|leases|update|${LEADERSHIP_NAME}`,
      ]);
      const secretsInOwn = own.some((g) => g.startsWith("|secrets|"));
      expect(secretsInOwn).toBe(!layout.separate);
      expect(needs.some((n) => n.namespace === NS && n.grant.startsWith("|secrets|"))).toBe(
        !layout.separate,
      );
    });

    it("is exactly what the chart's Roles grant, namespace by namespace", () => {
      const roles = renderedRoles(layout.set);
      const chartDeclared = declaredGrants(layout.separate, CHART_LEASE);
      expect([...roles.keys()].sort()).toEqual([...chartDeclared.keys()].sort());
      for (const [ns, grants] of chartDeclared)
        expect(grantList(roles.get(ns) ?? []), ns).toEqual(grants);
      const perms = dispatcherPermissions({
        leaseName: CHART_LEASE,
        separateSecretNamespace: layout.separate,
      });
      const check: Array<[Permission[], PolicyRule[]]> = [[perms.own, roles.get(NS) ?? []]];
      if (layout.separate) check.push([perms.secrets, roles.get(SECRET_NS) ?? []]);
      for (const [required, rules] of check)
        expect(missingPermissions(required, rules)).toEqual([]);
    });
  });
}
