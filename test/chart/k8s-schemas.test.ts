// Every object the chart renders (for every value set) and every manifest under k8s/ is valid
// against the Kubernetes API schemas, with no field the API does not know.
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { k8sTools } from "@svc/testing";
import { parseObjects, render, repoRoot, valueSets, type K8sObject } from "./support/helm.ts";
import { unknownFields, unknownFieldsStrict, validateModel } from "./support/k8s-schema.ts";

/**
 * Kinds from CRDs that kubernetes-models does not cover, with the fields their spec may use
 * (the Prometheus Operator's ServiceMonitor and PrometheusRule, as far as the chart uses them;
 * test/chart/alerts.test.ts checks the rules themselves).
 */
const foreignKinds: Record<string, { apiVersion: string; specFields: string[] }> = {
  ServiceMonitor: {
    apiVersion: "monitoring.coreos.com/v1",
    specFields: ["selector", "jobLabel", "endpoints", "namespaceSelector"],
  },
  PrometheusRule: {
    apiVersion: "monitoring.coreos.com/v1",
    specFields: ["groups"],
  },
};
/** Our own custom resources: validated against the CRD in crd.test.ts. */
const ownGroups = ["integration.svc.io/"];

async function problems(obj: K8sObject): Promise<string[]> {
  const foreign = foreignKinds[obj.kind];
  if (foreign) {
    const extra = Object.keys((obj.spec as object | undefined) ?? {}).filter(
      (k) => !foreign.specFields.includes(k),
    );
    return [
      ...(obj.apiVersion === foreign.apiVersion ? [] : [`apiVersion ${obj.apiVersion}`]),
      ...extra.map((k) => `unknown spec field ${k}`),
    ];
  }
  try {
    await validateModel(obj);
  } catch (err) {
    return [String(err instanceof Error ? err.message : err)];
  }
  return (await unknownFieldsStrict(obj)).map((p) => `unknown field ${p}`);
}

async function expectValid(objects: K8sObject[]): Promise<void> {
  const found: Record<string, string[]> = {};
  for (const obj of objects) {
    if (ownGroups.some((g) => obj.apiVersion.startsWith(g))) continue;
    const p = await problems(obj);
    if (p.length > 0) found[`${obj.kind}/${obj.metadata.name}`] = p;
  }
  expect(found).toEqual({});
}

describe("rendered chart objects", () => {
  for (const [name, files] of Object.entries(valueSets)) {
    it(`are valid Kubernetes objects for the ${name} values`, async () => {
      const objects = await render(files);
      expect(objects.length).toBeGreaterThan(20);
      await expectValid(objects);
    });
  }
});

describe("k8s/ manifests", () => {
  it("are valid Kubernetes objects", async () => {
    const dir = join(repoRoot, "k8s/dev");
    const files = readdirSync(dir).filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml");
    const objects = files.flatMap((f) => parseObjects(readFileSync(join(dir, f), "utf8")));
    expect(objects.map((o) => o.kind)).toContain("Deployment");
    await expectValid(objects);
  });
});

describe("k8s/dev kustomization", () => {
  it("builds offline with kubectl kustomize and lists every manifest", async () => {
    const { stdout } = await promisify(execFile)(k8sTools().kubectl, [
      "kustomize",
      join(repoRoot, "k8s/dev"),
    ]);
    const names = parseObjects(stdout)
      .map((o) => `${o.kind}/${o.metadata.name}`)
      .sort();
    const dir = join(repoRoot, "k8s/dev");
    const direct = readdirSync(dir)
      .filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml")
      .flatMap((f) => parseObjects(readFileSync(join(dir, f), "utf8")))
      .map((o) => `${o.kind}/${o.metadata.name}`)
      .sort();
    expect(names).toEqual(direct);
  });
});

describe("the unknown-field check", () => {
  it("reports a misspelt field deep in a pod template", async () => {
    const [deployment] = (await render()).filter((o) => o.kind === "Deployment");
    const copy = structuredClone(deployment) as K8sObject & {
      spec: { template: { spec: { containers: Record<string, unknown>[] } } };
    };
    const container = copy.spec.template.spec.containers[0] as Record<string, unknown>;
    container.securityContex = { runAsNonRoot: true };
    expect(await unknownFields(copy)).toEqual(["/spec/template/spec/containers/0/securityContex"]);
  });

  it("accepts free-form maps such as labels and annotations", async () => {
    const [service] = (await render()).filter((o) => o.kind === "Service");
    const copy = structuredClone(service) as K8sObject;
    copy.metadata.annotations = { "example.com/anything": "x" };
    expect(await unknownFields(copy)).toEqual([]);
  });
});

describe("the CRD schema-key check", () => {
  it("reports a misspelt keyword inside openAPIV3Schema", async () => {
    const crd = (await render()).find((o) => o.kind === "CustomResourceDefinition") as K8sObject;
    const copy = structuredClone(crd) as K8sObject & {
      spec: {
        versions: {
          schema: { openAPIV3Schema: { properties: { spec: Record<string, unknown> } } };
        }[];
      };
    };
    const spec = copy.spec.versions[0]?.schema.openAPIV3Schema.properties.spec as Record<
      string,
      unknown
    >;
    spec.requird = ["url"];
    expect(await unknownFieldsStrict(copy)).toEqual([
      "/spec/versions/0/schema/openAPIV3Schema/properties/spec/requird",
    ]);
  });
});

describe("the model validation", () => {
  it("rejects a value of the wrong type", async () => {
    const [deployment] = (await render()).filter((o) => o.kind === "Deployment");
    const copy = structuredClone(deployment) as K8sObject & { spec: Record<string, unknown> };
    copy.spec.replicas = "two";
    await expect(validateModel(copy)).rejects.toThrow(/replicas/);
  });
});
