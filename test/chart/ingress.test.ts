// The Ingress is generated from routes.json, the one route table the local gateway reads too.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { byKind, chartDir, render, valueSets, type K8sObject } from "./support/helm.ts";

interface Route {
  prefix: string;
  service: string;
}
interface IngressSpec {
  ingressClassName?: string;
  tls?: { hosts: string[]; secretName: string }[];
  rules: {
    host: string;
    http: {
      paths: {
        path: string;
        pathType: string;
        backend: { service: { name: string; port: { name: string } } };
      }[];
    };
  }[];
}

const routes = (
  JSON.parse(readFileSync(join(chartDir, "routes.json"), "utf8")) as { routes: Route[] }
).routes;

function ingressOf(objects: K8sObject[]): IngressSpec {
  const [ingress] = byKind(objects, "Ingress");
  expect(ingress).toBeDefined();
  return ingress?.spec as IngressSpec;
}

describe("Ingress", () => {
  it("routes exactly the prefixes of routes.json to their services' http ports", async () => {
    const spec = ingressOf(await render());
    const paths = spec.rules.flatMap((r) => r.http.paths);
    expect(
      paths.map((p) => ({ prefix: p.path, service: p.backend.service.name.replace(/^isvc-/, "") })),
    ).toEqual(routes);
    for (const p of paths) {
      expect(p.pathType).toBe("Prefix");
      expect(p.backend.service.port.name).toBe("http");
    }
  });

  it("routes only to Services that expose an http port", async () => {
    const objects = await render();
    const httpServices = new Set(
      byKind(objects, "Service")
        .filter((s) =>
          (s.spec as { ports: { name: string }[] }).ports.some((p) => p.name === "http"),
        )
        .map((s) => s.metadata.name),
    );
    for (const p of ingressOf(objects).rules.flatMap((r) => r.http.paths))
      expect(httpServices).toContain(p.backend.service.name);
  });

  it("serves the host of publicBaseUrl without TLS by default", async () => {
    const spec = ingressOf(await render());
    expect(spec.rules.map((r) => r.host)).toEqual(["api.example.com"]);
    expect(spec.tls).toBeUndefined();
    expect(spec.ingressClassName).toBeUndefined();
  });

  it("takes the host without the port of publicBaseUrl", async () => {
    const spec = ingressOf(
      await render(valueSets.default, ["--set", "publicBaseUrl=https://api.example.com:8443"]),
    );
    expect(spec.rules.map((r) => r.host)).toEqual(["api.example.com"]);
  });

  it("adds TLS for that host and the class name when configured", async () => {
    const spec = ingressOf(await render(valueSets["ingress-tls"]));
    expect(spec.ingressClassName).toBe("nginx");
    expect(spec.tls).toEqual([
      { hosts: ["api.integration.example.com"], secretName: "integration-tls" },
    ]);
    expect(spec.rules.map((r) => r.host)).toEqual(["api.integration.example.com"]);
  });
});
