import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { launchServer, type LaunchedServer } from "./private-server-process.ts";
import { unusedPort } from "./tcp-proxy.ts";

/**
 * A private MariaDB server (fault tests): its own data directory and port, so a test may stop,
 * kill and restart it without touching the machine's shared server on 3306. `root` logs in from
 * 127.0.0.1 without a password; every commit is flushed (innodb_flush_log_at_trx_commit=1).
 */
export interface PrivateMariaDb {
  port: number;
  /** `mysql://root@127.0.0.1:<port>` (no database; what the launcher's MYSQL_URL takes). */
  url: string;
  /** The URL of a database on this server. */
  urlFor(database: string): string;
  dataDir: string;
  running(): boolean;
  /**
   * Starts it (again) on the same port and data directory; resolves once it accepts connections.
   */
  start(): Promise<void>;
  /** Normal shutdown (SIGTERM: connections closed, InnoDB flushed). */
  stop(): Promise<void>;
  /** SIGKILL; the next start runs InnoDB crash recovery. */
  kill(): Promise<void>;
  /**
   * SIGSTOP to the server's processes: it hangs (connections stay open, nothing answers) until
   * thaw().
   */
  freeze(): void;
  thaw(): void;
  /** stop() if running, then start(). */
  restart(): Promise<void>;
  /** Stops it and removes its data directory. */
  cleanup(): Promise<void>;
}

const run = promisify(execFile);

function binary(...candidates: string[]): string {
  const found = candidates.find((c) => existsSync(c));
  if (!found)
    throw new Error(`MariaDB is not installed here (looked for ${candidates.join(", ")})`);
  return found;
}

export async function startPrivateMariaDb(): Promise<PrivateMariaDb> {
  const installDb = binary("/usr/bin/mariadb-install-db", "/usr/bin/mysql_install_db");
  const server = binary("/usr/sbin/mariadbd", "/usr/sbin/mysqld");
  const dir = mkdtempSync(join(tmpdir(), "private-mariadb-"));
  const dataDir = join(dir, "data");
  // The same settings for the bootstrap and the server; small logs and buffers keep both quick.
  // mariadbd refuses to run as root unless told to; as another user it runs as that user.
  const asRoot = process.getuid?.() === 0 ? ["--user=root"] : [];
  const common = [
    "--no-defaults",
    `--datadir=${dataDir}`,
    ...asRoot,
    "--skip-name-resolve",
    "--innodb-log-file-size=16M",
    "--innodb-buffer-pool-size=64M",
  ];
  await run(installDb, [...common, "--auth-root-authentication-method=normal", "--skip-test-db"], {
    cwd: dir,
  }).catch((err: Error & { stdout?: string; stderr?: string }) => {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`mariadb-install-db failed: ${err.stderr || err.stdout || err.message}`);
  });
  const port = await unusedPort();
  const args = [
    ...common,
    `--port=${port}`,
    "--bind-address=127.0.0.1",
    `--socket=${join(dir, "mysqld.sock")}`,
    `--pid-file=${join(dir, "mysqld.pid")}`,
    "--innodb-flush-log-at-trx-commit=1",
    "--max-connections=300",
  ];
  let running: LaunchedServer | undefined;
  const handle: PrivateMariaDb = {
    port,
    url: `mysql://root@127.0.0.1:${port}`,
    urlFor: (database) => `mysql://root@127.0.0.1:${port}/${encodeURIComponent(database)}`,
    dataDir,
    running: () => running !== undefined,
    async start() {
      if (running) return;
      running = await launchServer({
        name: "private MariaDB",
        command: server,
        args,
        ready: /ready for connections/,
      });
    },
    async stop() {
      await running?.stop("SIGTERM", 30_000);
      running = undefined;
    },
    async kill() {
      await running?.kill();
      running = undefined;
    },
    freeze: () => {
      if (!running) throw new Error("not running");
      running.freeze();
    },
    thaw: () => running?.thaw(),
    async restart() {
      await handle.stop();
      await handle.start();
    },
    async cleanup() {
      await handle.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await handle.start();
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return handle;
}
