// Prometheus scraping as rendered: the pod annotations and the ServiceMonitor must point at the
// port each process serves /metrics on (INTERNAL_PORT, the container port named "internal"), and
// the network policies must let the scrapers reach it.
import { describe, expect, it } from "vitest";
import { byKind, render, valueSets, type K8sObject } from "./support/helm.ts";
import { component, envOf, podSpecOf } from "./support/workloads.ts";

type PodTemplate = {
  metadata?: { annotations?: Record<string, string>; labels?: Record<string, string> };
};
type ServiceSpec = {
  selector: Record<string, string>;
  ports: Array<{ name: string; port: number; targetPort: string | number }>;
};
type ServiceMonitorSpec = {
  selector: { matchLabels: Record<string, string> };
  jobLabel: string;
  endpoints: Array<{ port: string; path: string }>;
};
type PolicySpec = {
  podSelector: { matchLabels: Record<string, string> };
  ingress?: Array<{ from?: unknown[]; ports?: Array<{ port: string | number }> }>;
};

const deploymentsOf = (objects: K8sObject[]) => byKind(objects, "Deployment");

/**
 * Where the process of a Deployment serves /metrics: its INTERNAL_PORT, which must be the container
 * port named internal.
 */
function internalPortOf(deployment: K8sObject): number {
  const container = podSpecOf(deployment)!.containers[0]!;
  const named = container.ports?.find((p) => p.name === "internal")?.containerPort;
  expect(
    Number(envOf(container).get("INTERNAL_PORT")?.value),
    `${deployment.metadata.name}: INTERNAL_PORT`,
  ).toBe(named);
  return named!;
}

describe("scrape annotations", () => {
  for (const [name, files] of Object.entries(valueSets)) {
    it(`${name}: every service pod is annotated to be scraped at /metrics on the port INTERNAL_PORT names, unless a ServiceMonitor scrapes it`, async () => {
      const objects = await render(files);
      const monitored = byKind(objects, "ServiceMonitor").length > 0;
      const deployments = deploymentsOf(objects);
      expect(deployments.length).toBeGreaterThanOrEqual(6);
      for (const d of deployments) {
        const annotations =
          (d.spec as { template: PodTemplate }).template.metadata?.annotations ?? {};
        if (monitored)
          expect(Object.keys(annotations).filter((k) => k.startsWith("prometheus.io/"))).toEqual(
            [],
          );
        else
          expect(annotations, d.metadata.name).toMatchObject({
            "prometheus.io/scrape": "true",
            "prometheus.io/path": "/metrics",
            "prometheus.io/port": String(internalPortOf(d)),
          });
      }
    });
  }

  it("are left out when metrics.podAnnotations is false", async () => {
    for (const d of deploymentsOf(
      await render(valueSets.default, ["--set", "metrics.podAnnotations=false"]),
    )) {
      const annotations =
        (d.spec as { template: PodTemplate }).template.metadata?.annotations ?? {};
      expect(
        Object.keys(annotations).filter((k) => k.startsWith("prometheus.io/")),
        d.metadata.name,
      ).toEqual([]);
    }
  });
});

describe("ServiceMonitor", () => {
  it("is absent unless enabled", async () => {
    expect(byKind(await render(valueSets.default), "ServiceMonitor")).toEqual([]);
  });

  it("selects every component's Service and scrapes its internal port at /metrics, which reaches the process's INTERNAL_PORT", async () => {
    const objects = await render(valueSets.default, [
      "--set",
      "metrics.serviceMonitor.enabled=true",
      "--set",
      "metrics.serviceMonitor.interval=15s",
      "--set-string",
      "metrics.serviceMonitor.labels.release=prometheus",
    ]);
    const [monitor] = byKind(objects, "ServiceMonitor");
    expect(monitor).toBeDefined();
    expect(monitor!.metadata.labels?.release).toBe("prometheus");
    const spec = monitor!.spec as ServiceMonitorSpec;
    expect(spec.endpoints).toEqual([
      expect.objectContaining({ port: "internal", path: "/metrics", interval: "15s" }),
    ]);

    const services = byKind(objects, "Service");
    const selected = services.filter((s) =>
      Object.entries(spec.selector.matchLabels).every(([k, v]) => s.metadata.labels?.[k] === v),
    );
    const deployments = deploymentsOf(objects);
    // One selected Service per Deployment, each carrying the job label.
    expect(selected.map((s) => component(s)).sort()).toEqual(
      deployments.map((d) => component(d)).sort(),
    );
    for (const service of selected) {
      expect(service.metadata.labels?.[spec.jobLabel], service.metadata.name).toBeTruthy();
      const svc = service.spec as ServiceSpec;
      const port = svc.ports.find((p) => p.name === "internal");
      expect(port, service.metadata.name).toBeDefined();
      // The Service's selector picks exactly its component's pods, and its target is the container
      // port that INTERNAL_PORT names.
      const deployment = deployments.find((d) =>
        Object.entries(svc.selector).every(
          ([k, v]) =>
            ((d.spec as { template: PodTemplate }).template.metadata?.labels ?? {})[k] === v,
        ),
      );
      expect(deployment, service.metadata.name).toBeDefined();
      expect(component(deployment!)).toBe(component(service));
      const internal = internalPortOf(deployment!);
      expect(
        port!.targetPort === "internal" || port!.targetPort === internal,
        service.metadata.name,
      ).toBe(true);
    }
  });

  it("production values enable it", async () => {
    expect(byKind(await render(valueSets.production), "ServiceMonitor")).toHaveLength(1);
  });
});

describe("network policies", () => {
  it("let the configured scrapers reach every component's internal port", async () => {
    const objects = await render(valueSets.production);
    const policies = byKind(objects, "NetworkPolicy");
    for (const d of deploymentsOf(objects)) {
      const labels = (d.spec as { template: PodTemplate }).template.metadata?.labels ?? {};
      const own = policies.filter((p) =>
        Object.entries((p.spec as PolicySpec).podSelector.matchLabels ?? {}).every(
          ([k, v]) => labels[k] === v,
        ),
      );
      const rules = own.flatMap((p) => (p.spec as PolicySpec).ingress ?? []);
      const scrape = rules.find(
        (r) =>
          (r.ports ?? []).some((p) => p.port === "internal" || p.port === internalPortOf(d)) &&
          JSON.stringify(r.from ?? []).includes("monitoring"),
      );
      expect(
        scrape,
        `${d.metadata.name}: no ingress rule from the scrapers to the internal port`,
      ).toBeDefined();
    }
  });
});
