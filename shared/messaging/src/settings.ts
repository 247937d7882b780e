import { readFileSync } from "node:fs";
import {
  credsAuthenticator,
  nkeyAuthenticator,
  tokenAuthenticator,
  usernamePasswordAuthenticator,
  type Authenticator,
  type TlsOptions,
} from "@nats-io/transport-node";
import type { Placement } from "@nats-io/jetstream";

/** The NATS keys of a service's configuration (`natsEnvShape` of @svc/config). */
export interface NatsSettings {
  NATS_SERVERS: ReadonlyArray<string>;
  NATS_USER?: string | undefined;
  NATS_PASSWORD?: string | undefined;
  NATS_TOKEN?: string | undefined;
  NATS_CREDS_FILE?: string | undefined;
  NATS_NKEY_SEED_FILE?: string | undefined;
  NATS_TLS_CA_FILE?: string | undefined;
  NATS_TLS_CERT_FILE?: string | undefined;
  NATS_TLS_KEY_FILE?: string | undefined;
}

/** Where JetStream keeps this installation's streams and buckets. */
export interface JetStreamTopology {
  /** Copies of each stream and bucket: 1, or 3 (or 5) on a cluster of that many servers. */
  replicas: number;
  placement?: Placement;
}

export interface TopologySettings {
  NATS_REPLICAS?: number | undefined;
  NATS_PLACEMENT_CLUSTER?: string | undefined;
  NATS_PLACEMENT_TAGS?: ReadonlyArray<string> | undefined;
}

export const SINGLE_SERVER: JetStreamTopology = Object.freeze({ replicas: 1 });

/** The topology a configuration asks for; one replica and no placement by default. */
export function jetStreamTopology(settings: TopologySettings): JetStreamTopology {
  const tags = [...(settings.NATS_PLACEMENT_TAGS ?? [])];
  const cluster = settings.NATS_PLACEMENT_CLUSTER ?? "";
  return {
    replicas: settings.NATS_REPLICAS ?? 1,
    ...((cluster !== "" || tags.length > 0) && { placement: { cluster, tags } }),
  };
}

/** The stream settings of a topology, for a StreamConfig. */
export function topologyFields(topology: JetStreamTopology): {
  num_replicas: number;
  placement?: Placement;
} {
  return {
    num_replicas: topology.replicas,
    ...(topology.placement && { placement: topology.placement }),
  };
}

export interface NatsConnectSettings {
  servers: string[];
  authenticator?: Authenticator;
  tls?: TlsOptions;
}

/**
 * Connection options from configuration: at most one way to authenticate (user and password, a
 * token, a credentials file or an NKEY seed file) and, when any TLS file is set, TLS. Files are
 * read again at every (re)connect, so a rotated credential is picked up without a restart. Throws
 * naming the keys when the combination cannot work.
 */
export function natsConnectSettings(settings: NatsSettings): NatsConnectSettings {
  const methods = [
    settings.NATS_USER !== undefined || settings.NATS_PASSWORD !== undefined ? "NATS_USER" : "",
    settings.NATS_TOKEN !== undefined ? "NATS_TOKEN" : "",
    settings.NATS_CREDS_FILE !== undefined ? "NATS_CREDS_FILE" : "",
    settings.NATS_NKEY_SEED_FILE !== undefined ? "NATS_NKEY_SEED_FILE" : "",
  ].filter(Boolean);
  const problems: string[] = [];
  if (methods.length > 1)
    problems.push(`set one way to authenticate, not ${methods.join(" and ")}`);
  if ((settings.NATS_USER === undefined) !== (settings.NATS_PASSWORD === undefined))
    problems.push("NATS_USER and NATS_PASSWORD go together");
  if ((settings.NATS_TLS_CERT_FILE === undefined) !== (settings.NATS_TLS_KEY_FILE === undefined))
    problems.push("NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE go together");
  if (problems.length > 0) throw new Error(`invalid NATS configuration: ${problems.join("; ")}`);

  const read = (file: string) => () => readFileSync(file);
  const authenticator =
    settings.NATS_USER !== undefined
      ? usernamePasswordAuthenticator(settings.NATS_USER, settings.NATS_PASSWORD)
      : settings.NATS_TOKEN !== undefined
        ? tokenAuthenticator(settings.NATS_TOKEN)
        : settings.NATS_CREDS_FILE !== undefined
          ? credsAuthenticator(read(settings.NATS_CREDS_FILE))
          : settings.NATS_NKEY_SEED_FILE !== undefined
            ? nkeyAuthenticator(read(settings.NATS_NKEY_SEED_FILE))
            : undefined;
  const tlsFiles = {
    ...(settings.NATS_TLS_CA_FILE !== undefined && { caFile: settings.NATS_TLS_CA_FILE }),
    ...(settings.NATS_TLS_CERT_FILE !== undefined && { certFile: settings.NATS_TLS_CERT_FILE }),
    ...(settings.NATS_TLS_KEY_FILE !== undefined && { keyFile: settings.NATS_TLS_KEY_FILE }),
  };
  return {
    servers: [...settings.NATS_SERVERS],
    ...(authenticator && { authenticator }),
    ...(Object.keys(tlsFiles).length > 0 && { tls: tlsFiles }),
  };
}
