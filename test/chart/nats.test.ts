// NATS as the chart configures it: replicas and placement of the streams, credentials and TLS
// from existing Secrets, each mounted where the variable the services read points, and accepted
// by the services' own configuration parser.
import { describe, expect, it } from "vitest";
import { natsEnvShape, parseEnv, z } from "@svc/config";
import { natsConnectSettings } from "@svc/messaging";
import { render, valueSets } from "./support/helm.ts";
import { deployments, envOf, type PodSpec } from "./support/workloads.ts";

const natsKeys = Object.keys(natsEnvShape);

/** The NATS variables of a pod, as the services would read them (Secret values stand in). */
function natsConfigOf(pod: PodSpec) {
  const env = envOf(pod.containers[0]!);
  const source: Record<string, string> = {};
  for (const key of natsKeys) {
    const v = env.get(key);
    if (v) source[key] = v.value ?? `from-secret-${v.valueFrom?.secretKeyRef?.key}`;
  }
  return { env, source, config: parseEnv(z.object(natsEnvShape), source) };
}

function mountOf(pod: PodSpec, file: string) {
  const mount = pod.containers[0]!.volumeMounts?.find((m) => file.startsWith(`${m.mountPath}/`));
  const volume = pod.volumes?.find((v) => v.name === mount?.name) as
    { secret?: { secretName: string; items?: Array<{ key: string; path: string }> } } | undefined;
  return { mount, secret: volume?.secret };
}

describe("NATS settings", () => {
  it("default: one replica, no credentials, no TLS files, nothing mounted", async () => {
    for (const [name, pod] of deployments(await render(valueSets.default))) {
      const { source, config } = natsConfigOf(pod);
      expect(source, name).toEqual({
        NATS_SERVERS: "nats://nats.nats.svc.cluster.local:4222",
        NATS_NAMESPACE: "integration",
        NATS_REPLICAS: "1",
      });
      expect(natsConnectSettings(config), name).toEqual({
        servers: ["nats://nats.nats.svc.cluster.local:4222"],
      });
      expect(
        pod.volumes?.map((v) => v.name),
        name,
      ).not.toContain("nats-auth");
    }
  });

  it("production example: three replicas, a credentials file and the CA mounted from their Secrets in every pod", async () => {
    const pods = deployments(await render(valueSets.production));
    expect(pods.size).toBeGreaterThanOrEqual(6);
    for (const [name, pod] of pods) {
      const { config } = natsConfigOf(pod);
      expect(config.NATS_REPLICAS, name).toBe(3);
      expect(config.NATS_SERVERS, name).toHaveLength(3);
      const creds = mountOf(pod, config.NATS_CREDS_FILE!);
      expect(creds.secret?.secretName, name).toBe("integration-prod-nats-creds");
      expect(creds.secret?.items, name).toEqual([{ key: "user.creds", path: "user.creds" }]);
      expect(config.NATS_CREDS_FILE, name).toBe(`${creds.mount!.mountPath}/user.creds`);
      const ca = mountOf(pod, config.NATS_TLS_CA_FILE!);
      expect(ca.secret?.secretName, name).toBe("integration-prod-nats-tls");
      expect(ca.mount?.readOnly, name).toBe(true);
      const settings = natsConnectSettings(config);
      expect(settings.authenticator, name).toBeTypeOf("function");
      expect(settings.tls, name).toEqual({ caFile: config.NATS_TLS_CA_FILE });
    }
  });

  it("user and password come from the Secret's keys, never from a literal; placement from values", async () => {
    const pods = deployments(
      await render(valueSets.default, [
        "--set",
        "nats.auth.type=userPassword",
        "--set",
        "nats.auth.existingSecret=nats-user",
        "--set",
        "nats.placement.cluster=east",
        "--set",
        "nats.placement.tags={ssd,zone-a}",
        "--set",
        "nats.tls.existingSecret=nats-tls",
        "--set",
        "nats.tls.clientCertificate=true",
      ]),
    );
    for (const [name, pod] of pods) {
      const { env, config } = natsConfigOf(pod);
      expect(env.get("NATS_USER")?.valueFrom?.secretKeyRef, name).toEqual({
        name: "nats-user",
        key: "username",
      });
      expect(env.get("NATS_PASSWORD")?.valueFrom?.secretKeyRef, name).toEqual({
        name: "nats-user",
        key: "password",
      });
      expect(env.get("NATS_PASSWORD")?.value, name).toBeUndefined();
      expect(config.NATS_PLACEMENT_CLUSTER, name).toBe("east");
      expect(config.NATS_PLACEMENT_TAGS, name).toEqual(["ssd", "zone-a"]);
      expect(natsConnectSettings(config).tls, name).toEqual({
        caFile: config.NATS_TLS_CA_FILE,
        certFile: config.NATS_TLS_CERT_FILE,
        keyFile: config.NATS_TLS_KEY_FILE,
      });
      expect(mountOf(pod, config.NATS_TLS_KEY_FILE!).secret?.secretName, name).toBe("nats-tls");
    }
  });
});
