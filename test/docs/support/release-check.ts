// Replays what a guide's commands asked of the cluster (offline-cluster.ts) and checks that the
// release would start: every Secret and ConfigMap a rendered pod reads (env, envFrom, volumes,
// projected volumes) exists in the release's namespace with the key it reads, created by the
// guide or rendered by the chart; every process's configuration parses from the environment the
// pod would get (its config.ts: a required variable without a default that is not set fails);
// and auth's signing-key Secret loads, with the keys rotated in an order that keeps every token
// valid. Each failure names the guide block that rendered or rolled out the pod, and the block
// that created the Secret it reads.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { GuideRun } from "./offline-cluster.ts";

export type K8sObject = {
  apiVersion?: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: unknown;
};

type KeyRef = { name: string; key: string; optional?: boolean };
type EnvVar = {
  name: string;
  value?: string;
  valueFrom?: {
    secretKeyRef?: KeyRef;
    configMapKeyRef?: KeyRef;
    fieldRef?: { fieldPath: string };
    resourceFieldRef?: { resource: string };
  };
};
type ObjectRef = { name: string; optional?: boolean };
type EnvFrom = { prefix?: string; secretRef?: ObjectRef; configMapRef?: ObjectRef };
type Container = {
  name: string;
  env?: EnvVar[];
  envFrom?: EnvFrom[];
  volumeMounts?: Array<{ name: string; mountPath: string }>;
};
type Items = Array<{ key: string; path: string }>;
type Volume = {
  name: string;
  secret?: { secretName: string; items?: Items; optional?: boolean };
  configMap?: { name: string; items?: Items; optional?: boolean };
  projected?: {
    sources: Array<{
      secret?: { name: string; items?: Items; optional?: boolean };
      configMap?: { name: string; items?: Items; optional?: boolean };
    }>;
  };
};
type PodSpec = { containers: Container[]; initContainers?: Container[]; volumes?: Volume[] };

/** Parses a process's environment the way it does at start; throws listing what is wrong. */
export type ConfigLoader = (env: Record<string, string | undefined>) => unknown;

export interface ReleaseCheckOptions {
  /** The configuration loader of each Deployment, by its app.kubernetes.io/component label. */
  services: Record<string, ConfigLoader>;
  /** The same for each Job; null for a Job that reads no environment. */
  jobs: Record<string, ConfigLoader | null>;
  /** Loads a signing-key directory as auth does; throws naming each problem. */
  signingKeys(dir: string): Promise<{ active: string; kids: string[] }>;
}

export interface Applied {
  object: K8sObject;
  namespace: string;
  block: string;
  /** Position in the command sequence. */
  at: number;
}
export interface Render {
  release: string;
  namespace: string;
  block: string;
  verb: string;
  objects: K8sObject[];
  at: number;
}
export interface Replay {
  failures: string[];
  applied: Applied[];
  renders: Render[];
}

const CLUSTER_SCOPED = new Set(["Namespace", "CustomResourceDefinition", "ClusterRole"]);

function podSpecOf(obj: K8sObject): PodSpec | undefined {
  const spec = obj.spec as Record<string, unknown> | undefined;
  if (!spec) return undefined;
  if (obj.kind === "Pod") return spec as unknown as PodSpec;
  if (obj.kind === "CronJob")
    return (spec.jobTemplate as { spec: { template: { spec: PodSpec } } }).spec.template.spec;
  if (["Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"].includes(obj.kind))
    return (spec.template as { spec: PodSpec }).spec;
  return undefined;
}

/** The keys and values of a Secret or ConfigMap, as the pod would see them. */
function dataOf(obj: K8sObject): Map<string, string> {
  const out = new Map<string, string>();
  const decode = (v: string) => Buffer.from(v, "base64").toString("utf8");
  if (obj.kind === "Secret") {
    for (const [k, v] of Object.entries((obj.data as Record<string, string>) ?? {}))
      out.set(k, decode(v));
    for (const [k, v] of Object.entries((obj.stringData as Record<string, string>) ?? {}))
      out.set(k, v);
  } else {
    for (const [k, v] of Object.entries((obj.data as Record<string, string>) ?? {})) out.set(k, v);
    for (const [k, v] of Object.entries((obj.binaryData as Record<string, string>) ?? {}))
      out.set(k, decode(v));
  }
  return out;
}

type Found = { data: Map<string, string>; from: string } | { missing: string };

/** Replays a guide run; see the file comment for what is checked. */
export async function replay(run: GuideRun, options: ReleaseCheckOptions): Promise<Replay> {
  const failures: string[] = [];
  const applied = new Map<string, Applied>();
  const appliedInOrder: Applied[] = [];
  const renders: Render[] = [];
  const latest = new Map<string, Render>();
  const keyHistory = new Map<string, { active: string; kids: Set<string> }>();

  function lookup(kind: "Secret" | "ConfigMap", name: string, render: Render): Found {
    const own = render.objects.find(
      (o) =>
        o.kind === kind &&
        o.metadata.name === name &&
        (o.metadata.namespace ?? render.namespace) === render.namespace,
    );
    if (own) return { data: dataOf(own), from: `the chart's ${kind}` };
    const made = applied.get(`${render.namespace}/${kind}/${name}`);
    if (made) return { data: dataOf(made.object), from: `the ${kind} created at ${made.block}` };
    const elsewhere = [...applied.values()].find(
      (a) => a.object.kind === kind && a.object.metadata.name === name,
    );
    const here = [...applied.values()]
      .filter((a) => a.object.kind === kind && a.namespace === render.namespace)
      .map((a) => a.object.metadata.name);
    return {
      missing:
        `no ${kind} "${name}" in namespace ${render.namespace}: the guide does not create one` +
        (elsewhere
          ? ` there (it creates one in namespace ${elsewhere.namespace}, at ${elsewhere.block})`
          : ` (it creates ${here.length > 0 ? here.join(", ") : `no ${kind}`})`) +
        ` and the chart does not render one`,
    };
  }

  /** Resolves one reference; returns its value, or undefined after recording a failure. */
  function resolve(
    where: string,
    kind: "Secret" | "ConfigMap",
    ref: { name: string; key?: string; optional?: boolean },
    render: Render,
  ): Map<string, string> | undefined {
    const found = lookup(kind, ref.name, render);
    const what = `${kind} "${ref.name}"${ref.key === undefined ? "" : ` key "${ref.key}"`}`;
    if ("missing" in found) {
      if (!ref.optional) failures.push(`${where} reads ${what}: ${found.missing}`);
      return undefined;
    }
    if (ref.key !== undefined && !found.data.has(ref.key)) {
      if (!ref.optional)
        failures.push(
          `${where} reads ${what}: ${found.from} has no key "${ref.key}" (its keys: ${[...found.data.keys()].join(", ") || "none"})`,
        );
      return undefined;
    }
    return found.data;
  }

  async function checkWorkload(obj: K8sObject, render: Render, block: string): Promise<void> {
    const pod = podSpecOf(obj);
    if (!pod) return;
    const owner = `${obj.kind} ${obj.metadata.name}`;
    const volumes = new Map((pod.volumes ?? []).map((v) => [v.name, v]));
    // Every volume's Secrets and ConfigMaps, with the files they would hold.
    const volumeFiles = new Map<string, Map<string, string>>();
    for (const v of volumes.values()) {
      const files = new Map<string, string>();
      const add = (
        kind: "Secret" | "ConfigMap",
        ref: { name: string; items?: Items; optional?: boolean },
      ) => {
        const where = `${block}: ${owner} volume ${v.name}`;
        const data = resolve(where, kind, ref, render);
        if (!data) return;
        if (!ref.items) for (const [k, val] of data) files.set(k, val);
        for (const item of ref.items ?? []) {
          const val = resolve(where, kind, { ...ref, key: item.key }, render)?.get(item.key);
          if (val !== undefined) files.set(item.path, val);
        }
      };
      if (v.secret) add("Secret", { ...v.secret, name: v.secret.secretName });
      if (v.configMap) add("ConfigMap", v.configMap);
      for (const source of v.projected?.sources ?? []) {
        if (source.secret) add("Secret", source.secret);
        if (source.configMap) add("ConfigMap", source.configMap);
      }
      volumeFiles.set(v.name, files);
    }
    for (const container of [...(pod.initContainers ?? []), ...pod.containers]) {
      const where = `${block}: ${owner} container ${container.name}`;
      const env: Record<string, string | undefined> = {};
      for (const from of container.envFrom ?? []) {
        const ref = from.secretRef ?? from.configMapRef;
        const kind = from.secretRef ? "Secret" : "ConfigMap";
        const data = ref && resolve(`${where} envFrom`, kind, ref, render);
        for (const [k, v] of data ?? []) env[`${from.prefix ?? ""}${k}`] = v;
      }
      for (const e of container.env ?? []) {
        const from = e.valueFrom;
        if (from?.secretKeyRef)
          env[e.name] = resolve(`${where} env ${e.name}`, "Secret", from.secretKeyRef, render)?.get(
            from.secretKeyRef.key,
          );
        else if (from?.configMapKeyRef)
          env[e.name] = resolve(
            `${where} env ${e.name}`,
            "ConfigMap",
            from.configMapKeyRef,
            render,
          )?.get(from.configMapKeyRef.key);
        else if (from?.fieldRef)
          env[e.name] =
            from.fieldRef.fieldPath === "metadata.namespace"
              ? render.namespace
              : `${obj.metadata.name}-0`;
        else if (from?.resourceFieldRef) env[e.name] = "1";
        else env[e.name] = e.value ?? "";
      }
      await checkProcess(obj, container, env, volumeFiles, where, render);
    }
  }

  async function checkProcess(
    obj: K8sObject,
    container: Container,
    env: Record<string, string | undefined>,
    volumeFiles: Map<string, Map<string, string>>,
    where: string,
    render: Render,
  ): Promise<void> {
    const component = obj.metadata.labels?.["app.kubernetes.io/component"] ?? "";
    const loaders =
      obj.kind === "Job" ? options.jobs : obj.kind === "Pod" ? null : options.services;
    if (loaders) {
      if (!(component in loaders)) {
        failures.push(`${where}: no configuration loader for component "${component}" in the test`);
      } else {
        try {
          loaders[component]?.(env);
        } catch (err) {
          failures.push(`${where} would not start: ${(err as Error).message}`);
        }
      }
    }
    const keysDir = env.SIGNING_KEYS_DIR;
    if (keysDir === undefined) return;
    const mount = container.volumeMounts?.find((m) => m.mountPath === keysDir);
    const files = mount && volumeFiles.get(mount.name);
    if (!files) {
      failures.push(`${where}: nothing is mounted at SIGNING_KEYS_DIR ${keysDir}`);
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), "signing-keys-"));
    try {
      for (const [name, text] of files) writeFileSync(join(dir, name), text);
      const keys = await options.signingKeys(dir);
      const id = `${render.namespace}/${obj.metadata.name}`;
      const before = keyHistory.get(id);
      if (before && keys.active !== before.active && !before.kids.has(keys.active))
        failures.push(
          `${where} signs with key ${keys.active}, which the running pods did not publish: announce it (published) and wait 10 minutes before it signs`,
        );
      if (before && !keys.kids.includes(before.active))
        failures.push(
          `${where} no longer publishes key ${before.active}, which signed until now: tokens it signed would fail; keep it published for 1 h 5 min`,
        );
      keyHistory.set(id, { active: keys.active, kids: new Set(keys.kids) });
    } catch (err) {
      failures.push(`${where} would not start: ${(err as Error).message}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  for (const [at, event] of run.events.entries()) {
    if (["create", "apply", "replace"].includes(event.verb)) {
      for (const file of event.files) {
        for (const object of run.objects(file) as K8sObject[]) {
          const namespace = CLUSTER_SCOPED.has(object.kind)
            ? ""
            : (object.metadata.namespace ?? event.namespace);
          const entry = { object, namespace, block: event.block, at };
          applied.set(`${namespace}/${object.kind}/${object.metadata.name}`, entry);
          appliedInOrder.push(entry);
        }
      }
    } else if (event.verb === "install" || event.verb === "upgrade") {
      const render: Render = {
        release: event.target!,
        namespace: event.namespace,
        block: event.block,
        verb: event.verb,
        objects: event.files.flatMap((f) => run.objects(f) as K8sObject[]),
        at,
      };
      renders.push(render);
      latest.set(`${render.namespace}/${render.release}`, render);
      for (const obj of render.objects) await checkWorkload(obj, render, event.block);
    } else if (event.verb === "rollout-restart") {
      const name = event.target!.split("/")[1];
      for (const render of latest.values()) {
        if (render.namespace !== event.namespace) continue;
        const deployment = render.objects.find(
          (o) => o.kind === "Deployment" && o.metadata.name === name,
        );
        if (deployment) await checkWorkload(deployment, render, event.block);
      }
    }
  }
  return { failures, applied: appliedInOrder, renders };
}
