/**
 * Steady read load through the gateway while faults happen: every request's target, status,
 * error code and latency is recorded, so a phase can ask "what did clients see between t0 and t1".
 */

/** One request as a client saw it. */
export interface Sample {
  target: string;
  start: number;
  end: number;
  /** HTTP status, or 0 when no answer came (connection refused or reset, client timeout). */
  status: number;
  /**
   * `error.code` of an error envelope (`error` of an OAuth error), or the transport error's code.
   */
  code: string | null;
  /** The gateway's X-Request-Id: finds the request in the processes' logs (FAULT_SUITE_LOG). */
  requestId?: string;
}

/** A client gives up after this long; anything near it is a hang. */
export const CLIENT_TIMEOUT_MS = 20_000;

export interface Answer<T = unknown> {
  status: number;
  body: T | undefined;
  code: string | null;
  headers: Headers | undefined;
}

export class Recorder {
  readonly samples: Sample[] = [];

  /** One request through fetch, recorded under `target`; never throws. */
  async request<T = unknown>(
    target: string,
    url: string,
    init: RequestInit = {},
  ): Promise<Answer<T>> {
    const start = Date.now();
    let answer: Answer<T>;
    try {
      const res = await fetch(url, { ...init, signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
      const text = await res.text();
      let body: T | undefined;
      try {
        body = text ? (JSON.parse(text) as T) : undefined;
      } catch {
        body = undefined;
      }
      // The contract's envelope has error.code; /oauth/token answers RFC 6749's
      // { error: "<code>" }.
      const error = (body as { error?: unknown } | undefined)?.error;
      const code =
        typeof error === "string" ? error : (error as { code?: unknown } | undefined)?.code;
      answer = {
        status: res.status,
        body,
        code: typeof code === "string" ? code : null,
        headers: res.headers,
      };
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      answer = { status: 0, body: undefined, code: e.cause?.code ?? e.name, headers: undefined };
    }
    const requestId = answer.headers?.get("x-request-id") ?? undefined;
    this.samples.push({
      target,
      start,
      end: Date.now(),
      status: answer.status,
      code: answer.code,
      ...(requestId && { requestId }),
    });
    return answer;
  }

  /** Samples of `target` whose request started within [from, to). */
  between(target: string, from: number, to: number): Sample[] {
    return this.samples.filter((s) => s.target === target && s.start >= from && s.start < to);
  }

  /** "status code" counts, for failure messages and the report. */
  static tally(samples: Sample[]): Record<string, number> {
    const out: Record<string, number> = {};
    for (const s of samples)
      out[`${s.status}${s.code ? ` ${s.code}` : ""}`] =
        (out[`${s.status}${s.code ? ` ${s.code}` : ""}`] ?? 0) + 1;
    return out;
  }
}

export interface ReadTarget {
  name: string;
  /** The service behind it (what a SIGKILL of that process takes away). */
  service: string;
  /** Which backing services it needs: an outage of one of them must answer 503. */
  needs: ReadonlyArray<"mysql" | "pg" | "nats">;
  send(recorder: Recorder): Promise<Answer>;
}

/** The reads the load loops cycle through, with a demo-client token. */
export function readTargets(
  baseUrl: string,
  token: () => string,
  demo: { clientId: string; clientSecret: string },
): ReadTarget[] {
  const get = (name: string, path: string) => (r: Recorder) =>
    r.request(name, `${baseUrl}${path}`, {
      headers: { authorization: `Bearer ${token()}`, accept: "application/json" },
    });
  const basic = Buffer.from(
    `${encodeURIComponent(demo.clientId)}:${encodeURIComponent(demo.clientSecret)}`,
  ).toString("base64");
  return [
    {
      name: "vacancies",
      service: "vacancies",
      needs: ["mysql"],
      send: get("vacancies", "/v1/vacancies?per_page=5"),
    },
    {
      name: "practices",
      service: "practices",
      needs: ["mysql"],
      send: get("practices", "/v1/practices?per_page=5"),
    },
    {
      name: "applications",
      service: "identity",
      needs: ["pg"],
      send: get("applications", "/v1/applications?per_page=5"),
    },
    { name: "webhooks", service: "webhooks", needs: ["pg"], send: get("webhooks", "/v1/webhooks") },
    {
      name: "token",
      service: "auth",
      needs: ["pg"],
      send: (r) =>
        r.request("token", `${baseUrl}/oauth/token`, {
          method: "POST",
          headers: {
            authorization: `Basic ${basic}`,
            "content-type": "application/x-www-form-urlencoded",
          },
          body: "grant_type=client_credentials",
        }),
    },
  ];
}

/**
 * `perTarget` loops for each target, each asking again `pauseMs` after its last answer: a target
 * whose requests hang does not starve the others of samples.
 */
export function startReadLoops(
  recorder: Recorder,
  targets: ReadonlyArray<ReadTarget>,
  perTarget: number,
  pauseMs: number,
): { stop(): Promise<void> } {
  let running = true;
  const loops = targets.flatMap((target) =>
    Array.from({ length: perTarget }, async () => {
      while (running) {
        await target.send(recorder);
        await new Promise((r) => setTimeout(r, pauseMs));
      }
    }),
  );
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}
