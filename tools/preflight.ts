import pg from "pg";
import { createConnection } from "mysql2/promise";
import { connect } from "@nats-io/transport-node";
import { jetstreamManager } from "@nats-io/jetstream";

/** One backing service the stack needs, how to reach it, and how a developer starts it here. */
export interface Dependency {
  name: string;
  address: string;
  howToStart: string;
  check: () => Promise<void>;
}

export function dependencies(urls: { pg: string; mysql: string; nats: string }): Dependency[] {
  const pgUrl = new URL(urls.pg);
  const myUrl = new URL(urls.mysql);
  return [
    {
      name: "PostgreSQL",
      address: `${pgUrl.hostname}:${pgUrl.port || 5432}`,
      howToStart: "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start",
      check: async () => {
        const admin = new URL(urls.pg);
        admin.pathname = "/postgres";
        const client = new pg.Client({
          connectionString: admin.toString(),
          connectionTimeoutMillis: 3_000,
        });
        await client.connect();
        await client.end();
      },
    },
    {
      name: "MySQL/MariaDB",
      address: `${myUrl.hostname}:${myUrl.port || 3306}`,
      howToStart: "start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd",
      check: async () => {
        const conn = await createConnection({ uri: urls.mysql, connectTimeout: 3_000 });
        await conn.end();
      },
    },
    {
      name: "NATS with JetStream",
      address: urls.nats.replace(/^nats:\/\//, ""),
      howToStart:
        "start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log",
      check: async () => {
        const servers = urls.nats.split(",").map((s) => s.trim());
        const nc = await connect({ servers, timeout: 3_000, maxReconnectAttempts: 0 });
        try {
          await (await jetstreamManager(nc)).getAccountInfo();
        } finally {
          await nc.close();
        }
      },
    },
  ];
}

/**
 * Checks every dependency; returns a message per unreachable one, naming it, its address and how
 * to start it.
 */
export async function preflight(deps: Dependency[]): Promise<string[]> {
  const problems: string[] = [];
  for (const dep of deps) {
    try {
      await dep.check();
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      problems.push(
        `${dep.name} is not reachable at ${dep.address} (${reason}).\n    Start it with: ${dep.howToStart}`,
      );
    }
  }
  return problems;
}

/** Creates the service database on first start (one database, one schema per service). */
export async function ensurePgDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`unsupported database name '${name}'`);
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
}
