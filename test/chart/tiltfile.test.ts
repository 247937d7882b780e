// The Tiltfile is well-formed Starlark (buildifier) and what it names (release, image, workloads,
// ports, Secrets, CRD) exists in the chart rendered with the dev values and in k8s/dev/.
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { byKind, parseObjects, render, repoRoot, type K8sObject } from "./support/helm.ts";
import { starlarkLiterals } from "./support/starlark-literals.ts";
import { deployments, podSpecOf } from "./support/workloads.ts";

const run = promisify(execFile);
const tiltfile = readFileSync(join(repoRoot, "Tiltfile"), "utf8");
const data = starlarkLiterals(tiltfile) as {
  RELEASE: string;
  IMAGE: string;
  CHART: string;
  DEV_VALUES: string;
  CRD: string;
  COMPONENTS: Record<string, { port: number; local_port: number; labels: string[] }>;
  DEPENDENCIES: Record<string, { file: string; port: number; local_port: number }>;
  DEV_SECRETS: { file: string; objects: string[] };
  EXAMPLE_SUBSCRIPTION: string;
  GATEWAY: { port: number; entrypoint: string };
};
// The Tiltfile adds the cluster's API server endpoints (kube_api_server_values); api-server.yaml
// stands in for them.
const renderDev = () =>
  render([join(repoRoot, data.DEV_VALUES), "api-server.yaml"], [], data.RELEASE);
const readObjects = (file: string): K8sObject[] =>
  parseObjects(readFileSync(join(repoRoot, file), "utf8"));

function buildifierBinary(): string {
  const arch = process.arch === "arm64" ? "arm64" : "amd64";
  return join(repoRoot, `node_modules/@bazel/buildifier/buildifier-${process.platform}_${arch}`);
}

describe("Tiltfile", () => {
  it("passes buildifier --mode=check --lint=warn", async () => {
    const result = await run(buildifierBinary(), ["--mode=check", "--lint=warn", "Tiltfile"], {
      cwd: repoRoot,
    }).catch((e: { stdout: string; stderr: string }) => e);
    expect(`${result.stdout}${result.stderr}`).toBe("");
  });

  it("declares its data as literals", () => {
    for (const key of [
      "RELEASE",
      "IMAGE",
      "CHART",
      "DEV_VALUES",
      "CRD",
      "COMPONENTS",
      "DEPENDENCIES",
      "DEV_SECRETS",
      "EXAMPLE_SUBSCRIPTION",
    ]) {
      expect(data, key).toHaveProperty(key);
    }
    for (const file of [
      data.CHART,
      data.DEV_VALUES,
      data.DEV_SECRETS.file,
      data.EXAMPLE_SUBSCRIPTION,
    ])
      expect(existsSync(join(repoRoot, file)), file).toBe(true);
  });

  it("names every Deployment of the dev render, and only those", async () => {
    const names = [...deployments(await renderDev()).keys()].sort();
    expect(names).toEqual(
      Object.keys(data.COMPONENTS)
        .map((c) => `${data.RELEASE}-${c}`)
        .sort(),
    );
  });

  it("forwards to ports the containers listen on, from distinct local ports", async () => {
    const pods = deployments(await renderDev());
    for (const [name, c] of Object.entries(data.COMPONENTS)) {
      const ports = pods
        .get(`${data.RELEASE}-${name}`)
        ?.containers[0]?.ports?.map((p) => p.containerPort);
      expect(ports, name).toContain(c.port);
    }
    const local = [...Object.values(data.COMPONENTS), ...Object.values(data.DEPENDENCIES)].map(
      (c) => c.local_port,
    );
    expect(new Set(local).size).toBe(local.length);
  });

  it("builds the image the dev render runs, with the Dockerfile's dev target", async () => {
    for (const pod of deployments(await renderDev()).values())
      expect(pod.containers[0]?.image).toMatch(new RegExp(`^${data.IMAGE}:`));
    expect(tiltfile).toMatch(/target = "dev"/);
    expect(readFileSync(join(repoRoot, "Dockerfile"), "utf8")).toMatch(/^FROM runtime AS dev$/m);
  });

  it("names the CRD and the seeding Job the dev render contains", async () => {
    const objects = await renderDev();
    expect(byKind(objects, "CustomResourceDefinition").map((o) => o.metadata.name)).toEqual([
      data.CRD,
    ]);
    expect(tiltfile).toContain('"%s-sandbox-seed" % RELEASE');
    expect(byKind(objects, "Job").map((o) => o.metadata.name)).toEqual([
      `${data.RELEASE}-sandbox-seed`,
    ]);
  });

  it("deploys dependencies whose workloads and Services match their names and ports", () => {
    for (const [name, dep] of Object.entries(data.DEPENDENCIES)) {
      const objects = readObjects(dep.file);
      const deployment = objects.find((o) => o.kind === "Deployment" && o.metadata.name === name);
      expect(
        podSpecOf(deployment!)?.containers.flatMap(
          (c) => c.ports?.map((p) => p.containerPort) ?? [],
        ),
        name,
      ).toContain(dep.port);
      const service = objects.find((o) => o.kind === "Service" && o.metadata.name === name);
      expect(
        (service?.spec as { ports: { port: number }[] }).ports.map((p) => p.port),
        name,
      ).toContain(dep.port);
    }
  });

  it("creates every Secret and key the dev render reads", async () => {
    const secrets = readObjects(data.DEV_SECRETS.file);
    expect(data.DEV_SECRETS.objects.sort()).toEqual(
      secrets.map((s) => `${s.metadata.name}:secret`).sort(),
    );
    const keys = new Map(
      secrets.map((s) => [s.metadata.name, Object.keys((s.stringData as object) ?? {})]),
    );
    for (const obj of await renderDev()) {
      const pod = podSpecOf(obj);
      for (const c of pod?.containers ?? []) {
        for (const e of c.env ?? []) {
          const ref = e.valueFrom?.secretKeyRef;
          if (ref) expect(keys.get(ref.name), `${obj.metadata.name} ${e.name}`).toContain(ref.key);
        }
      }
      for (const v of pod?.volumes ?? [])
        if (v.secret) expect(keys.has(v.secret.secretName), v.secret.secretName).toBe(true);
    }
  });

  it("runs the local gateway on the port of the dev publicBaseUrl, with the variables it reads", async () => {
    const [auth] = deployments(await renderDev()).values();
    const base = auth?.containers[0]?.env?.find((e) => e.name === "PUBLIC_BASE_URL")?.value;
    expect(base).toBe(`http://localhost:${data.GATEWAY.port}`);
    const gatewayConfig = readFileSync(
      join(repoRoot, dirname(data.GATEWAY.entrypoint), "config.ts"),
      "utf8",
    );
    for (const key of ["PORT", "GATEWAY_UPSTREAMS"]) {
      expect(tiltfile).toContain(`"${key}"`);
      expect(gatewayConfig).toContain(key);
    }
  });

  it("opts into the example subscription by its name", () => {
    const [cr] = readObjects(data.EXAMPLE_SUBSCRIPTION);
    expect(tiltfile).toContain(`"${cr?.metadata.name}:webhooksubscription"`);
  });
});
