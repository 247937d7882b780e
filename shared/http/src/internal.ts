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

/**
 * What the process warms before its first request (pool connections, prepared statements, caches,
 * the JIT of its request paths), run once, after every readiness check has passed together:
 * readiness stays `starting` until it settles. It counts as warmed when it fails or outlasts
 * `timeoutMs`, so a dependency lost during it cannot keep the pod out of its Service.
 * Why: docs/decisions/cold-start-warm-up.md.
 */
export interface WarmUp {
  /** `signal` aborts when the bound passes: start nothing new, finish what is under way. */
  run: (signal: AbortSignal) => Promise<void>;
  /** Bound on the wait (default 10 s). */
  timeoutMs?: number;
  /** Told how it ended: `ok`, `failed` (with the error) or `timed out`. */
  onSettled?: (outcome: WarmUpOutcome) => void;
}

export interface WarmUpOutcome {
  result: "ok" | "failed" | "timed out";
  durationMs: number;
  error?: string;
}

export interface InternalEndpointsOptions {
  readiness: ReadinessCheck[];
  checkTimeoutMs?: number;
  warmUp?: WarmUp;
  /** Optional extra routes on the internal port (metrics): path → handler. */
  extra?: Record<string, RequestListener>;
  /** Set while shutting down, so readiness fails before the listener closes. */
  isDraining?: () => boolean;
  /**
   * Resolves once the process has started (the internal port listens from the first step on):
   * until then /readyz is 503 `starting` without running a check, and the warm-up waits.
   */
  starting?: Promise<void>;
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

/** Runs the warm-up once and resolves when it settles or its bound passes, never rejecting. */
function settleWarmUp(warmUp: WarmUp): Promise<void> {
  const started = performance.now();
  const timeoutMs = warmUp.timeoutMs ?? 10_000;
  let timer: NodeJS.Timeout | undefined;
  const stop = new AbortController();
  const run = warmUp.run(stop.signal).then(
    (): Omit<WarmUpOutcome, "durationMs"> => ({ result: "ok" }),
    (err: unknown) => ({
      result: "failed" as const,
      error: err instanceof Error ? err.message : String(err),
    }),
  );
  const late = new Promise<Omit<WarmUpOutcome, "durationMs">>((resolve) => {
    timer = setTimeout(() => {
      stop.abort(new Error("warm-up timed out"));
      resolve({ result: "timed out" });
    }, timeoutMs);
  });
  return Promise.race([run, late]).then((outcome) => {
    clearTimeout(timer);
    warmUp.onSettled?.({ ...outcome, durationMs: Math.round(performance.now() - started) });
  });
}

/**
 * The internal port (never routed by the ingress): /livez says the process has started and is
 * alive, and never touches a dependency; /readyz is 503 `starting` until every readiness check has passed once and
 * the warm-up (if any) has settled, then 200 until the process drains. Once started, /readyz
 * answers at once with the previous run's results (`ok`, or `degraded` naming the failing
 * dependencies) and starts the next run, so a hung dependency never makes the probe itself time
 * out. With a warm-up the checks run from the start (once `starting` resolves), every second until
 * they pass, rather than at each probe, so the warm-up is under way before the kubelet asks.
 */
export function internalEndpoints(options: InternalEndpointsOptions): RequestListener {
  const timeoutMs = options.checkTimeoutMs ?? 2_000;
  let started = false;
  let warming: Promise<void> | undefined;
  let last: CheckResult[] = [];
  let running: Promise<CheckResult[]> | undefined;
  let retry: NodeJS.Timeout | undefined;
  const passed = () => {
    if (!options.warmUp) return void (started = true);
    warming ??= settleWarmUp(options.warmUp).then(() => void (started = true));
  };
  const runChecks = (): Promise<CheckResult[]> =>
    (running ??= Promise.all(options.readiness.map((c) => runCheck(c, timeoutMs)))
      .then((checks) => {
        last = checks;
        if (!started && checks.every((c) => c.ok)) passed();
        // With a warm-up, checks are retried on their own until they pass, so it starts then
        // rather than at the next probe.
        else if (!started && options.warmUp && !retry)
          retry = setTimeout(() => {
            retry = undefined;
            void runChecks();
          }, 1_000).unref();
        return checks;
      })
      .finally(() => (running = undefined)));
  let booted = options.starting === undefined;
  void options.starting?.then(() => {
    booted = true;
    if (options.warmUp) void runChecks();
  });
  if (booted && options.warmUp) void runChecks();
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
    // Until every start-up step has run, /livez is 503 too: the startup probe (which asks /livez)
    // then bounds start-up, and a process stuck starting is restarted.
    if (path === "/livez")
      return booted ? send(200, { status: "ok" }) : send(503, { status: "starting" });
    if (path === "/readyz") {
      if (options.isDraining?.()) return send(503, { status: "draining", checks: [] });
      if (!booted) return send(503, { status: "starting", checks: [] });
      if (started) {
        void runChecks();
        return send(200, report(last));
      }
      void runChecks().then((checks) =>
        started
          ? send(200, report(checks))
          : send(503, {
              status: "starting",
              ...(warming ? { warm_up: "running" } : {}),
              checks,
            }),
      );
      return;
    }
    const extra = options.extra?.[path];
    if (extra) return extra(req, res);
    send(404, { status: "not found" });
  };
}
