import type { RequestListener } from "node:http";

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

/**
 * The internal port (never routed by the ingress): /livez says the process is alive and never
 * touches a dependency; /readyz reports each dependency for Kubernetes readiness.
 */
export function internalEndpoints(options: InternalEndpointsOptions): RequestListener {
  const timeoutMs = options.checkTimeoutMs ?? 2_000;
  return (req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "Content-Type": "application/json", "Cache-Control": "no-store" });
      res.end(JSON.stringify(body));
    };
    if (path === "/livez") return send(200, { status: "ok" });
    if (path === "/readyz") {
      if (options.isDraining?.()) return send(503, { status: "draining", checks: [] });
      void Promise.all(options.readiness.map((c) => runCheck(c, timeoutMs))).then((checks) => {
        const ok = checks.every((c) => c.ok);
        send(ok ? 200 : 503, { status: ok ? "ok" : "unavailable", checks });
      });
      return;
    }
    const extra = options.extra?.[path];
    if (extra) return extra(req, res);
    send(404, { status: "not found" });
  };
}
