// The environment contract: each process gets exactly the variables its config.ts reads.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { NODE_FLAGS } from "@svc/runtime";
import { bundlePath, CHART_COMPONENTS, ENTRY_POINTS } from "@svc/manifest";
import { render, repoRoot, valueSets } from "./support/helm.ts";
import { deployments, envOf } from "./support/workloads.ts";

const common = [
  "PORT",
  "INTERNAL_PORT",
  "LOG_LEVEL",
  "ENVIRONMENT",
  "PUBLIC_BASE_URL",
  "NATS_SERVERS",
  "NATS_NAMESPACE",
  "NATS_REPLICAS",
  "AUTH_JWKS_URL",
  "TOKEN_ISSUER",
  "TOKEN_AUDIENCE",
  "DATABASE_URL",
  "MIGRATE_ON_START",
];
const otelOff = ["OTEL_SERVICE_NAME", "OTEL_SDK_DISABLED"];
const otelOn = [
  "OTEL_SERVICE_NAME",
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_PROTOCOL",
  "OTEL_TRACES_EXPORTER",
  "OTEL_METRICS_EXPORTER",
  "OTEL_LOGS_EXPORTER",
  "OTEL_TRACES_SAMPLER",
  "OTEL_TRACES_SAMPLER_ARG",
  "OTEL_RESOURCE_ATTRIBUTES",
];
const extra: Record<string, string[]> = {
  auth: ["SIGNING_KEYS_DIR"],
  practices: ["LEGACY_DATABASE_URL", "WARM_UP_MAX_MS"],
  vacancies: ["LEGACY_DATABASE_URL", "WARM_UP_MAX_MS"],
  identity: ["IDENTITY_PEPPER", "WARM_UP_MAX_MS"],
  webhooks: ["WEBHOOK_SECRET_KEY"],
  dispatcher: [
    "WEBHOOK_SECRET_KEY",
    "OPERATOR_ENABLED",
    "LEADER_ELECTION",
    "LEADER_ELECTION_NAME",
    "POD_NAME",
    "POD_NAMESPACE",
  ],
};

describe("environment contract", () => {
  it("sets exactly the contract's variables per process", async () => {
    const pods = deployments(await render());
    expect(Object.keys(extra).sort()).toEqual([...CHART_COMPONENTS].sort());
    for (const [name, own] of Object.entries(extra)) {
      const container = pods.get(`isvc-${name}`)?.containers[0];
      expect([...envOf(container!).keys()].sort(), name).toEqual(
        [...common, ...otelOff, ...own].sort(),
      );
    }
  });

  it("uses the cluster's ports, the auth Service's JWKS and no migrations on start", async () => {
    const env = envOf(deployments(await render()).get("isvc-practices")!.containers[0]!);
    expect(env.get("PORT")?.value).toBe("8080");
    expect(env.get("INTERNAL_PORT")?.value).toBe("9464");
    expect(env.get("AUTH_JWKS_URL")?.value).toBe("http://isvc-auth:8080/.well-known/jwks.json");
    expect(env.get("MIGRATE_ON_START")?.value).toBe("false");
    expect(env.get("ENVIRONMENT")?.value).toBe("production");
    expect(env.get("NATS_SERVERS")?.value).toBe("nats://nats.nats.svc.cluster.local:4222");
  });

  it("reads every secret value from a Secret, never from a literal", async () => {
    const pods = deployments(await render(valueSets.production));
    for (const [deployment, pod] of pods) {
      const env = envOf(pod.containers[0]!);
      for (const key of [
        "DATABASE_URL",
        "LEGACY_DATABASE_URL",
        "IDENTITY_PEPPER",
        "WEBHOOK_SECRET_KEY",
      ]) {
        const v = env.get(key);
        if (!v) continue;
        expect(v.value, `${deployment} ${key}`).toBeUndefined();
        expect(v.valueFrom?.secretKeyRef?.name, `${deployment} ${key}`).toBeTruthy();
      }
    }
    expect(
      envOf(pods.get("isvc-practices")!.containers[0]!).get("DATABASE_URL")?.valueFrom
        ?.secretKeyRef,
    ).toEqual({ name: "integration-prod-db", key: "url" });
    for (const name of ["isvc-webhooks", "isvc-dispatcher"]) {
      expect(
        envOf(pods.get(name)!.containers[0]!).get("WEBHOOK_SECRET_KEY")?.valueFrom?.secretKeyRef,
        name,
      ).toEqual({ name: "integration-prod-webhook-key", key: "key" });
    }
  });

  it("points inline secret values at the chart's Secret", async () => {
    const env = envOf(
      deployments(await render(valueSets.sandbox)).get("isvc-identity")!.containers[0]!,
    );
    expect(env.get("IDENTITY_PEPPER")?.valueFrom?.secretKeyRef).toEqual({
      name: "isvc-secrets",
      key: "identity-pepper",
    });
    const dispatcher = envOf(
      deployments(await render(valueSets.sandbox)).get("isvc-dispatcher")!.containers[0]!,
    );
    expect(dispatcher.get("WEBHOOK_SECRET_KEY")?.valueFrom?.secretKeyRef).toEqual({
      name: "isvc-secrets",
      key: "webhook-secret-key",
    });
  });

  it("gives the dispatcher the webhooks environment plus the operator, Lease election and the downward API", async () => {
    const pods = deployments(await render(valueSets.production));
    const webhooks = envOf(pods.get("isvc-webhooks")!.containers[0]!);
    const dispatcher = envOf(pods.get("isvc-dispatcher")!.containers[0]!);
    for (const [key, v] of webhooks)
      if (key !== "OTEL_SERVICE_NAME") expect(dispatcher.get(key), key).toEqual(v);
    expect(dispatcher.get("OPERATOR_ENABLED")?.value).toBe("true");
    expect(dispatcher.get("LEADER_ELECTION")?.value).toBe("lease");
    expect(dispatcher.get("POD_NAME")?.valueFrom?.fieldRef?.fieldPath).toBe("metadata.name");
    expect(dispatcher.get("POD_NAMESPACE")?.valueFrom?.fieldRef?.fieldPath).toBe(
      "metadata.namespace",
    );
  });

  it("sets the OTEL_* exporter variables when tracing is on", async () => {
    const env = envOf(
      deployments(await render(valueSets.production)).get("isvc-auth")!.containers[0]!,
    );
    for (const key of otelOn) expect(env.has(key), key).toBe(true);
    expect(env.has("OTEL_SDK_DISABLED")).toBe(false);
    expect(env.get("OTEL_RESOURCE_ATTRIBUTES")?.value).toContain(
      "deployment.environment.name=production",
    );
    expect(env.get("OTEL_RESOURCE_ATTRIBUTES")?.value).toContain("cloud.region=eu-west-1");
  });

  it("starts each process as npm start does: the same node flags, the bundles of its instrument.ts and entry point", async () => {
    const pods = deployments(await render());
    const bundled = (entry: string) => [
      "--import",
      `./${bundlePath(join(dirname(entry), "instrument.ts"))}`,
      bundlePath(entry),
    ];
    expect(pods.get("isvc-auth")?.containers[0]?.command).toEqual([
      "node",
      ...NODE_FLAGS,
      ...bundled("services/auth/src/main.ts"),
    ]);
    expect(pods.get("isvc-dispatcher")?.containers[0]?.command).toEqual([
      "node",
      ...NODE_FLAGS,
      ...bundled("services/webhooks/src/dispatcher-main.ts"),
    ]);
    // Every file a pod runs is one tools/build.ts writes, and its source exists.
    const built = new Map(ENTRY_POINTS.map((entry) => [bundlePath(entry), entry]));
    for (const [name, pod] of pods) {
      const command = pod.containers[0]!.command as string[];
      for (const file of [
        command[command.indexOf("--import") + 1]!.replace(/^\.\//, ""),
        command.at(-1)!,
      ]) {
        expect(built.has(file), `${name}: ${file} is not built`).toBe(true);
        expect(existsSync(join(repoRoot, built.get(file)!)), `${name}: source of ${file}`).toBe(
          true,
        );
      }
    }
  });

  it("keeps the production node flags in development, adds --watch and runs the sources live update syncs", async () => {
    const [, vacancies] = [...deployments(await render(valueSets.dev))].find(([name]) =>
      name.endsWith("-vacancies"),
    )!;
    expect(vacancies.containers[0]?.command).toEqual([
      "node",
      ...NODE_FLAGS,
      "--watch",
      "--import",
      "./services/vacancies/src/instrument.ts",
      "services/vacancies/src/main.ts",
    ]);
  });
});
