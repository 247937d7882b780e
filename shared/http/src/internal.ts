import type { RequestListener } from "node:http";

/**
 * A dependency the pod needs before it can serve: readiness waits until every check has passed
 * once. Afterwards a failing check is only reported, because the dependency is shared by every
 * replica: taking the pods out of the Service cannot fix it and would turn the API's own 503
 * envelope into connection errors at the ingress.
 */
export interface ReadinessCheck {
  name: string;
  /** Resolves when the dependency answers; rejects (or times out) when it does not. */
  check: () => Promise<void>;
}

export interface InternalEndpointsOptions {
  readiness: ReadinessCheck[];
  checkTimeoutMs?: number;
  /** Optional extra routes on the internal port (metrics): path → handler. */
  extra?: Record<string, RequestListener>;
  /** Set while shutting down, so readiness fails before the listener closes. */
  isDraining?: () => boolean;
}

async function runCheck(
  check: ReadinessCheck,
  timeoutMs: number,
): Promise<{ name: string; ok: boolean; error?: string }> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check.check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return { name: check.name, ok: true };
  } catch (err) {
    return { name: check.name, ok: false, error: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}

type CheckResult = Awaited<ReturnType<typeof runCheck>>;

/**
 * The internal port (never routed by the ingress): /livez says the process is alive and never
 * touches a dependency; /readyz is 503 `starting` until every readiness check has passed once,
 * then 200 until the process drains. Once started, /readyz answers at once with the previous run's
 * results (`ok`, or `degraded` naming the failing dependencies) and starts the next run, so a hung
 * dependency never makes the probe itself time out.
 */
export function internalEndpoints(options: InternalEndpointsOptions): RequestListener {
  const timeoutMs = options.checkTimeoutMs ?? 2_000;
  let started = false;
  let last: CheckResult[] = [];
  let running: Promise<CheckResult[]> | undefined;
  const runChecks = (): Promise<CheckResult[]> =>
    (running ??= Promise.all(options.readiness.map((c) => runCheck(c, timeoutMs)))
      .then((checks) => {
        last = checks;
        started ||= checks.every((c) => c.ok);
        return checks;
      })
      .finally(() => (running = undefined)));
  const report = (checks: CheckResult[]) => ({
    status: checks.every((c) => c.ok) ? "ok" : "degraded",
    checks,
  });
  return (req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "Content-Type": "application/json", "Cache-Control": "no-store" });
      res.end(JSON.stringify(body));
    };
    if (path === "/livez") return send(200, { status: "ok" });
    if (path === "/readyz") {
      if (options.isDraining?.()) return send(503, { status: "draining", checks: [] });
      if (started) {
        void runChecks();
        return send(200, report(last));
      }
      void runChecks().then((checks) =>
        started ? send(200, report(checks)) : send(503, { status: "starting", checks }),
      );
      return;
    }
    const extra = options.extra?.[path];
    if (extra) return extra(req, res);
    send(404, { status: "not found" });
  };
}
