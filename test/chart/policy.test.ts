// Policy every workload keeps, whatever the value set: resources, probes that mean different
// things, secure contexts, a writable /tmp only, graceful termination, one PDB and one
// NetworkPolicy per component, service-account tokens only where the API is used.
import { describe, expect, it } from "vitest";
import { byKind, render, valueSets, type K8sObject } from "./support/helm.ts";
import { component, podSpecOf, type Container, type PodSpec } from "./support/workloads.ts";

/** Value sets held to the production policy; dev differs on purpose (tested below). */
const policySets = Object.entries(valueSets).filter(([name]) => name !== "dev");

function workloads(objects: K8sObject[]): { obj: K8sObject; pod: PodSpec }[] {
  return objects.flatMap((obj) => {
    const pod = podSpecOf(obj);
    return pod ? [{ obj, pod }] : [];
  });
}

function containerProblems(
  c: Container,
  pod: PodSpec,
  longRunning: boolean,
  readOnlyRoot = true,
): string[] {
  const p: string[] = [];
  const sc = c.securityContext ?? {};
  if (!c.resources?.requests?.cpu || !c.resources.requests.memory) p.push("no cpu/memory request");
  if (!c.resources?.limits?.memory) p.push("no memory limit");
  if (sc.allowPrivilegeEscalation !== false) p.push("allowPrivilegeEscalation not false");
  if (sc.readOnlyRootFilesystem !== readOnlyRoot)
    p.push(`readOnlyRootFilesystem not ${readOnlyRoot}`);
  if (!(sc.capabilities?.drop ?? []).includes("ALL") || (sc.capabilities?.add ?? []).length > 0)
    p.push("capabilities not dropped");
  if (sc.runAsNonRoot !== true && pod.securityContext?.runAsNonRoot !== true)
    p.push("may run as root");
  if ((sc.seccompProfile ?? pod.securityContext?.seccompProfile)?.type !== "RuntimeDefault")
    p.push("no RuntimeDefault seccomp");
  if (/:latest$/.test(c.image) || !/[:@]/.test(c.image.split("/").pop() ?? ""))
    p.push("unpinned image");
  if (!longRunning) return p;
  if (c.startupProbe?.httpGet?.path !== "/livez") p.push("startup probe not /livez");
  if (c.livenessProbe?.httpGet?.path !== "/livez") p.push("liveness probe not /livez");
  if (c.readinessProbe?.httpGet?.path !== "/readyz") p.push("readiness probe not /readyz");
  for (const probe of [c.startupProbe, c.livenessProbe, c.readinessProbe])
    if (probe?.httpGet?.port !== "internal") p.push("probe not on the internal port");
  const tmp = c.volumeMounts?.find((m) => m.mountPath === "/tmp");
  if (!tmp || !pod.volumes?.find((v) => v.name === tmp.name)?.emptyDir) p.push("no emptyDir /tmp");
  const sleep = c.lifecycle?.preStop?.sleep?.seconds;
  if (sleep === undefined || sleep < 1 || sleep >= (pod.terminationGracePeriodSeconds ?? 30))
    p.push("preStop sleep missing or not shorter than the grace period");
  return p;
}

describe("workload policy", () => {
  for (const [name, files] of policySets) {
    it(`holds for every container with the ${name} values`, async () => {
      const found: Record<string, string[]> = {};
      for (const { obj, pod } of workloads(await render(files))) {
        const longRunning = obj.kind === "Deployment";
        for (const c of pod.containers) {
          const p = containerProblems(c, pod, longRunning);
          if (p.length) found[`${obj.kind}/${obj.metadata.name}/${c.name}`] = p;
        }
      }
      expect(found).toEqual({});
    });

    it(`mounts a service-account token only into the dispatcher with the ${name} values`, async () => {
      const mounted = workloads(await render(files))
        .filter(({ pod }) => pod.automountServiceAccountToken !== false)
        .map(({ obj }) => obj.metadata.name);
      expect(mounted).toEqual(["isvc-dispatcher"]);
    });

    it(`gives every Deployment a PDB and a NetworkPolicy with the ${name} values`, async () => {
      const objects = await render(files);
      const deploymentComponents = byKind(objects, "Deployment").map(component).sort();
      expect(byKind(objects, "PodDisruptionBudget").map(component).sort()).toEqual(
        deploymentComponents,
      );
      const policies = byKind(objects, "NetworkPolicy").map(component);
      expect(policies).toEqual(expect.arrayContaining(deploymentComponents));
    });
  }

  it("relaxes only the read-only root filesystem in development (live update writes into /app)", async () => {
    const found: Record<string, string[]> = {};
    for (const { obj, pod } of workloads(await render(valueSets.dev))) {
      for (const c of pod.containers) {
        const p = containerProblems(c, pod, obj.kind === "Deployment", false).filter(
          (x) => x !== "unpinned image",
        );
        if (p.length) found[`${obj.metadata.name}/${c.name}`] = p;
      }
    }
    expect(found).toEqual({});
  });

  it("lets the dispatcher finish in-flight deliveries: a longer grace period than the APIs", async () => {
    const objects = await render();
    const grace = Object.fromEntries(
      byKind(objects, "Deployment").map((d) => [
        component(d),
        podSpecOf(d)?.terminationGracePeriodSeconds,
      ]),
    );
    expect(grace.dispatcher).toBeGreaterThan(grace.webhooks ?? 0);
  });

  it("fails the render when preStop would outlast the grace period", async () => {
    await expect(
      render(valueSets.default, ["--set", "components.auth.preStopSleepSeconds=40"]),
    ).rejects.toThrow(/preStopSleepSeconds must be shorter/);
  });
});
