import { execFile } from "node:child_process";
import { chownSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { startPrivateServer, systemUser, type PrivateServer } from "./private-server-process.ts";

/**
 * A private PostgreSQL server (fault tests; see PrivateServer), beside the machine's shared server
 * on 5432. `url` is `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication). fsync
 * and synchronous commit stay on: a "no committed row lost" assertion must mean something. stop()
 * is a fast shutdown (SIGINT: clients disconnected, open transactions rolled back, checkpoint).
 */
export type PrivatePostgres = PrivateServer;

const run = promisify(execFile);

/** The newest installed PostgreSQL's binaries (Debian layout: /usr/lib/postgresql/<major>/bin). */
function binDir(): string {
  const root = "/usr/lib/postgresql";
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((d) => existsSync(join(root, d, "bin/postgres")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (majors.length === 0) throw new Error(`no PostgreSQL server binaries under ${root}`);
  return join(root, majors[0]!, "bin");
}

/** PostgreSQL refuses to run as root: when we are root, it runs as the `postgres` OS user. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const user = systemUser(readFileSync("/etc/passwd", "utf8"), "postgres");
  if (!user)
    throw new Error("running as root, but there is no `postgres` OS user to run PostgreSQL as");
  return user;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  const user = serverUser();
  return startPrivateServer({
    name: "private PostgreSQL",
    async initialize({ dir, dataDir }) {
      if (user) chownSync(dir, user.uid, user.gid);
      // --no-sync only for initdb's own files; the server below runs with fsync on.
      await run(
        join(bin, "initdb"),
        ["-D", dataDir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"],
        { cwd: dir, ...(user && { uid: user.uid, gid: user.gid }) },
      ).catch((err: Error & { stderr?: string }) => {
        throw new Error(`initdb failed: ${err.stderr ?? err.message}`);
      });
    },
    launch: ({ dir, dataDir, port }) => ({
      command: join(bin, "postgres"),
      args: [
        ...["-D", dataDir, "-p", String(port), "-h", "127.0.0.1", "-k", dir],
        ...["-c", "fsync=on", "-c", "synchronous_commit=on"],
        ...["-c", "max_connections=200", "-c", "shared_buffers=32MB"],
      ],
      ready: /database system is ready to accept connections/,
      ...user,
    }),
    stopSignal: "SIGINT",
    stopGraceMs: 20_000,
    origin: (port) => `postgres://postgres@127.0.0.1:${port}`,
    defaultDatabase: "postgres",
  });
}
