// values.schema.json rejects mistakes; values.yaml documents every key.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { chartDir, helm, kubeVersion, render, valueArgs, valueSets } from "./support/helm.ts";
import { podSpecOf } from "./support/workloads.ts";

async function templateError(files: string[], extra: string[] = []): Promise<string> {
  const result = await helm([
    "template",
    "isvc",
    chartDir,
    "--kube-version",
    kubeVersion,
    ...valueArgs(files),
    ...extra,
  ]);
  expect(result.code, "helm template should have failed").not.toBe(0);
  return result.stderr;
}

/** helm's error for the default value set with these extra arguments. */
const refusal = (...extra: string[]) => templateError(valueSets.default, extra);

/**
 * Values the chart must refuse before anything reaches a cluster: each would be refused by the
 * API server, make a pod run something unpinned, or break the release in a way no pod can report.
 * [what, helm arguments, what the error names].
 */
const REFUSED: [string, string[], RegExp][] = [
  ["two NATS replicas (no quorum)", ["--set", "nats.replicas=2"], /\/nats\/replicas/],
  ["NATS credentials without their Secret", ["--set", "nats.auth.type=creds"], /\/nats\/auth/],
  ["an unknown NATS auth type", ["--set", "nats.auth.type=password"], /\/nats\/auth\/type/],
  [
    "a NATS client certificate without its Secret",
    ["--set", "nats.tls.clientCertificate=true"],
    /\/nats\/tls/,
  ],
  // The local stack's loopback receivers: never in a cluster, for any container.
  [
    "WEBHOOK_ALLOW_LOOPBACK in extraEnv",
    ["--set-json", 'extraEnv=[{"name":"WEBHOOK_ALLOW_LOOPBACK","value":"true"}]'],
    /\/extraEnv\/0\/name/,
  ],
  [
    "WEBHOOK_ALLOW_LOOPBACK in the dispatcher's extraEnv",
    [
      "--set-json",
      'components.dispatcher.extraEnv=[{"name":"LOG_LEVEL","value":"debug"},{"name":"WEBHOOK_ALLOW_LOOPBACK","value":"false"}]',
    ],
    /\/components\/dispatcher\/extraEnv\/1\/name/,
  ],
  [
    "WEBHOOK_ALLOW_LOOPBACK in the webhooks API's extraEnv",
    [
      "--set-json",
      'components.webhooks.extraEnv=[{"name":"WEBHOOK_ALLOW_LOOPBACK","value":"true"}]',
    ],
    /\/components\/webhooks\/extraEnv\/0\/name/,
  ],
  ["image.tag latest", ["--set", "image.tag=latest"], /\/image\/tag/],
  ["image.tag Latest", ["--set", "image.tag=Latest"], /\/image\/tag/],
  ["an empty image.tag", ["--set-json", 'image.tag=""'], /\/image\/tag/],
  ["an image.tag with a colon", ["--set", "image.tag=v1:2"], /\/image\/tag/],
  [
    "an upper-case image.repository",
    ["--set", "image.repository=Registry/X"],
    /\/image\/repository/,
  ],
  ["0 replicas", ["--set", "components.auth.replicas=0"], /\/components\/auth\/replicas/],
  ["a warm-up bound above the services' 60 s", ["--set", "warmUp.maxMs=60001"], /\/warmUp\/maxMs/],
  [
    "an HPA minimum above its maximum",
    ["--set", "components.vacancies.autoscaling.minReplicas=7"],
    /components\.vacancies\.autoscaling: minReplicas \(7\) is above maxReplicas \(6\)/,
  ],
  [
    "an HPA minimum of 0",
    ["--set", "components.vacancies.autoscaling.minReplicas=0"],
    /\/components\/vacancies\/autoscaling\/minReplicas/,
  ],
  [
    "a preStop sleep of 0",
    ["--set", "components.auth.preStopSleepSeconds=0"],
    /\/components\/auth\/preStopSleepSeconds/,
  ],
  [
    "a negative preStop sleep",
    ["--set", "components.dispatcher.preStopSleepSeconds=-1"],
    /\/components\/dispatcher\/preStopSleepSeconds/,
  ],
  [
    "a memory quantity in MB",
    ["--set", "components.auth.resources.requests.memory=256MB"],
    /\/components\/auth\/resources\/requests\/memory/,
  ],
  [
    "a negative CPU quantity",
    ["--set", "migrations.resources.requests.cpu=-100m"],
    /\/migrations\/resources\/requests\/cpu/,
  ],
  ["a port above 65535", ["--set", "postgresql.egress.port=65536"], /\/postgresql\/egress\/port/],
  [
    "port 0",
    ["--set", "networkPolicy.kubeApiServer.ports={0}"],
    /\/networkPolicy\/kubeApiServer\/ports/,
  ],
  [
    "a malformed CIDR",
    ["--set-json", 'mysql.egress.cidrs=["10.0.0.300/32"]'],
    /\/mysql\/egress\/cidrs/,
  ],
  [
    "a nats.namespace the services refuse",
    ["--set", "nats.namespace=Integration-Prod"],
    /\/nats\/namespace/,
  ],
  [
    "a nats.namespace of 17 characters",
    ["--set", "nats.namespace=integrationprod17"],
    /\/nats\/namespace/,
  ],
  [
    "a nameOverride that is no DNS label",
    ["--set", "nameOverride=Integration_Service"],
    /\/nameOverride/,
  ],
  [
    "a priorityClassName that is no DNS name",
    ["--set", "priorityClassName=High_Priority"],
    /\/priorityClassName/,
  ],
  [
    "an imagePullSecrets name that is no DNS name",
    ["--set-json", 'imagePullSecrets=[{"name":"Registry_Creds"}]'],
    /\/imagePullSecrets\/0\/name/,
  ],
  ["a label value with a space", ["--set-json", 'podLabels={"team":"a b"}'], /\/podLabels\/team/],
  [
    "a label value of 64 characters",
    ["--set", `podLabels.team=${"a".repeat(64)}`],
    /\/podLabels\/team/,
  ],
  ["a label key with a space", ["--set-json", 'podLabels={"my team":"a"}'], /my team/],
  [
    "a nodeSelector value with a slash",
    ["--set-json", 'nodeSelector={"pool":"a/b"}'],
    /\/nodeSelector\/pool/,
  ],
  ["an annotation key with two slashes", ["--set-json", 'podAnnotations={"a/b/c":"x"}'], /a\/b\/c/],
  [
    "an environment variable name with '='",
    ["--set-json", 'extraEnv=[{"name":"A=B","value":"x"}]'],
    /\/extraEnv\/0\/name/,
  ],
  [
    "an envFrom source naming neither a ConfigMap nor a Secret",
    ["--set-json", 'extraEnvFrom=[{"prefix":"A_"}]'],
    /\/extraEnvFrom\/0/,
  ],
  [
    "a sidecar without an image",
    ["--set-json", 'components.auth.sidecars=[{"name":"proxy"}]'],
    /\/components\/auth\/sidecars\/0/,
  ],
  [
    "a volume mount without a path",
    ["--set-json", 'extraVolumeMounts=[{"name":"cache"}]'],
    /\/extraVolumeMounts\/0/,
  ],
  [
    "a toleration operator Kubernetes does not have",
    ["--set-json", 'components.dispatcher.tolerations=[{"key":"a","operator":"Equals"}]'],
    /\/components\/dispatcher\/tolerations\/0\/operator/,
  ],
  [
    "a topology spread constraint without its key",
    ["--set-json", 'topologySpreadConstraints=[{"maxSkew":1,"whenUnsatisfiable":"DoNotSchedule"}]'],
    /\/topologySpreadConstraints\/0/,
  ],
  [
    "a misspelt affinity",
    ["--set-json", 'components.practices.affinity={"nodeAfinity":{}}'],
    /\/components\/practices\/affinity/,
  ],
  [
    "a misspelt ServiceAccount key",
    ["--set-json", 'components.auth.serviceAccount={"annotation":{}}'],
    /\/components\/auth\/serviceAccount/,
  ],
  [
    "a Service type Kubernetes does not have",
    ["--set", "service.type=Internal"],
    /\/service\/type/,
  ],
  [
    "an extra Ingress host with a scheme",
    ["--set-json", 'ingress.extraHosts=["https://a.example.com"]'],
    /\/ingress\/extraHosts\/0/,
  ],
  [
    "an image registry with a scheme",
    ["--set", "global.imageRegistry=https://mirror.example.com"],
    /\/global\/imageRegistry/,
  ],
  [
    "an RFC 1918 range for the API server",
    ["--set-json", 'networkPolicy.kubeApiServer.cidrs=["10.0.0.0/8"]'],
    /\/networkPolicy\/kubeApiServer\/cidrs\/0/,
  ],
  [
    "a /16 for the API server",
    ["--set-json", 'networkPolicy.kubeApiServer.cidrs=["172.20.0.0/16"]'],
    /\/networkPolicy\/kubeApiServer\/cidrs\/0/,
  ],
  [
    "a unique-local /8 for the API server",
    ["--set-json", 'networkPolicy.kubeApiServer.cidrs=["fd00::/8"]'],
    /\/networkPolicy\/kubeApiServer\/cidrs\/0/,
  ],
  // The API server drops an unknown selector field with a warning, and the empty selector left
  // behind matches every namespace or pod: a misspelt key would widen the policy silently.
  [
    "a misspelt matchLabels in a policy peer",
    ["--set-json", 'networkPolicy.dns=[{"namespaceSelector":{"matchLabel":{"a":"b"}}}]'],
    /\/networkPolicy\/dns\/0\/namespaceSelector/,
  ],
  [
    "a selector operator Kubernetes does not have",
    [
      "--set-json",
      'networkPolicy.metricsScrapers=[{"podSelector":{"matchExpressions":[{"key":"app","operator":"Equals","values":["x"]}]}}]',
    ],
    /\/networkPolicy\/metricsScrapers\/0\/podSelector\/matchExpressions\/0\/operator/,
  ],
  [
    "an ipBlock peer without a prefix length",
    ["--set-json", 'nats.egress.peers=[{"ipBlock":{"cidr":"10.0.0.7"}}]'],
    /\/nats\/egress\/peers\/0\/ipBlock\/cidr/,
  ],
  [
    "network policies without the API server's endpoints",
    ["--set-json", "networkPolicy.kubeApiServer.cidrs=[]"],
    /networkPolicy\.kubeApiServer\.cidrs is empty: .*kubectl get endpointslices -n default -l kubernetes\.io\/service-name=kubernetes/,
  ],
];

describe("values.schema.json", () => {
  it("rejects the deliberately broken value set, naming every mistake", async () => {
    const err = await templateError(["broken.yaml"]);
    expect(err).toMatch(/\/environment/);
    expect(err).toMatch(/\/logLevel/);
    expect(err).toMatch(/\/image\/pullPolicy/);
    expect(err).toMatch(/componets/);
    expect(err).toMatch(/\/ingress\/enabled/);
  });

  for (const [what, args, names] of REFUSED) {
    it(`refuses ${what}`, async () => {
      expect(await refusal(...args)).toMatch(names);
    });
  }

  it("accepts what those refusals are next to: a pinned tag, a digest, API server /32, /24, /128 and /64", async () => {
    await expect(
      render(valueSets.default, ["--set", "image.tag=1.4.2-rc.1"]),
    ).resolves.not.toHaveLength(0);
    for (const cidrs of ['["172.20.0.10/32","172.20.1.0/24"]', '["fd12::5/128","fd12:0:0:1::/64"]'])
      await expect(
        render(valueSets.default, ["--set-json", `networkPolicy.kubeApiServer.cidrs=${cidrs}`]),
      ).resolves.not.toHaveLength(0);
  });

  it("renders the chart's appVersion as the tag when image.tag is unset", async () => {
    const chart = parse(readFileSync(join(chartDir, "Chart.yaml"), "utf8")) as {
      appVersion: string;
    };
    const images = (await render())
      .flatMap((o) => {
        const pod = podSpecOf(o);
        return pod ? pod.containers.map((c) => c.image) : [];
      })
      .filter((image) => image.startsWith("registry.example.com/"));
    expect(images.length).toBeGreaterThan(0);
    for (const image of images)
      expect(image).toBe(`registry.example.com/integration-service:${chart.appVersion}`);
  });

  it("rejects an unknown key inside a component", async () => {
    expect(await refusal("--set", "components.auth.replica=3")).toMatch(/replica/);
  });

  it("rejects a component's resources without a memory limit", async () => {
    expect(await refusal("--set", "components.auth.resources.limits=null")).toMatch(/limits/);
  });

  it("rejects a NATS server entry that holds a comma-joined list", async () => {
    expect(await refusal("--set-json", 'nats.servers=["nats://a:4222,nats://b:4222"]')).toMatch(
      /servers/,
    );
  });

  it("fails the render when a dependency has no network policy destination", async () => {
    const err = await refusal("--set-json", "postgresql.egress.cidrs=[]");
    expect(err).toContain("postgresql.egress needs cidrs or peers");
  });

  it("fails the render when a secret has neither an inline value nor an existing Secret", async () => {
    expect(await refusal("--set", "postgresql.existingSecret=")).toContain(
      "set an inline value or existingSecret",
    );
  });

  it("accepts the value sets CI keeps", async () => {
    await expect(render(["production.yaml", "hpa.yaml"])).resolves.not.toHaveLength(0);
  });
});

describe("values.yaml", () => {
  for (const file of ["values.yaml", "values-dev.yaml"]) {
    it(`has a comment right above every key of ${file}`, () => {
      const lines = readFileSync(join(chartDir, file), "utf8").split("\n");
      const undocumented = lines
        .map((line, i) => ({ line, i }))
        // Keys of mappings, not items of lists (those are data, documented by their key).
        .filter(({ line }) => /^\s*[A-Za-z0-9_.\-/]+:(\s|$)/.test(line) && !/^\s*-/.test(line))
        .filter(({ i }) => {
          const above = (lines[i - 1] ?? "").trim();
          return !above.startsWith("#") && !/^-\s/.test(above) && !isInsideListItem(lines, i);
        })
        .map(({ line, i }) => `${i + 1}: ${line.trim()}`);
      expect(undocumented).toEqual([]);
    });
  }
});

/** True when the key belongs to a mapping inside a list item (e.g. a NetworkPolicyPeer). */
function isInsideListItem(lines: string[], index: number): boolean {
  const indent = (lines[index] ?? "").search(/\S/);
  for (let i = index - 1; i >= 0; i--) {
    const line = lines[i] ?? "";
    const own = line.search(/\S/);
    if (own < 0 || line.trim().startsWith("#")) continue;
    if (own < indent) return /^\s*-\s/.test(line) || isInsideListItem(lines, i);
  }
  return false;
}
