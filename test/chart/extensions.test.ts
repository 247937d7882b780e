// The chart's extension points (test/chart/values/extensions.yaml sets each one at the top level
// and for the dispatcher and the migrations Job): each lands where it belongs and nowhere else.
import { beforeAll, describe, expect, it } from "vitest";
import { byKind, render, valueSets, type K8sObject } from "./support/helm.ts";
import { podSpecOf, type Container } from "./support/workloads.ts";

type Pod = ReturnType<typeof podSpecOf> & {
  initContainers?: Container[];
  nodeSelector?: Record<string, string>;
  tolerations?: Array<{ key: string }>;
  affinity?: object;
  priorityClassName?: string;
  imagePullSecrets?: Array<{ name: string }>;
  topologySpreadConstraints?: Array<{ topologyKey: string }>;
};
type Meta = { labels?: Record<string, string>; annotations?: Record<string, string> };

let objects: K8sObject[];
const workload = (kind: string, name: string) => {
  const obj = objects.find((o) => o.kind === kind && o.metadata.name === name)!;
  const template = (obj.spec as { template: { metadata: Meta } }).template;
  return { pod: podSpecOf(obj) as Pod, meta: template.metadata };
};
const names = (list: Array<{ name: string }> | undefined) => (list ?? []).map((i) => i.name);

beforeAll(async () => {
  objects = await render([...valueSets.default, "extensions.yaml"]);
});

describe("extension points", () => {
  it("add the top-level and the component's environment, volumes and containers, in that order", () => {
    const { pod } = workload("Deployment", "isvc-dispatcher");
    const main = pod.containers[0]!;
    expect(names(main.env).slice(-2)).toEqual(["TZ", "EXTRA_DISPATCHER"]);
    expect((main as { envFrom?: unknown[] }).envFrom).toEqual([
      { configMapRef: { name: "site-settings" } },
      { secretRef: { name: "dispatcher-extras" } },
    ]);
    expect(names(pod.volumes).slice(-2)).toEqual(["site-ca", "dispatcher-cache"]);
    expect(names(main.volumeMounts).slice(-2)).toEqual(["site-ca", "dispatcher-cache"]);
    expect(names(pod.containers)).toEqual(["dispatcher", "log-shipper", "egress-proxy"]);
    expect(names(pod.initContainers)).toEqual(["wait-for-vault", "warm-dns"]);
    const auth = workload("Deployment", "isvc-auth").pod;
    expect(names(auth.containers)).toEqual(["auth", "log-shipper"]);
    expect(names(auth.containers[0]!.env)).not.toContain("EXTRA_DISPATCHER");
  });

  it("schedule per component: its keys win, its lists add, its affinity and priority replace", () => {
    const { pod } = workload("Deployment", "isvc-dispatcher");
    expect(pod.nodeSelector).toEqual({ pool: "egress" });
    expect(pod.tolerations?.map((t) => t.key)).toEqual(["dedicated", "egress"]);
    expect(pod.affinity).toHaveProperty("nodeAffinity");
    expect(pod.priorityClassName).toBe("integration-critical");
    expect(pod.topologySpreadConstraints?.map((t) => t.topologyKey)).toEqual([
      "kubernetes.io/hostname",
      "topology.kubernetes.io/zone",
      "topology.kubernetes.io/region",
      "kubernetes.io/hostname",
    ]);
    const auth = workload("Deployment", "isvc-auth").pod;
    expect(auth.nodeSelector).toEqual({ pool: "general" });
    expect(auth.affinity).toBeUndefined();
  });

  it("annotate and label the pods of Deployments and Jobs", () => {
    const dispatcher = workload("Deployment", "isvc-dispatcher").meta;
    expect(dispatcher.annotations).toMatchObject({ team: "webhooks" });
    expect(dispatcher.labels).toMatchObject({ "cost-center": "42", tier: "egress" });
    const migrations = workload("Job", "isvc-migrations");
    expect(migrations.meta.annotations).toEqual({
      team: "integration",
      "sidecar.example.com/inject": "false",
    });
    expect(migrations.meta.labels).toMatchObject({ "cost-center": "42", "job-kind": "migrations" });
    expect(names(migrations.pod.containers)).toEqual(["migrations"]);
    expect(names(migrations.pod.initContainers)).toEqual(["wait-for-vault"]);
    expect(names(migrations.pod.containers[0]!.env)).toContain("TZ");
    expect(migrations.pod.nodeSelector).toEqual({ pool: "general" });
  });

  it("pull every image of the chart's from global.imageRegistry, with the pull secrets", () => {
    for (const obj of objects) {
      const pod = podSpecOf(obj) as Pod | undefined;
      if (!pod) continue;
      expect(pod.imagePullSecrets, obj.metadata.name).toEqual([{ name: "registry-credentials" }]);
      const own = pod.containers.find((c) => !["log-shipper", "egress-proxy"].includes(c.name))!;
      expect(own.image, obj.metadata.name).toBe(
        "mirror.example.com:5000/integration-service:0.1.0",
      );
    }
  });

  it("let a component use an existing ServiceAccount, bound to the dispatcher's Role", () => {
    const accounts = byKind(objects, "ServiceAccount").map((a) => a.metadata.name);
    expect(accounts).not.toContain("isvc-dispatcher");
    expect(accounts).toContain("isvc-auth");
    expect(workload("Deployment", "isvc-dispatcher").pod.serviceAccountName).toBe(
      "shared-dispatcher",
    );
    const binding = byKind(objects, "RoleBinding")[0] as unknown as {
      subjects: Array<{ name: string }>;
    };
    expect(binding.subjects.map((s) => s.name)).toEqual(["shared-dispatcher"]);
    const auth = byKind(objects, "ServiceAccount").find((a) => a.metadata.name === "isvc-auth");
    expect(auth?.metadata.annotations).toEqual({ "iam.example.com/role": "auth" });
  });

  it("set the Services' type and annotations, and serve extra Ingress hosts with their TLS", () => {
    for (const service of byKind(objects, "Service")) {
      expect((service.spec as { type: string }).type).toBe("NodePort");
      expect(service.metadata.annotations).toEqual({ "service.example.com/internal": "true" });
    }
    const [ingress] = byKind(objects, "Ingress");
    const spec = ingress!.spec as {
      rules: Array<{ host: string; http: { paths: unknown[] } }>;
      tls: Array<{ hosts: string[]; secretName: string }>;
    };
    expect(spec.rules.map((r) => r.host)).toEqual([
      "api.example.com",
      "api.integration.example.net",
    ]);
    expect(spec.rules[1]!.http.paths).toEqual(spec.rules[0]!.http.paths);
    expect(spec.tls).toEqual([
      { hosts: ["api.integration.example.net"], secretName: "integration-net-tls" },
    ]);
  });
});

describe("names per release", () => {
  it("give two releases in one namespace their own Lease, Role grant, objects and resources", async () => {
    const [a, b] = await Promise.all(
      ["isvc", "isvc-eu"].map((name) =>
        render(
          valueSets.default,
          ["--set-string", `operator.labelSelector=integration.svc.io/release=${name}`],
          name,
        ),
      ),
    );
    const leaseOf = (objs: K8sObject[]) => {
      const pod = podSpecOf(
        objs.find((o) => o.metadata.name.endsWith("-dispatcher") && o.kind === "Deployment")!,
      )!;
      const env = (name: string) => pod.containers[0]!.env!.find((e) => e.name === name)?.value;
      const role = byKind(objs, "Role")[0] as unknown as {
        rules: Array<{ resourceNames?: string[] }>;
      };
      return {
        env: env("LEADER_ELECTION_NAME"),
        granted: role.rules.flatMap((r) => r.resourceNames ?? []),
        selector: env("OPERATOR_LABEL_SELECTOR"),
      };
    };
    expect(leaseOf(a!)).toEqual({
      env: "isvc-dispatcher",
      granted: ["isvc-dispatcher"],
      selector: "integration.svc.io/release=isvc",
    });
    expect(leaseOf(b!)).toEqual({
      env: "isvc-eu-dispatcher",
      granted: ["isvc-eu-dispatcher"],
      selector: "integration.svc.io/release=isvc-eu",
    });
    const key = (o: K8sObject) => `${o.kind}/${o.metadata.name}`;
    const shared = a!.filter((o) => o.kind !== "CustomResourceDefinition").map(key);
    expect(shared.filter((k) => b!.map(key).includes(k))).toEqual([]);
  });
});
