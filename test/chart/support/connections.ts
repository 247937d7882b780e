// The database connections a release may hold at its peak, a rolling update: every pod of every
// Deployment (an autoscaled one at its maximum) plus the surge pod the rollout adds, each with its
// pools full. Pool sizes come from each process's own configuration loader, fed the rendered
// environment, so an extraEnv override of a pool size counts.
import { randomBytes } from "node:crypto";
import { CONFIG_LOADERS } from "./config-loaders.ts";
import { byKind, render, type K8sObject } from "./helm.ts";
import { component, podSpecOf, type EnvVar } from "./workloads.ts";

type Pools = Record<string, number | undefined>;

/** Stand-ins for what the pods read from Secrets and the downward API. */
const referenced: Record<string, string> = {
  DATABASE_URL: "postgres://integration@postgres:5432/integration",
  LEGACY_DATABASE_URL: "mysql://integration_ro@mysql:3306/legacy",
  IDENTITY_PEPPER: randomBytes(48).toString("base64"),
  WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
};

function envOf(vars: EnvVar[]): Record<string, string> {
  return Object.fromEntries(
    vars.map((v) => [v.name, v.value ?? referenced[v.name] ?? "placeholder"]),
  );
}

export interface Peak {
  postgresql: number;
  mysql: number;
  /** Per Deployment: pods at the peak and connections per pod. */
  pods: Record<string, { pods: number; postgresql: number; mysql: number }>;
}

/** The peak of the rendered objects of a release. */
export function peakOf(objects: K8sObject[]): Peak {
  const hpaMax = new Map(
    byKind(objects, "HorizontalPodAutoscaler").map((h) => {
      const spec = h.spec as { scaleTargetRef: { name: string }; maxReplicas: number };
      return [spec.scaleTargetRef.name, spec.maxReplicas];
    }),
  );
  const peak: Peak = { postgresql: 0, mysql: 0, pods: {} };
  for (const d of byKind(objects, "Deployment")) {
    const name = component(d)!;
    const spec = d.spec as {
      replicas?: number;
      strategy: { rollingUpdate: { maxSurge: number } };
    };
    const pods =
      (hpaMax.get(d.metadata.name) ?? spec.replicas!) + spec.strategy.rollingUpdate.maxSurge;
    const config = CONFIG_LOADERS[name]!(envOf(podSpecOf(d)!.containers[0]!.env ?? [])) as Pools;
    const postgresql = config.DATABASE_POOL_MAX!;
    const mysql =
      (config.LEGACY_POOL_MAX ?? 0) +
      (config.PRACTICE_COUNT_POOL_MAX ?? 0) +
      (config.VACANCY_COUNT_POOL_MAX ?? 0);
    peak.pods[name] = { pods, postgresql, mysql };
    peak.postgresql += pods * postgresql;
    peak.mysql += pods * mysql;
  }
  return peak;
}

/** The peak of a release rendered from these value files (see helm.ts render). */
export async function peakConnections(files: string[]): Promise<Peak> {
  return peakOf(await render(files));
}
