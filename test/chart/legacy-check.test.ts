// legacyCheck.helmTest: `helm test` runs npm run legacy:check's bundle with the legacy database
// Secret the services read, behind a NetworkPolicy created first that lets it reach DNS and that
// database only.
import { describe, expect, it } from "vitest";
import { bundlePath, ENTRY_POINTS } from "@svc/manifest";
import { byKind, render, valueSets, type K8sObject } from "./support/helm.ts";

const ENTRY = "shared/legacy/src/cli/legacy-check.ts";
const named = (objects: K8sObject[], kind: string) =>
  byKind(objects, kind).find((o) => o.metadata.name === "isvc-legacy-check");

interface PodSpec {
  containers: Array<{
    command: string[];
    env: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef: unknown } }>;
  }>;
  automountServiceAccountToken: boolean;
}

describe("the legacy check as a helm test hook", () => {
  it("is off by default", async () => {
    const objects = await render(valueSets.production);
    expect(named(objects, "Pod")).toBeUndefined();
    expect(named(objects, "NetworkPolicy")).toBeUndefined();
  });

  it("runs the check's bundle with the services' legacy database Secret and no other", async () => {
    const objects = await render(valueSets.production, ["--set", "legacyCheck.helmTest=true"]);
    const pod = named(objects, "Pod");
    expect(pod?.metadata.annotations?.["helm.sh/hook"]).toBe("test");
    const spec = pod?.spec as PodSpec;
    expect(spec.containers[0]?.command).toEqual(["node", bundlePath(ENTRY)]);
    expect(ENTRY_POINTS).toContain(ENTRY);
    expect(spec.automountServiceAccountToken).toBe(false);
    const env = spec.containers[0]!.env;
    expect(env.find((e) => e.name === "LEGACY_DATABASE_URL")?.valueFrom?.secretKeyRef).toEqual({
      name: "integration-prod-legacy-db",
      key: "url",
    });
    expect(env.map((e) => e.name)).not.toContain("DATABASE_URL");
  });

  it("lets the pod reach DNS and the legacy database only, from a policy created before it", async () => {
    const objects = await render(valueSets.production, ["--set", "legacyCheck.helmTest=true"]);
    const policy = named(objects, "NetworkPolicy");
    const pod = named(objects, "Pod");
    const weight = (o?: K8sObject) => Number(o?.metadata.annotations?.["helm.sh/hook-weight"] ?? 0);
    expect(policy?.metadata.annotations?.["helm.sh/hook"]).toBe("test");
    expect(weight(policy)).toBeLessThan(weight(pod));
    const spec = policy?.spec as {
      podSelector: { matchLabels: Record<string, string> };
      ingress?: unknown[];
      egress: Array<{ to: Array<{ ipBlock?: { cidr: string } }>; ports: Array<{ port: number }> }>;
    };
    for (const [key, value] of Object.entries(spec.podSelector.matchLabels))
      expect(pod?.metadata.labels?.[key], key).toBe(value);
    expect(spec.ingress ?? []).toEqual([]);
    expect(spec.egress.map((rule) => rule.ports.map((p) => p.port))).toEqual([[53, 53], [3306]]);
    expect(spec.egress[1]?.to).toEqual([{ ipBlock: { cidr: "10.20.40.15/32" } }]);
  });
});
