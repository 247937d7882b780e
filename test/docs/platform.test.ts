// docs/platform.md, run: its tested blocks create the Secrets (kubectl client dry runs), write the
// values file and the WebhookSubscription, and install, upgrade and roll the release, all against
// no cluster (support/offline-cluster.ts: helm install and upgrade become `helm template`). The
// replay (support/release-check.ts) then checks that the release they describe would start.
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { eventTypesFor } from "@svc/events";
import { CHART_COMPONENTS, JOBS } from "@svc/manifest";
import { generateSigningJwk } from "../../services/auth/src/domain/keys/local-keys.ts";
import { loadSigningKeys } from "../../services/auth/src/domain/keys/signing-keys.ts";
import { migrateConfig } from "../../tools/config.ts";
import { CONFIG_LOADERS } from "../chart/support/config-loaders.ts";
import { peakConnections } from "../chart/support/connections.ts";
import { validateAgainst, type SchemaNode } from "../chart/support/openapi-schema.ts";
import { runGuide, type GuideRun } from "./support/offline-cluster.ts";
import { replay, type ReleaseCheckOptions, type Replay } from "./support/release-check.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const GUIDE = join(ROOT, "docs/platform.md");

/** The NATS credentials file and CA the reader has (section "Secrets"); their content is not read. */
const natsFiles = mkdtempSync(join(tmpdir(), "docs-nats-files-"));
writeFileSync(join(natsFiles, "user.creds"), "-----BEGIN NATS USER JWT-----\n");
writeFileSync(join(natsFiles, "ca.crt"), "-----BEGIN CERTIFICATE-----\n");

/** The variables the guide tells the reader to have in the shell (section "Secrets"). */
const READER_ENV = {
  NATS_CREDS_FILE: join(natsFiles, "user.creds"),
  NATS_CA_FILE: join(natsFiles, "ca.crt"),
  POSTGRES_URL: "postgres://integration:s3cret@postgres.example.internal:5432/integration",
  LEGACY_MYSQL_URL: "mysql://integration_ro:s3cret@mysql.example.internal:3306/legacy",
  IDENTITY_PEPPER: randomBytes(48).toString("base64"),
  WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
};

/** How each process reads its environment at start, by chart component and Job. */
const CHECKS: ReleaseCheckOptions = {
  services: CONFIG_LOADERS,
  jobs: {
    migrations: (env) => migrateConfig(env),
    // Takes its target from its command line, not from the environment.
    "sandbox-seed": null,
  },
  signingKeys: async (dir) => {
    const keys = await loadSigningKeys(dir);
    return { active: keys.active.kid, kids: keys.jwks.keys.map((k) => String(k.kid)) };
  },
};

type Crd = { spec: { versions: Array<{ name: string; schema: { openAPIV3Schema: SchemaNode } }> } };
const crd = parse(
  readFileSync(
    join(ROOT, "charts/integration-service/crds/webhooksubscriptions.integration.svc.io.yaml"),
    "utf8",
  ),
) as Crd;

// The commands README.md gave before this guide (its "Deploying with Helm"), with `-n integration`
// so that they land in the release's namespace, and a generated key for its `<kid>` placeholder:
// keys named after the variables instead of the keys the chart reads, and no webhook secret key.
// The check must refuse them. The values add the API server's endpoints, which the chart requires
// before it renders anything, so that the check gets to the Secrets.
const readmeBefore = (jwk: string) => `
\`\`\`yaml tested file=my-values.yaml
environment: production
publicBaseUrl: https://api.example.com
networkPolicy:
  kubeApiServer:
    cidrs: [172.18.0.2/32]
\`\`\`

\`\`\`json tested file=k1.active.jwk.json
${jwk}
\`\`\`

\`\`\`sh tested
kubectl create namespace integration --dry-run=client -o yaml | kubectl apply -f -
kubectl -n integration create secret generic integration-service-postgresql --from-literal=DATABASE_URL=postgres://integration@postgres:5432/integration
kubectl -n integration create secret generic integration-service-mysql --from-literal=LEGACY_DATABASE_URL=mysql://readonly@mysql:3306/legacy
kubectl -n integration create secret generic integration-service-identity-pepper --from-literal=IDENTITY_PEPPER=$(openssl rand -base64 48)
kubectl -n integration create secret generic integration-service-signing-keys --from-file=k1.active.jwk.json
helm install isvc charts/integration-service -n integration -f my-values.yaml
helm test isvc -n integration
\`\`\`
`;

let guide: GuideRun;
let guideResult: Replay;
let before: GuideRun;
let beforeResult: Replay;
let scratch: string;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "docs-readme-before-"));
  const beforeFile = join(scratch, "readme-before.md");
  writeFileSync(beforeFile, readmeBefore(JSON.stringify(await generateSigningJwk("k1"))));
  // Both at once: most of the time goes to starting processes.
  [guide, before] = await Promise.all([
    runGuide(GUIDE, { root: ROOT, env: READER_ENV }),
    runGuide(beforeFile, { root: ROOT, env: {} }),
  ]);
  guideResult = await replay(guide, CHECKS);
  beforeResult = await replay(before, CHECKS);
});

afterAll(() => {
  rmSync(natsFiles, { recursive: true, force: true });
  guide?.cleanup();
  before?.cleanup();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("docs/platform.md", () => {
  it("knows how every deployed process and Job reads its environment", () => {
    expect(Object.keys(CHECKS.services).sort()).toEqual([...CHART_COMPONENTS].sort());
    expect(Object.keys(CHECKS.jobs).sort()).toEqual(JOBS.map((j) => j.name).sort());
  });

  it("runs every tested block", () => {
    expect(guide.failure, guide.failure).toBeUndefined();
    expect(guide.ran.length).toBeGreaterThan(5);
  });

  it("installs and upgrades a release whose every Secret reference resolves and whose every process would start", () => {
    expect(guideResult.renders.map((r) => `${r.verb} ${r.release} -n ${r.namespace}`)).toEqual([
      "install isvc -n integration",
      "upgrade isvc -n integration",
    ]);
    for (const render of guideResult.renders) {
      const workloads = render.objects
        .filter((o) => o.kind === "Deployment" || o.kind === "Job")
        .map((o) => o.metadata.labels?.["app.kubernetes.io/component"]);
      expect(workloads.sort(), render.block).toEqual([...CHART_COMPONENTS, "migrations"].sort());
    }
    expect(guideResult.failures.join("\n\n")).toBe("");
  });

  it("rotates the signing keys through announce, switch and retire, each a rollout of auth", () => {
    // The replay checks at every rollout that the new signing key was published before and that
    // the key that signed until then stays published (the test above).
    const restarts = guide.events.filter(
      (e) => e.verb === "rollout-restart" && e.target === "deployment/isvc-auth",
    );
    expect(restarts.map((e) => e.block)).toHaveLength(3);
  });

  it("declares a WebhookSubscription the CRD accepts, in the release's namespace, for event types the installation has", () => {
    const subscriptions = guideResult.applied.filter(
      (a) => a.object.kind === "WebhookSubscription",
    );
    expect(subscriptions.length).toBeGreaterThan(0);
    for (const { object, namespace, block, at } of subscriptions) {
      const version = crd.spec.versions.find((v) => object.apiVersion?.endsWith(`/${v.name}`));
      expect(version, `${block}: ${object.apiVersion}`).toBeDefined();
      expect(validateAgainst(version!.schema.openAPIV3Schema, object), block).toEqual([]);
      // The dispatcher watches its own namespace only.
      const release = guideResult.renders
        .filter((r) => r.at < at && r.namespace === namespace)
        .at(-1);
      expect(release, `${block}: no release in namespace ${namespace}`).toBeDefined();
      const environment = envOf(release!.objects, "dispatcher", "ENVIRONMENT");
      const spec = object.spec as { eventTypes: string[]; secretName: string };
      for (const type of spec.eventTypes)
        expect(eventTypesFor(environment as "production"), `${block}: ${type}`).toContain(type);
      // An existing Secret the subscription does not own is never written (SecretConflict).
      const taken = [
        ...guideResult.applied.filter(
          (a) => a.object.kind === "Secret" && a.namespace === namespace,
        ),
        ...release!.objects.filter((o) => o.kind === "Secret").map((object) => ({ object })),
      ].map((s) => s.object.metadata.name);
      expect(taken, `${block}: secretName`).not.toContain(spec.secretName);
    }
  });
});

describe("the guide's connection figures", () => {
  it("are the peak of the production example it installs, computed from the chart", async () => {
    const text = readFileSync(GUIDE, "utf8");
    const peak = await peakConnections([
      join(ROOT, "charts/integration-service/values-production.yaml"),
    ]);
    expect(text).toContain(`**${peak.postgresql} PostgreSQL connections**`);
    expect(text).toContain(`**${peak.mysql} MySQL connections**`);
    expect(text).toContain(
      "cp charts/integration-service/values-production.yaml values-production.yaml",
    );
  });
});

describe("the release check", () => {
  it("refuses the Secrets README.md's former commands created, naming the block", () => {
    expect(before.failure).toBeUndefined();
    const text = beforeResult.failures.join("\n");
    const missingKey = (owner: string, variable: string, secret: string, key: string) =>
      `${owner} env ${variable} reads Secret "${secret}" key "${key}": the Secret created at`;
    expect(text).toContain(
      missingKey(
        "Deployment isvc-auth container auth",
        "DATABASE_URL",
        "integration-service-postgresql",
        "url",
      ),
    );
    expect(text).toContain(
      missingKey(
        "Job isvc-migrations container migrations",
        "DATABASE_URL",
        "integration-service-postgresql",
        "url",
      ),
    );
    expect(text).toContain(
      missingKey(
        "Deployment isvc-vacancies container vacancies",
        "LEGACY_DATABASE_URL",
        "integration-service-mysql",
        "url",
      ),
    );
    expect(text).toContain(
      missingKey(
        "Deployment isvc-identity container identity",
        "IDENTITY_PEPPER",
        "integration-service-identity-pepper",
        "pepper",
      ),
    );
    expect(text).toContain(
      'Deployment isvc-dispatcher container dispatcher env WEBHOOK_SECRET_KEY reads Secret "integration-service-webhook-secret-key" key "key": no Secret "integration-service-webhook-secret-key" in namespace integration',
    );
    expect(text).toMatch(
      /Deployment isvc-identity container identity would not start: invalid configuration:\n\s+- IDENTITY_PEPPER: is required but not set/,
    );
    for (const failure of beforeResult.failures)
      expect(failure.startsWith(join(scratch, "readme-before.md:")), failure).toBe(true);
  });
});

/** The literal value of a variable in a component's Deployment. */
function envOf(
  objects: ReadonlyArray<{
    kind: string;
    metadata: { labels?: Record<string, string> };
    spec?: unknown;
  }>,
  component: string,
  name: string,
): string | undefined {
  const deployment = objects.find(
    (o) =>
      o.kind === "Deployment" && o.metadata.labels?.["app.kubernetes.io/component"] === component,
  ) as
    | {
        spec: {
          template: {
            spec: { containers: Array<{ env?: Array<{ name: string; value?: string }> }> };
          };
        };
      }
    | undefined;
  return deployment?.spec.template.spec.containers[0]?.env?.find((e) => e.name === name)?.value;
}
