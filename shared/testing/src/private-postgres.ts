import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { launchServer, systemUser, type LaunchedServer } from "./private-server-process.ts";
import { unusedPort } from "./tcp-proxy.ts";

/**
 * A private PostgreSQL server (fault tests): its own data directory and port, so a test may stop,
 * kill and restart it without touching the machine's shared server on 5432. fsync and
 * synchronous commit stay on: a "no committed row lost" assertion must mean something.
 */
export interface PrivatePostgres {
  port: number;
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication). */
  url: string;
  /** The URL of another database on this server. */
  urlFor(database: string): string;
  dataDir: string;
  running(): boolean;
  /**
   * Starts it (again) on the same port and data directory; resolves once it accepts connections.
   */
  start(): Promise<void>;
  /** Fast shutdown (SIGINT: clients disconnected, open transactions rolled back, checkpoint). */
  stop(): Promise<void>;
  /** SIGKILL to the server and its backends; the next start runs crash recovery. */
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
  const dir = mkdtempSync(join(tmpdir(), "private-pg-"));
  const dataDir = join(dir, "data");
  if (user) chownSync(dir, user.uid, user.gid);
  // --no-sync only for initdb's own files; the server below runs with fsync on.
  await run(
    join(bin, "initdb"),
    ["-D", dataDir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"],
    {
      cwd: dir,
      ...(user && { uid: user.uid, gid: user.gid }),
    },
  ).catch((err: Error & { stderr?: string }) => {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${err.stderr ?? err.message}`);
  });
  const port = await unusedPort();
  const args = [
    "-D",
    dataDir,
    "-p",
    String(port),
    "-h",
    "127.0.0.1",
    "-k",
    dir,
    "-c",
    "fsync=on",
    "-c",
    "synchronous_commit=on",
    "-c",
    "max_connections=200",
    "-c",
    "shared_buffers=32MB",
  ];
  let server: LaunchedServer | undefined;
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const handle: PrivatePostgres = {
    port,
    url,
    urlFor: (database) => `postgres://postgres@127.0.0.1:${port}/${encodeURIComponent(database)}`,
    dataDir,
    running: () => server !== undefined,
    async start() {
      if (server) return;
      server = await launchServer({
        name: "private PostgreSQL",
        command: join(bin, "postgres"),
        args,
        ready: /database system is ready to accept connections/,
        ...user,
      });
    },
    async stop() {
      await server?.stop("SIGINT", 20_000);
      server = undefined;
    },
    async kill() {
      await server?.kill();
      server = undefined;
    },
    freeze: () => {
      if (!server) throw new Error("not running");
      server.freeze();
    },
    thaw: () => server?.thaw(),
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
