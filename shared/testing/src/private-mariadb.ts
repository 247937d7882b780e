import { execFile } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { startPrivateServer, type PrivateServer } from "./private-server-process.ts";

/**
 * A private MariaDB server (fault tests; see PrivateServer), beside the machine's shared server on
 * 3306. `url` is `mysql://root@127.0.0.1:<port>` (no database; what the launcher's MYSQL_URL
 * takes): `root` logs in from 127.0.0.1 without a password. Every commit is flushed
 * (innodb_flush_log_at_trx_commit=1); stop() is a normal shutdown (SIGTERM: connections closed,
 * InnoDB flushed).
 */
export type PrivateMariaDb = PrivateServer;

const run = promisify(execFile);

function binary(...candidates: string[]): string {
  const found = candidates.find((c) => existsSync(c));
  if (!found)
    throw new Error(`MariaDB is not installed here (looked for ${candidates.join(", ")})`);
  return found;
}

/** The settings of both the bootstrap and the server. */
function commonArgs(dir: string, dataDir: string): string[] {
  // mariadbd refuses to run as root unless told to; as another user it runs as that user.
  const asRoot = process.getuid?.() === 0 ? ["--user=root"] : [];
  return [
    "--no-defaults",
    `--datadir=${dataDir}`,
    // Its own temporary directory: bootstraps running side by side in the shared /tmp have
    // collided on internal temporary table files.
    `--tmpdir=${join(dir, "tmp")}`,
    ...asRoot,
    "--skip-name-resolve",
    // Small logs and buffers keep both quick.
    "--innodb-log-file-size=16M",
    "--innodb-buffer-pool-size=64M",
  ];
}

export async function startPrivateMariaDb(): Promise<PrivateMariaDb> {
  const installDb = binary("/usr/bin/mariadb-install-db", "/usr/bin/mysql_install_db");
  const server = binary("/usr/sbin/mariadbd", "/usr/sbin/mysqld");
  return startPrivateServer({
    name: "private MariaDB",
    async initialize({ dir, dataDir }) {
      mkdirSync(join(dir, "tmp"));
      const args = [
        ...commonArgs(dir, dataDir),
        "--auth-root-authentication-method=normal",
        "--skip-test-db",
      ];
      await run(installDb, args, { cwd: dir }).catch(
        (err: Error & { stdout?: string; stderr?: string }) => {
          throw new Error(`mariadb-install-db failed: ${err.stderr || err.stdout || err.message}`);
        },
      );
    },
    launch: ({ dir, dataDir, port }) => ({
      command: server,
      args: [
        ...commonArgs(dir, dataDir),
        `--port=${port}`,
        "--bind-address=127.0.0.1",
        `--socket=${join(dir, "mysqld.sock")}`,
        `--pid-file=${join(dir, "mysqld.pid")}`,
        "--innodb-flush-log-at-trx-commit=1",
        "--max-connections=300",
      ],
      ready: /ready for connections/,
    }),
    stopSignal: "SIGTERM",
    stopGraceMs: 30_000,
    origin: (port) => `mysql://root@127.0.0.1:${port}`,
  });
}
