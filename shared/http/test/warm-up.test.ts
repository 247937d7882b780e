import { request } from "node:http";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger, waitFor } from "@svc/testing";
import {
  DEFAULT_HTTP_LIMITS,
  getJson,
  internalEndpoints,
  listen,
  serve,
  Shutdown,
  warmUpRequests,
  type RunningServer,
  type WarmUpOutcome,
} from "../src/index.ts";

interface Answer {
  status: number;
  body: { status?: string; warm_up?: string; checks?: Array<{ name: string; ok: boolean }> };
}

function get(port: number, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    request({ host: "127.0.0.1", port, path, agent: false }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) }));
    })
      .on("error", reject)
      .end();
  });
}

const servers: RunningServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close(1_000);
});

/** /readyz on a real loopback listener, with one check whose answer the test decides. */
async function probes(warmUp: {
  run: () => Promise<void>;
  timeoutMs?: number;
  dependencyUp?: () => boolean;
}) {
  const outcomes: WarmUpOutcome[] = [];
  const server = await listen(
    internalEndpoints({
      readiness: [
        {
          name: "legacy-database",
          check: async () => {
            if (warmUp.dependencyUp && !warmUp.dependencyUp()) throw new Error("ECONNREFUSED");
          },
        },
      ],
      warmUp: {
        run: warmUp.run,
        ...(warmUp.timeoutMs === undefined ? {} : { timeoutMs: warmUp.timeoutMs }),
        onSettled: (outcome) => outcomes.push(outcome),
      },
    }),
    0,
    "127.0.0.1",
  );
  servers.push(server);
  const readyz = () => get(server.port, "/readyz");
  return { readyz, outcomes, ready: async () => (await readyz()).status === 200 };
}

describe("readiness waits for the start-up warm-up", () => {
  it("stays 503 starting while the warm-up runs, and turns 200 once it is done", async () => {
    let finish: () => void = () => undefined;
    let runs = 0;
    const pod = await probes({
      run: () => {
        runs++;
        return new Promise<void>((resolve) => (finish = resolve));
      },
    });
    await waitFor("the warm-up to start", () => runs === 1);
    for (let i = 0; i < 3; i++) {
      const answer = await pod.readyz();
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ status: "starting", warm_up: "running" });
      expect(answer.body.checks).toEqual([{ name: "legacy-database", ok: true }]);
    }
    finish();
    await waitFor("readiness", pod.ready, 30_000);
    expect((await pod.readyz()).body.status).toBe("ok");
    expect(runs).toBe(1);
    expect(pod.outcomes.map((o) => o.result)).toEqual(["ok"]);
  });

  it("is bounded: a warm-up that never ends counts as warmed after its timeout", async () => {
    const pod = await probes({ run: () => new Promise<void>(() => undefined), timeoutMs: 2_000 });
    expect((await pod.readyz()).status).toBe(503);
    await waitFor("readiness", pod.ready, 30_000);
    expect(pod.outcomes).toMatchObject([{ result: "timed out" }]);
    expect(pod.outcomes[0]?.durationMs).toBeGreaterThanOrEqual(2_000);
  });

  it("counts a failed warm-up as warmed and reports its error", async () => {
    const pod = await probes({ run: () => Promise.reject(new Error("answered 503")) });
    await waitFor("readiness", pod.ready, 30_000);
    expect(pod.outcomes).toMatchObject([{ result: "failed", error: "answered 503" }]);
  });

  it("starts the warm-up only once the dependency answers, and never keeps a pod unready after", async () => {
    let up = false;
    let runs = 0;
    const pod = await probes({
      run: async () => void runs++,
      dependencyUp: () => up,
    });
    for (let i = 0; i < 3; i++) {
      const answer = await pod.readyz();
      expect(answer.status).toBe(503);
      expect(answer.body.status).toBe("starting");
      expect(answer.body.warm_up).toBeUndefined();
    }
    expect(runs).toBe(0);
    up = true;
    await waitFor("readiness", pod.ready, 30_000);
    expect(runs).toBe(1);
    // A later outage is reported, not acted on, and does not warm again.
    up = false;
    await pod.readyz();
    await waitFor("the outage in the report", async () => {
      const answer = await pod.readyz();
      return answer.status === 200 && answer.body.status === "degraded";
    });
    expect(runs).toBe(1);
  });

  it("starts the warm-up as soon as the checks pass, without waiting for a probe", async () => {
    let up = false;
    let runs = 0;
    const pod = await probes({ run: async () => void runs++, dependencyUp: () => up });
    await new Promise((r) => setTimeout(r, 100));
    expect(runs).toBe(0);
    up = true;
    await waitFor("the warm-up, with no probe asking", () => runs === 1, 30_000);
    expect((await pod.readyz()).status).toBe(200);
  });
});

describe("serve() with a warm-up", () => {
  it("hands the warm-up the API's loopback origin, and is ready only after it has used it", async () => {
    const app = express();
    let served = 0;
    app.get("/v1/things", (_req, res) => {
      served++;
      res.json({ data: [] });
    });
    let settled = 0;
    let seenBeforeReady = 0;
    const shutdown = new Shutdown(silentLogger());
    const serving = await serve({
      logger: silentLogger(),
      shutdown,
      app,
      port: 0,
      internalPort: 0,
      limits: DEFAULT_HTTP_LIMITS,
      readiness: [],
      warmUp: {
        run: async ({ origin }) => {
          for (let i = 0; i < 5; i++) await getJson(origin, "/v1/things", "Bearer x");
          seenBeforeReady = served;
        },
        timeoutMs: 30_000,
        onSettled: () => settled++,
      },
    });
    try {
      const internal = serving.internal.port;
      await waitFor(
        "readiness",
        async () => (await get(internal, "/readyz")).status === 200,
        30_000,
      );
      expect(seenBeforeReady).toBe(5);
      expect(settled).toBe(1);
    } finally {
      await shutdown.run("test");
    }
  });

  it("at its bound is ready, starts no new request, and ends (the credential) once the one under way answers", async () => {
    const app = express();
    let served = 0;
    app.get("/v1/slow", (_req, res) => {
      setTimeout(() => {
        served++;
        res.json({});
      }, 200);
    });
    let settled = 0;
    const shutdown = new Shutdown(silentLogger());
    const serving = await serve({
      logger: silentLogger(),
      shutdown,
      app,
      port: 0,
      internalPort: 0,
      limits: DEFAULT_HTTP_LIMITS,
      readiness: [],
      warmUp: {
        run: ({ origin, signal }) =>
          warmUpRequests({
            origin,
            authorization: "Bearer x",
            paths: ["/v1/slow"],
            requests: 1_000,
            concurrency: 1,
            signal,
          }),
        timeoutMs: 1_000,
        onSettled: () => settled++,
      },
    });
    try {
      await waitFor(
        "readiness at the bound",
        async () => (await get(serving.internal.port, "/readyz")).status === 200,
        30_000,
      );
      await waitFor("the run to end", () => settled === 1, 5_000);
      const atEnd = served;
      expect(atEnd).toBeLessThan(1_000);
      await new Promise((r) => setTimeout(r, 600));
      expect(served).toBe(atEnd);
      expect(settled).toBe(1);
    } finally {
      await shutdown.run("test");
    }
  });

  it("skips the warm-up when its bound is 0 and is ready as soon as the checks pass", async () => {
    let runs = 0;
    let settled = 0;
    const shutdown = new Shutdown(silentLogger());
    const serving = await serve({
      logger: silentLogger(),
      shutdown,
      app: express(),
      port: 0,
      internalPort: 0,
      limits: DEFAULT_HTTP_LIMITS,
      readiness: [],
      warmUp: { run: async () => void runs++, timeoutMs: 0, onSettled: () => settled++ },
    });
    try {
      expect((await get(serving.internal.port, "/readyz")).status).toBe(200);
      expect(runs).toBe(0);
      expect(settled).toBe(1);
    } finally {
      await shutdown.run("test");
    }
  });
});
