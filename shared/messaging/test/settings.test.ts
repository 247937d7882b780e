// Connecting with the credentials and TLS a configuration names, against real nats-servers that
// require them; and streams and buckets created with the configured replicas on a real
// three-node JetStream cluster.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nkeys } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestCa,
  startPrivateNatsCluster,
  startPrivateNatsServer,
  type PrivateNatsCluster,
  type TestCa,
} from "@svc/testing";
import {
  connectNats,
  drainNats,
  ensureStream,
  eventsStreamConfig,
  jetStreamTopology,
  jetstreamManager,
  names,
  natsConnectSettings,
  openKv,
  type NatsSettings,
} from "../src/index.ts";
import { recordingLogger } from "./support.ts";

const dir = mkdtempSync(join(tmpdir(), "nats-settings-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Connects with `settings` and round-trips one request through the server. */
async function connectsWith(settings: NatsSettings): Promise<void> {
  const nc = await connectNats({
    ...natsConnectSettings(settings),
    name: "settings-test",
    logger: recordingLogger(),
    connectTimeoutMs: 3_000,
  });
  try {
    await nc.flush();
  } finally {
    await drainNats(nc, { timeoutMs: 1_000 });
  }
}

/**
 * A decentralised-auth trust chain (operator, account, user) as nsc would write it: the JWTs
 * signed with ed25519 nkeys, the server's configuration trusting the operator with the account
 * preloaded, and a user's creds file (its JWT and seed).
 */
function trustChain(): { serverConfig: string; creds: (seed?: Uint8Array) => string } {
  const operator = nkeys.createOperator();
  const account = nkeys.createAccount();
  const user = nkeys.createUser();
  const jwt = (signer: nkeys.KeyPair, subject: string, nats: Record<string, unknown>) => {
    const part = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
    const claims = {
      jti: randomUUID(),
      iat: Math.floor(Date.now() / 1000),
      iss: signer.getPublicKey(),
      sub: subject,
      nats: { ...nats, version: 2 },
    };
    const body = `${part({ typ: "JWT", alg: "ed25519-nkey" })}.${part(claims)}`;
    return `${body}.${Buffer.from(signer.sign(Buffer.from(body))).toString("base64url")}`;
  };
  const unlimited = { subs: -1, data: -1, payload: -1 };
  const accountJwt = jwt(operator, account.getPublicKey(), {
    type: "account",
    limits: { ...unlimited, imports: -1, exports: -1, wildcards: true, conn: -1, leaf: -1 },
  });
  const userJwt = jwt(account, user.getPublicKey(), {
    type: "user",
    pub: {},
    sub: {},
    ...unlimited,
  });
  // JetStream (on in every test server) needs a system account.
  const system = nkeys.createAccount();
  const systemJwt = jwt(operator, system.getPublicKey(), { type: "account" });
  return {
    serverConfig: [
      `operator: ${jwt(operator, operator.getPublicKey(), { type: "operator" })}`,
      "resolver: MEMORY",
      `system_account: ${system.getPublicKey()}`,
      "resolver_preload: {",
      `  ${account.getPublicKey()}: ${accountJwt}`,
      `  ${system.getPublicKey()}: ${systemJwt}`,
      "}",
    ].join("\n"),
    creds: (seed = user.getSeed()) =>
      [
        "-----BEGIN NATS USER JWT-----",
        userJwt,
        "------END NATS USER JWT------",
        "",
        "-----BEGIN USER NKEY SEED-----",
        new TextDecoder().decode(seed),
        "------END USER NKEY SEED------",
        "",
      ].join("\n"),
  };
}

describe("natsConnectSettings", () => {
  it("refuses two ways to authenticate, a user without a password and a certificate without its key", () => {
    const servers = ["nats://127.0.0.1:4222"];
    expect(() =>
      natsConnectSettings({
        NATS_SERVERS: servers,
        NATS_TOKEN: "t",
        NATS_USER: "u",
        NATS_PASSWORD: "p",
      }),
    ).toThrow(/one way to authenticate, not NATS_USER and NATS_TOKEN/);
    expect(() => natsConnectSettings({ NATS_SERVERS: servers, NATS_USER: "u" })).toThrow(
      /NATS_USER and NATS_PASSWORD go together/,
    );
    expect(() =>
      natsConnectSettings({ NATS_SERVERS: servers, NATS_TLS_CERT_FILE: "/c.pem" }),
    ).toThrow(/NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE go together/);
    expect(natsConnectSettings({ NATS_SERVERS: servers })).toEqual({ servers });
  });

  it("connects with a user and password, and is refused with a wrong one", async () => {
    const server = await startPrivateNatsServer({
      config: 'authorization {\n  user: svc\n  password: "s3cret-pass"\n}',
    });
    try {
      await connectsWith({
        NATS_SERVERS: [server.url],
        NATS_USER: "svc",
        NATS_PASSWORD: "s3cret-pass",
      });
      await expect(
        connectsWith({ NATS_SERVERS: [server.url], NATS_USER: "svc", NATS_PASSWORD: "wrong" }),
      ).rejects.toThrow(/Authorization/i);
      await expect(connectsWith({ NATS_SERVERS: [server.url] })).rejects.toThrow(/Authorization/i);
    } finally {
      await server.dispose();
    }
  });

  it("connects with a token", async () => {
    const server = await startPrivateNatsServer({
      config: 'authorization {\n  token: "tok-123"\n}',
    });
    try {
      await connectsWith({ NATS_SERVERS: [server.url], NATS_TOKEN: "tok-123" });
      await expect(
        connectsWith({ NATS_SERVERS: [server.url], NATS_TOKEN: "nope" }),
      ).rejects.toThrow(/Authorization/i);
    } finally {
      await server.dispose();
    }
  });

  it("connects with an NKEY seed file, read again at every connect", async () => {
    const user = nkeys.createUser();
    const other = nkeys.createUser();
    const seedFile = join(dir, "user.nk");
    writeFileSync(seedFile, user.getSeed());
    const server = await startPrivateNatsServer({
      config: `authorization {\n  users: [ { nkey: ${user.getPublicKey()} } ]\n}`,
    });
    try {
      await connectsWith({ NATS_SERVERS: [server.url], NATS_NKEY_SEED_FILE: seedFile });
      writeFileSync(seedFile, other.getSeed());
      await expect(
        connectsWith({ NATS_SERVERS: [server.url], NATS_NKEY_SEED_FILE: seedFile }),
      ).rejects.toThrow(/Authorization/i);
    } finally {
      await server.dispose();
    }
  });

  it("connects with a creds file (a user JWT the trusted operator's account signed), and is refused with another seed", async () => {
    const chain = trustChain();
    const credsFile = join(dir, "user.creds");
    writeFileSync(credsFile, chain.creds());
    const server = await startPrivateNatsServer({ config: chain.serverConfig });
    try {
      await connectsWith({ NATS_SERVERS: [server.url], NATS_CREDS_FILE: credsFile });
      writeFileSync(credsFile, chain.creds(nkeys.createUser().getSeed()));
      await expect(
        connectsWith({ NATS_SERVERS: [server.url], NATS_CREDS_FILE: credsFile }),
      ).rejects.toThrow(/Authorization/i);
    } finally {
      await server.dispose();
    }
  });

  describe("TLS", () => {
    let ca: TestCa;
    beforeAll(() => {
      ca = createTestCa();
      writeFileSync(join(dir, "server.pem"), ca.serverCert);
      writeFileSync(join(dir, "server.key"), ca.serverKey);
    });
    afterAll(() => ca.dispose());

    it("connects to a server whose certificate the configured CA signed, and refuses it without the CA", async () => {
      const server = await startPrivateNatsServer({
        config: `tls {\n  cert_file: "${join(dir, "server.pem")}"\n  key_file: "${join(dir, "server.key")}"\n}`,
      });
      try {
        await connectsWith({ NATS_SERVERS: [server.url], NATS_TLS_CA_FILE: ca.caFile });
        await expect(connectsWith({ NATS_SERVERS: [server.url] })).rejects.toThrow();
      } finally {
        await server.dispose();
      }
    });
  });
});

describe("JetStream topology on a three-node cluster", () => {
  let cluster: PrivateNatsCluster;
  beforeAll(async () => {
    cluster = await startPrivateNatsCluster(3);
  }, 30_000);
  afterAll(() => cluster?.dispose());

  it(
    "creates the events stream and a KV bucket with three replicas when NATS_REPLICAS=3",
    { timeout: 30_000 },
    async () => {
      const topology = jetStreamTopology({ NATS_REPLICAS: 3 });
      const nc = await connectNats({
        ...natsConnectSettings({ NATS_SERVERS: cluster.urls }),
        name: "topology-test",
        logger: recordingLogger(),
      });
      try {
        const jsm = await jetstreamManager(nc);
        const n = names("topo");
        // The cluster elects its JetStream meta leader shortly after start.
        let stream;
        for (let attempt = 0; ; attempt++) {
          try {
            stream = await ensureStream(jsm, eventsStreamConfig(n, topology));
            break;
          } catch (err) {
            if (attempt > 50) throw err;
            await new Promise((r) => setTimeout(r, 200));
          }
        }
        expect(stream.info.config.num_replicas).toBe(3);
        expect(stream.info.cluster?.replicas?.length).toBe(2);
        await openKv(nc, "topo_bucket", { history: 1, topology });
        const kvInfo = await jsm.streams.info("KV_topo_bucket");
        expect(kvInfo.config.num_replicas).toBe(3);
        // A stream made with one replica is scaled up by the next start's ensureStream.
        await jsm.streams.add({ name: "TOPO_ONE", subjects: ["topo.one.>"], num_replicas: 1 });
        const scaled = await ensureStream(jsm, {
          name: "TOPO_ONE",
          subjects: ["topo.one.>"],
          num_replicas: 3,
        });
        expect(scaled.outcome).toBe("updated");
        expect(scaled.info.config.num_replicas).toBe(3);
      } finally {
        await drainNats(nc, { timeoutMs: 1_000 });
      }
    },
  );
});
