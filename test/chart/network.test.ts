// The NetworkPolicies' holes, by address arithmetic over the rendered rules: the dispatcher (which
// POSTs to subscriber URLs) reaches private, loopback, link-local, CGNAT and unique-local
// addresses only where a documented backing service is, on its port; public addresses over IPv4,
// IPv6 and NAT64 alike. The Jobs' policies exist before the Jobs run.
import { describe, expect, it } from "vitest";
import {
  admitted,
  contains,
  nat64,
  overlaps,
  parseCidr,
  prefixLength,
  sixToFour,
  type Range,
} from "./support/cidr.ts";
import {
  byKind,
  mergedValues,
  render as renderChart,
  valueSets,
  type K8sObject,
} from "./support/helm.ts";
import { component, envOf, podSpecOf } from "./support/workloads.ts";

interface IpBlock {
  cidr: string;
  except?: string[];
}
interface Peer {
  ipBlock?: IpBlock;
  podSelector?: { matchLabels?: Record<string, string> };
  namespaceSelector?: object;
}
interface EgressRule {
  to?: Peer[];
  ports?: { protocol?: string; port?: number | string }[];
}
interface PolicySpec {
  podSelector: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] };
  egress?: EgressRule[];
}

/** Ranges no egress rule may open except to a documented backing service. */
const NON_PUBLIC_IPV4: Record<string, string> = {
  "RFC 1918": "10.0.0.0/8",
  "RFC 1918 (172.16/12)": "172.16.0.0/12",
  "RFC 1918 (192.168/16)": "192.168.0.0/16",
  "link-local (cloud metadata)": "169.254.0.0/16",
  CGNAT: "100.64.0.0/10",
  loopback: "127.0.0.0/8",
  "this network": "0.0.0.0/8",
};
const FORBIDDEN: { name: string; range: Range }[] = [
  ...Object.entries(NON_PUBLIC_IPV4).flatMap(([name, cidr]) => [
    { name: `${name} ${cidr}`, range: parseCidr(cidr) },
    { name: `${name} ${cidr} via NAT64`, range: nat64(cidr) },
    { name: `${name} ${cidr} via 6to4`, range: sixToFour(cidr) },
  ]),
  { name: "unique-local fc00::/7", range: parseCidr("fc00::/7") },
  { name: "link-local fe80::/10", range: parseCidr("fe80::/10") },
  { name: "IPv4-compatible and loopback ::/96", range: parseCidr("::/96") },
  { name: "IPv4-mapped ::ffff:0:0/96", range: parseCidr("::ffff:0:0/96") },
  { name: "local-use NAT64 64:ff9b:1::/48", range: parseCidr("64:ff9b:1::/48") },
];

// One render per value set for the whole file: the tests only read them.
const renders = new Map<string, Promise<K8sObject[]>>();
function render(files: string[] = valueSets.default, extra: string[] = []): Promise<K8sObject[]> {
  const key = JSON.stringify([files, extra]);
  if (!renders.has(key)) renders.set(key, renderChart(files, extra));
  return renders.get(key)!;
}

/** Sets whose releases run the dispatcher behind the chart's policies (every one of them). */
const sets = Object.entries(valueSets);

interface BackingService {
  what: string;
  cidrs: string[];
  ports: number[];
}

/** The backing services whose addresses the values document, with their ports. */
function backingServices(files: string[]): BackingService[] {
  const v = mergedValues(files) as {
    postgresql: { egress: { cidrs?: string[]; port: number } };
    mysql: { egress: { cidrs?: string[]; port: number } };
    nats: { egress: { cidrs?: string[]; port: number } };
    otel: { enabled: boolean; egress: { cidrs?: string[]; port: number } };
    networkPolicy: { kubeApiServer: { cidrs: string[]; ports: number[] } };
  };
  const egress = (what: string, e: { cidrs?: string[]; port: number }) => ({
    what,
    cidrs: e.cidrs ?? [],
    ports: [e.port],
  });
  return [
    egress("postgresql", v.postgresql.egress),
    egress("mysql", v.mysql.egress),
    egress("nats", v.nats.egress),
    ...(v.otel.enabled ? [egress("otel", v.otel.egress)] : []),
    { what: "kubeApiServer", ...v.networkPolicy.kubeApiServer },
  ];
}

function policy(objects: K8sObject[], name: string): PolicySpec {
  const found = byKind(objects, "NetworkPolicy").find((p) => p.metadata.name === name);
  if (!found) throw new Error(`no NetworkPolicy ${name}`);
  return found.spec as PolicySpec;
}

/** Every forbidden range a rule opens outside a backing service's own address and port. */
function holes(rule: EgressRule, services: BackingService[]): string[] {
  const ports = rule.ports?.map((p) => Number(p.port));
  // No "to" (or an empty one) admits every destination.
  const peers: Peer[] = rule.to?.length
    ? rule.to
    : [{ ipBlock: { cidr: "0.0.0.0/0" } }, { ipBlock: { cidr: "::/0" } }];
  return peers.flatMap((peer) => {
    // Pods picked by label are cluster workloads, not address ranges.
    if (!peer.ipBlock) return [];
    const block = peer.ipBlock;
    const ranges = admitted(block);
    const hits = FORBIDDEN.filter((f) => ranges.some((r) => overlaps(r, f.range)));
    if (hits.length === 0) return [];
    const service = services.find(
      (s) =>
        s.cidrs.includes(block.cidr) &&
        ports !== undefined &&
        ports.every((p) => s.ports.includes(p)),
    );
    if (service) return [];
    return [`${block.cidr} on ${ports?.join(",") ?? "every port"}: ${hits.map((h) => h.name)}`];
  });
}

function internetRule(spec: PolicySpec): EgressRule {
  const rule = spec.egress?.find((r) => r.to?.some((p) => p.ipBlock?.cidr === "0.0.0.0/0"));
  if (!rule) throw new Error("no internet rule");
  return rule;
}

describe("the dispatcher's egress", () => {
  for (const [name, files] of sets) {
    it(`opens no non-public range but a backing service's address on its port, with the ${name} values`, async () => {
      const spec = policy(await render(files), "isvc-dispatcher");
      const services = backingServices(files);
      expect(spec.egress?.length).toBeGreaterThan(0);
      expect((spec.egress ?? []).flatMap((rule) => holes(rule, services))).toEqual([]);
    });

    it(`names the API server by single addresses or one small subnet, with the ${name} values`, async () => {
      const spec = policy(await render(files), "isvc-dispatcher");
      const api = backingServices(files).find((s) => s.what === "kubeApiServer")!;
      const rule = spec.egress?.find((r) =>
        r.to?.some((p) => p.ipBlock && api.cidrs.includes(p.ipBlock.cidr)),
      );
      expect(rule?.ports?.map((p) => p.port)).toEqual(api.ports);
      for (const peer of rule?.to ?? []) {
        const cidr = peer.ipBlock?.cidr ?? "";
        const widest = parseCidr(cidr).family === 4 ? 24 : 64;
        expect(prefixLength(cidr), cidr).toBeGreaterThanOrEqual(widest);
      }
    });
  }

  it("reaches public subscribers over IPv4, IPv6 and NAT64 on 443 only", async () => {
    const rule = internetRule(policy(await render(), "isvc-dispatcher"));
    expect(rule.ports).toEqual([{ protocol: "TCP", port: 443 }]);
    const open = (rule.to ?? []).flatMap((p) => (p.ipBlock ? admitted(p.ipBlock) : []));
    for (const address of ["1.1.1.1", "2606:4700:4700::1111", "64:ff9b::101:101"])
      expect(contains(open, address), address).toBe(true);
    for (const address of [
      "10.1.2.3",
      "169.254.169.254",
      "100.100.100.200",
      "fd00:ec2::254",
      "64:ff9b::a9fe:a9fe",
      "2002:a00:1::1",
      "2001:db8::1",
    ])
      expect(contains(open, address), address).toBe(false);
  });

  it("keeps out of NAT64 exactly the IPv4 ranges it keeps out of IPv4", async () => {
    const rule = internetRule(policy(await render(), "isvc-dispatcher"));
    const block = (cidr: string) => rule.to?.find((p) => p.ipBlock?.cidr === cidr)?.ipBlock;
    const key = (r: Range) => `${r.start}-${r.end}`;
    const fromIpv4 = (block("0.0.0.0/0")?.except ?? []).map((c) => key(nat64(c)));
    const nat64Except = (block("64:ff9b::/96")?.except ?? []).map((c) => key(parseCidr(c)));
    expect(fromIpv4.length).toBeGreaterThan(5);
    expect(nat64Except.sort()).toEqual(fromIpv4.sort());
  });

  it("adds the platform's own exceptions to the right address family", async () => {
    const rule = internetRule(
      policy(
        await render(valueSets.default, [
          "--set-json",
          'networkPolicy.internet.exceptCidrs=["8.8.8.0/24","2001:4860::/32"]',
        ]),
        "isvc-dispatcher",
      ),
    );
    const open = (rule.to ?? []).flatMap((p) => (p.ipBlock ? admitted(p.ipBlock) : []));
    expect(contains(open, "8.8.8.8")).toBe(false);
    expect(contains(open, "2001:4860::8888")).toBe(false);
    expect(contains(open, "8.8.4.4")).toBe(true);
  });

  it("needs no API server endpoints when the chart renders no policies", async () => {
    const objects = await render([], ["--set", "networkPolicy.enabled=false"]);
    expect(byKind(objects, "NetworkPolicy")).toEqual([]);
  });
});

/** Helm's install order of kinds, its tie-breaker between hooks of equal weight. */
const INSTALL_ORDER = [
  "Namespace",
  "NetworkPolicy",
  "ResourceQuota",
  "LimitRange",
  "PodDisruptionBudget",
  "ServiceAccount",
  "Secret",
  "ConfigMap",
  "CustomResourceDefinition",
  "ClusterRole",
  "ClusterRoleBinding",
  "Role",
  "RoleBinding",
  "Service",
  "Pod",
  "Deployment",
  "HorizontalPodAutoscaler",
  "Job",
  "Ingress",
];

function hookEvents(obj: K8sObject): string[] {
  return (obj.metadata.annotations?.["helm.sh/hook"] ?? "").split(",").filter(Boolean);
}

/** The hooks of one event in the order Helm creates them: weight, then kind, then name. */
function hookSequence(objects: K8sObject[], event: string): K8sObject[] {
  const weight = (o: K8sObject) => Number(o.metadata.annotations?.["helm.sh/hook-weight"] ?? 0);
  const kindRank = (o: K8sObject) => {
    const i = INSTALL_ORDER.indexOf(o.kind);
    return i < 0 ? INSTALL_ORDER.length : i;
  };
  return objects
    .filter((o) => hookEvents(o).includes(event))
    .sort(
      (a, b) =>
        weight(a) - weight(b) ||
        kindRank(a) - kindRank(b) ||
        a.metadata.name.localeCompare(b.metadata.name),
    );
}

function selects(spec: PolicySpec, labels: Record<string, string>): boolean {
  const match = spec.podSelector.matchLabels ?? {};
  return (
    !spec.podSelector.matchExpressions && Object.entries(match).every(([k, v]) => labels[k] === v)
  );
}

function egressPorts(spec: PolicySpec): number[] {
  return (spec.egress ?? []).flatMap((r) => (r.ports ?? []).map((p) => Number(p.port)));
}

describe("the Jobs' network policies", () => {
  const jobSets = sets.filter(([name]) => ["default", "sandbox", "dev"].includes(name));

  for (const [name, files] of jobSets) {
    it(`exist before each Job runs and let it reach its database, with the ${name} values`, async () => {
      const objects = await render(files);
      const values = mergedValues(files) as {
        postgresql: { egress: { port: number } };
        mysql: { egress: { port: number } };
      };
      const jobs = byKind(objects, "Job");
      expect(jobs.length).toBeGreaterThan(0);
      for (const job of jobs) {
        const labels = (job.spec as { template: { metadata: { labels: Record<string, string> } } })
          .template.metadata.labels;
        const policies = byKind(objects, "NetworkPolicy").filter((p) =>
          selects(p.spec as PolicySpec, labels),
        );
        expect(
          policies.map((p) => p.metadata.name),
          job.metadata.name,
        ).toHaveLength(1);
        const np = policies[0]!;

        const env = envOf(podSpecOf(job)!.containers[0]!);
        const needed = [
          53,
          ...(env.has("DATABASE_URL") ? [values.postgresql.egress.port] : []),
          ...(env.has("LEGACY_DATABASE_URL") ? [values.mysql.egress.port] : []),
        ];
        expect(egressPorts(np.spec as PolicySpec), job.metadata.name).toEqual(
          expect.arrayContaining(needed),
        );

        expect(hookEvents(np), job.metadata.name).toEqual(hookEvents(job));
        for (const event of hookEvents(job)) {
          const order = hookSequence(objects, event).map((o) => `${o.kind}/${o.metadata.name}`);
          expect(order.indexOf(`NetworkPolicy/${np.metadata.name}`), order.join(" ")).toBeLessThan(
            order.indexOf(`Job/${job.metadata.name}`),
          );
          // Replaced on the next run and removed once every hook succeeded, not left behind.
          expect(np.metadata.annotations?.["helm.sh/hook-delete-policy"]?.split(",")).toEqual(
            expect.arrayContaining(["before-hook-creation", "hook-succeeded"]),
          );
        }
      }
    });
  }

  it("covers the migrations Job and the sandbox's seeding Job as hooks, and the helm test pod", async () => {
    const objects = await render(valueSets.sandbox);
    const hooks = byKind(objects, "NetworkPolicy").filter((p) => hookEvents(p).length > 0);
    expect(hooks.map(component).sort()).toEqual(["migrations", "sandbox-seed", "test"]);
  });
});
