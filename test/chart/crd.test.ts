// The WebhookSubscription CRD: one copy in the chart's crds/, a structural schema, and the
// example custom resource valid against it; wrong resources are rejected.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chartDir, parseObjects, repoRoot, type K8sObject } from "./support/helm.ts";
import { validateAgainst, type SchemaNode } from "./support/openapi-schema.ts";
import { READY, READY_REASONS } from "../../services/webhooks/src/workers/operator/status.ts";

interface Crd extends K8sObject {
  spec: {
    group: string;
    names: { kind: string; plural: string };
    scope: string;
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      subresources?: { status?: object };
      schema: { openAPIV3Schema: SchemaNode };
    }[];
  };
}

const crd = parseObjects(
  readFileSync(join(chartDir, "crds/webhooksubscriptions.integration.svc.io.yaml"), "utf8"),
)[0] as Crd;
const example = parseObjects(
  readFileSync(join(repoRoot, "k8s/examples/webhooksubscription.yaml"), "utf8"),
)[0] as K8sObject;

/**
 * Problems of a custom resource against the CRD: apiVersion, kind, name and the version's schema.
 */
function problems(cr: K8sObject): string[] {
  const [group, version] = cr.apiVersion.split("/");
  const served = crd.spec.versions.find((v) => v.name === version && v.served);
  const p: string[] = [];
  if (group !== crd.spec.group || !served) p.push(`apiVersion ${cr.apiVersion} not served`);
  if (cr.kind !== crd.spec.names.kind) p.push(`kind ${cr.kind}`);
  if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(cr.metadata?.name ?? "")) p.push("metadata.name");
  return served ? [...p, ...validateAgainst(served.schema.openAPIV3Schema, cr)] : p;
}

function withSpec(change: Record<string, unknown>): K8sObject {
  const copy = structuredClone(example) as K8sObject & { spec: Record<string, unknown> };
  Object.assign(copy.spec, change);
  for (const [k, v] of Object.entries(change)) if (v === undefined) delete copy.spec[k];
  return copy;
}

describe("WebhookSubscription CRD", () => {
  it("is namespaced, v1alpha1, with a status subresource and the spec's fields", () => {
    expect(crd.metadata.name).toBe(`${crd.spec.names.plural}.${crd.spec.group}`);
    expect(crd.spec.scope).toBe("Namespaced");
    const [v] = crd.spec.versions;
    expect(v?.name).toBe("v1alpha1");
    expect(v?.subresources?.status).toEqual({});
    const props = v?.schema.openAPIV3Schema.properties;
    expect(Object.keys(props?.spec?.properties ?? {}).sort()).toEqual([
      "clientId",
      "enabled",
      "eventTypes",
      "secretName",
      "url",
    ]);
    expect(Object.keys(props?.status?.properties ?? {}).sort()).toEqual([
      "conditions",
      "observedGeneration",
      "subscriptionId",
    ]);
  });

  it("accepts the example custom resource", () => {
    expect(problems(example)).toEqual([]);
  });

  it("accepts a status written by the dispatcher", () => {
    const cr = structuredClone(example) as K8sObject;
    cr.status = {
      subscriptionId: "5b0c1c4e-8f3e-4a57-9a43-0c1f0c7d2a11",
      observedGeneration: 1,
      conditions: [
        {
          type: "Ready",
          status: "True",
          reason: "Reconciled",
          message: "",
          lastTransitionTime: "2026-11-22T10:00:00Z",
          observedGeneration: 1,
        },
      ],
    };
    expect(problems(cr)).toEqual([]);
  });

  const rejected: [string, K8sObject, RegExp][] = [
    [
      "a plain-http url",
      withSpec({ url: "http://hooks.example.com/x" }),
      /\/spec\/url: does not match/,
    ],
    [
      "an unknown event type",
      withSpec({ eventTypes: ["vacancy.archived"] }),
      /\/spec\/eventTypes\/0/,
    ],
    [
      "duplicate event types",
      withSpec({ eventTypes: ["vacancy.created", "vacancy.created"] }),
      /duplicate items/,
    ],
    ["no event types", withSpec({ eventTypes: [] }), /fewer than 1/],
    [
      "a missing secretName",
      withSpec({ secretName: undefined }),
      /missing required field secretName/,
    ],
    ["an unknown field", withSpec({ retries: 3 }), /\/spec\/retries: unknown field/],
    ["a string for enabled", withSpec({ enabled: "yes" }), /\/spec\/enabled: expected boolean/],
  ];
  for (const [what, cr, message] of rejected) {
    it(`rejects ${what}`, () => {
      expect(problems(cr).join("\n")).toMatch(message);
    });
  }

  it("rejects a condition with a status outside True/False/Unknown", () => {
    const cr = structuredClone(example) as K8sObject;
    cr.status = {
      conditions: [
        {
          type: "Ready",
          status: "Yes",
          reason: "R",
          message: "",
          lastTransitionTime: "2026-11-22T10:00:00Z",
        },
      ],
    };
    expect(problems(cr).join("\n")).toMatch(/conditions\/0\/status/);
  });
});

describe("the conditions the CRD and the platform guide promise", () => {
  const conditions = crd.spec.versions[0]!.schema.openAPIV3Schema.properties!.status!.properties!
    .conditions as SchemaNode & { description: string };

  it("are exactly the condition and reasons the operator writes (CRD description)", () => {
    // Every capitalised word of the description: the condition type, its statuses, the reasons.
    const named = new Set(conditions.description.match(/\b[A-Z][A-Za-z]+\b/g));
    expect([...named].sort()).toEqual([READY, "One", "True", "False", ...READY_REASONS].sort());
  });

  it("are exactly the reasons the operator writes (docs/platform.md table)", () => {
    const guide = readFileSync(join(repoRoot, "docs/platform.md"), "utf8");
    const rows = [...guide.matchAll(/^\| `(True|False)` \| `([A-Za-z]+)` \|/gm)].map(
      ([, status, reason]) => `${status} ${reason}`,
    );
    expect(rows.sort()).toEqual(
      READY_REASONS.map((r) => `${r === "Reconciled" ? "True" : "False"} ${r}`).sort(),
    );
    expect(guide).toContain(`the \`${READY}\` condition says`);
  });
});
