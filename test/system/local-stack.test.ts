import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { fetchJson, spawnServiceProcess, unusedPort, type ServiceProcess } from "@svc/testing";
import { reachableOffset, stackPorts } from "../../tools/stack.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));

function launch(env: Record<string, string>): ServiceProcess {
  return spawnServiceProcess(
    "tools/start.ts",
    { ...(process.env as Record<string, string>), RAW_LOGS: "true", ...env },
    { cwd: root },
  );
}

describe("npm start (tools/start.ts)", () => {
  it("exits naming an unreachable dependency, its address and how to start it", async () => {
    const port = await unusedPort();
    const { output, exited } = launch({
      PG_URL: `postgres://postgres@127.0.0.1:${port}/integration`,
    });
    expect(await exited()).toBe(1);
    expect(output()).toContain(`PostgreSQL is not reachable at 127.0.0.1:${port}`);
    expect(output()).toContain("pg_ctlcluster");
    expect(output()).not.toContain("MySQL/MariaDB is not reachable");
  });

  it('refuses a port offset that puts a process on a port fetch refuses (10080, a Fetch "bad port")', async () => {
    expect(reachableOffset(0)).toBe(true);
    expect(reachableOffset(2_000)).toBe(false);
    expect(stackPorts(2_000)).toContain(10_080);
    const { output, exited } = launch({ STACK_PORT_OFFSET: "2000" });
    expect(await exited()).not.toBe(0);
    expect(output()).toContain(
      "STACK_PORT_OFFSET=2000 puts a process on a port fetch and browsers refuse",
    );
    const refused = await fetch("http://127.0.0.1:10080/").then(
      () => "connected",
      (err: Error & { cause?: Error }) => err.cause?.message,
    );
    expect(refused).toBe("bad port");
  });

  describe("the whole system", () => {
    const offset = 20_000;
    let stack: ReturnType<typeof launch> | undefined;
    // SIGTERM, so the launcher stops its processes too (a SIGKILL would leave them running and
    // holding the ports); SIGKILL only if it has not exited after 30 s.
    afterAll(async () => {
      if (!stack) return;
      const stopped = stack.terminate();
      const late = await Promise.race([
        stopped.then(() => false),
        new Promise<boolean>((r) => setTimeout(() => r(true), 30_000).unref()),
      ]);
      if (late) await stack.kill();
    }, 45_000);

    it(
      "brings every process up behind the gateway and stops them gracefully",
      { timeout: 120_000 },
      async () => {
        stack = launch({ STACK_PORT_OFFSET: String(offset) });
        const base = `http://127.0.0.1:${8080 + offset}`;
        const deadline = Date.now() + 90_000;
        while (
          !stack.output().includes("Integration service is up") &&
          Date.now() < deadline &&
          stack.child.exitCode === null
        ) {
          await new Promise((r) => setTimeout(r, 250));
        }
        expect(stack.output()).toContain(
          `Integration service is up: http://localhost:${8080 + offset}`,
        );
        expect((await fetchJson(`${base}/v1/health`)).body).toMatchObject({ status: "ok" });
        for (const internal of [9481, 9482, 9483, 9484, 9485, 9486]) {
          expect((await fetchJson(`http://127.0.0.1:${internal + offset}/livez`)).status).toBe(200);
        }
        // A known workload through the gateway shows up on the service's metrics endpoint.
        for (let i = 0; i < 3; i += 1)
          expect((await fetchJson(`${base}/v1/vacancies`)).status).toBe(401);
        const metrics = await (await fetch(`http://127.0.0.1:${9483 + offset}/metrics`)).text();
        const line = metrics
          .split("\n")
          .find(
            (l) =>
              l.startsWith("http_server_request_duration_count") &&
              l.includes('http_route="/v1/vacancies"') &&
              l.includes('http_response_status_code="401"'),
          );
        expect(line).toMatch(/ 3$/);
        expect(await stack.terminate()).toBe(0);
        expect(stack.output()).toContain("shutdown complete");
      },
    );
  });
});
