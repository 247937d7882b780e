// Typed views of the rendered objects the tests look into.
import type { K8sObject } from "./helm.ts";

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string }; fieldRef?: { fieldPath: string } };
}
export interface Probe {
  httpGet?: { path: string; port: string | number };
}
export interface Container {
  name: string;
  image: string;
  command?: string[];
  env?: EnvVar[];
  ports?: { name?: string; containerPort: number }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  lifecycle?: { preStop?: { sleep?: { seconds: number } } };
  securityContext?: {
    runAsNonRoot?: boolean;
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    capabilities?: { drop?: string[]; add?: string[] };
    seccompProfile?: { type: string };
  };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
export interface PodSpec {
  containers: Container[];
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsNonRoot?: boolean; seccompProfile?: { type: string } };
  volumes?: { name: string; emptyDir?: object; secret?: { secretName: string } }[];
}

/** The pod spec of a Deployment, Job or Pod; undefined for other kinds. */
export function podSpecOf(obj: K8sObject): PodSpec | undefined {
  const spec = obj.spec as { template?: { spec: PodSpec } } & PodSpec;
  if (obj.kind === "Deployment" || obj.kind === "Job") return spec.template?.spec;
  if (obj.kind === "Pod") return spec;
  return undefined;
}

export function deployments(objects: K8sObject[]): Map<string, PodSpec> {
  const out = new Map<string, PodSpec>();
  for (const o of objects)
    if (o.kind === "Deployment") out.set(o.metadata.name, podSpecOf(o) as PodSpec);
  return out;
}

export function component(obj: K8sObject): string | undefined {
  return obj.metadata.labels?.["app.kubernetes.io/component"];
}

export function envOf(container: Container): Map<string, EnvVar> {
  return new Map((container.env ?? []).map((e) => [e.name, e]));
}
