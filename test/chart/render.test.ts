// helm lint --strict and helm template for every value set CI keeps, and what each set changes
// against the default output.
import { join } from "node:path";
import { bundlePath, CHART_COMPONENTS, ENTRY_POINTS } from "@svc/manifest";
import { describe, expect, it } from "vitest";
import {
  byKind,
  chartDir,
  helm,
  kubeVersion,
  mergedValues,
  render,
  valueArgs,
  valueSets,
} from "./support/helm.ts";
import { component, deployments } from "./support/workloads.ts";

const componentNames = [...CHART_COMPONENTS].sort();

describe("helm lint --strict", () => {
  for (const [name, files] of Object.entries(valueSets)) {
    it(`passes for the ${name} values`, async () => {
      const result = await helm([
        "lint",
        chartDir,
        "--strict",
        "--kube-version",
        kubeVersion,
        ...valueArgs(files),
      ]);
      expect(result.stderr + result.stdout).toContain("0 chart(s) failed");
      expect(result.code).toBe(0);
    });
  }
});

describe("helm install --dry-run=client", () => {
  it("renders the NOTES with the names an operator needs", async () => {
    const result = await helm([
      "install",
      "isvc",
      chartDir,
      "--dry-run=client",
      "--namespace",
      "integration",
      ...valueArgs(valueSets.sandbox),
    ]);
    expect(result.stderr).toBe("");
    const notes = result.stdout.slice(result.stdout.indexOf("NOTES:"));
    expect(notes).toContain("helm test isvc -n integration");
    expect(notes).toContain("isvc-dispatcher");
    expect(notes).toContain("chart Secret isvc-secrets");
  });

  it("lists in the NOTES every Secret the production example names, and the uninstall order", async () => {
    const result = await helm([
      "install",
      "isvc",
      chartDir,
      "--dry-run=client",
      "--namespace",
      "integration",
      "-f",
      join(chartDir, "values-production.yaml"),
    ]);
    const notes = result.stdout.slice(result.stdout.indexOf("NOTES:"));
    const values = mergedValues([join(chartDir, "values-production.yaml")]);
    const named = JSON.stringify(values).match(/"(?:existingSecret|secretName)":"[^"]+"/g) ?? [];
    expect(named.length).toBeGreaterThanOrEqual(8);
    for (const pair of named)
      expect(notes).toContain(`Secret ${pair.split('":"')[1]!.slice(0, -1)}`);
    expect(notes).toContain("integration-webhook-secrets must exist");
    const order = [
      "kubectl -n integration delete webhooksubscriptions --all --wait",
      "helm uninstall isvc -n integration",
      "kubectl delete crd webhooksubscriptions.integration.svc.io",
    ].map((line) => notes.indexOf(line));
    expect(
      order.every((at, i) => at > (order[i - 1] ?? 0)),
      String(order),
    ).toBe(true);
  });
});

describe("helm template", () => {
  it("renders one Deployment, Service, ServiceAccount, PDB and NetworkPolicy per component (and Job) by default", async () => {
    const objects = await render();
    for (const kind of ["Deployment", "Service", "ServiceAccount", "PodDisruptionBudget"]) {
      expect(
        byKind(objects, kind)
          .map((o) => o.metadata.name)
          .sort(),
      ).toEqual(componentNames.map((c) => `isvc-${c}`));
    }
    expect(
      byKind(objects, "NetworkPolicy")
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual([...componentNames, "migrations", "test-health"].map((c) => `isvc-${c}`).sort());
    expect(byKind(objects, "HorizontalPodAutoscaler")).toEqual([]);
    expect(byKind(objects, "Job").map((o) => o.metadata.name)).toEqual(["isvc-migrations"]);
    expect(byKind(objects, "CustomResourceDefinition").map((o) => o.metadata.name)).toEqual([
      "webhooksubscriptions.integration.svc.io",
    ]);
    expect(byKind(objects, "Secret")).toEqual([]);
  });

  it("runs migrations as a pre-install/pre-upgrade hook with the bundle of tools/migrate.ts", async () => {
    const [job] = byKind(await render(), "Job");
    expect(job?.metadata.annotations?.["helm.sh/hook"]).toBe("pre-install,pre-upgrade");
    const spec = (job?.spec as { template: { spec: { containers: { command: string[] }[] } } })
      .template.spec;
    expect(spec.containers[0]?.command).toEqual(["node", bundlePath("tools/migrate.ts")]);
    expect(ENTRY_POINTS).toContain("tools/migrate.ts");
  });

  it("production: pins the image by digest and adds a ServiceMonitor, without a seeding Job", async () => {
    const objects = await render(valueSets.production);
    for (const spec of deployments(objects).values()) {
      expect(spec.containers[0]?.image).toMatch(/@sha256:[a-f0-9]{64}$/);
    }
    expect(byKind(objects, "ServiceMonitor")).toHaveLength(1);
    expect(byKind(objects, "Job").map(component)).toEqual(["migrations"]);
  });

  it("sandbox: adds the seeding Job after migrations and a hook Secret for inline values", async () => {
    const objects = await render(valueSets.sandbox);
    const jobs = byKind(objects, "Job");
    expect(jobs.map(component).sort()).toEqual(["migrations", "sandbox-seed"]);
    const seed = jobs.find((j) => component(j) === "sandbox-seed");
    expect(seed?.metadata.annotations?.["helm.sh/hook-weight"]).toBe("5");
    const spec = (seed?.spec as { template: { spec: { containers: { command: string[] }[] } } })
      .template.spec;
    expect(spec.containers[0]?.command).toEqual([
      "node",
      bundlePath("shared/sandbox/src/cli/seed.ts"),
      "--if-empty",
    ]);
    expect(ENTRY_POINTS).toContain("shared/sandbox/src/cli/seed.ts");
    const secrets = byKind(objects, "Secret")
      .map((s) => s.metadata.name)
      .sort();
    expect(secrets).toEqual(["isvc-secrets", "isvc-signing-keys"]);
    const chartSecret = byKind(objects, "Secret").find((s) => s.metadata.name === "isvc-secrets");
    expect(chartSecret?.metadata.annotations?.["helm.sh/hook-weight"]).toBe("-10");
    expect(byKind(objects, "Ingress")).toEqual([]);
  });

  it("hpa: adds an HPA per enabled component and leaves replicas to it", async () => {
    const objects = await render(valueSets.hpa);
    expect(byKind(objects, "HorizontalPodAutoscaler").map(component).sort()).toEqual([
      "dispatcher",
      "practices",
      "vacancies",
    ]);
    for (const d of byKind(objects, "Deployment")) {
      const replicas = (d.spec as { replicas?: number }).replicas;
      if (["dispatcher", "practices", "vacancies"].includes(component(d) ?? ""))
        expect(replicas).toBeUndefined();
      else expect(replicas).toBe(component(d) === "auth" ? 3 : 2);
    }
  });

  it("dev: no hook Jobs, migrations on start, a plain seeding Job", async () => {
    const objects = await render(valueSets.dev);
    const jobs = byKind(objects, "Job");
    expect(jobs.map(component)).toEqual(["sandbox-seed"]);
    expect(jobs[0]?.metadata.annotations?.["helm.sh/hook"]).toBeUndefined();
    expect(
      (jobs[0]?.spec as { template: { spec: { containers: { command: string[] }[] } } }).template
        .spec.containers[0]?.command,
    ).toEqual(["node", "shared/sandbox/src/cli/seed.ts", "--if-empty"]);
    for (const spec of deployments(objects).values()) {
      expect(spec.containers[0]?.env?.find((e) => e.name === "MIGRATE_ON_START")?.value).toBe(
        "true",
      );
    }
  });
});
