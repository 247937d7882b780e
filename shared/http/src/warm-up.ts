import { Agent, request } from "node:http";

export interface WarmUpRequestsOptions {
  /** The process's own API, e.g. http://127.0.0.1:8083. */
  origin: string;
  /** Sent with every request (the warm-up credential, @svc/auth's warmUpAccess). */
  authorization: string;
  /** Asked in turn, round robin: functions give a new path each time (a random page). */
  paths: ReadonlyArray<string | (() => string)>;
  /** Requests in all. */
  requests: number;
  /** Requests at once: the legacy pool's size spreads them over every connection. */
  concurrency: number;
  /** Once aborted no new request starts; those under way finish. */
  signal?: AbortSignal;
}

/** GETs `path` from the API and returns its JSON body; anything but 2xx rejects. */
export function getJson(
  origin: string,
  path: string,
  authorization: string,
  agent?: Agent,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, origin),
      { headers: { authorization, accept: "application/json" }, ...(agent ? { agent } : {}) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", reject);
        res.on("end", () => {
          const status = res.statusCode ?? 0;
          if (status < 200 || status > 299)
            return reject(new Error(`warm-up GET ${path.split("?")[0]} answered ${status}`));
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
          } catch (err) {
            reject(err instanceof Error ? err : new Error(String(err)));
          }
        });
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/**
 * The start-up warm-up's requests through the process's own API over loopback, so V8 has compiled
 * the request path, the pools have their connections and the caches their first entries before
 * the first client arrives. Stops at the first failure (the caller counts it as warmed).
 * Why: docs/decisions/cold-start-warm-up.md.
 */
export async function warmUpRequests(options: WarmUpRequestsOptions): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && !options.signal?.aborted && next < options.requests) {
      const entry = options.paths[next++ % options.paths.length];
      const path = typeof entry === "function" ? entry() : (entry ?? "/");
      await getJson(options.origin, path, options.authorization, agent).catch((err: unknown) => {
        failed = true;
        throw err;
      });
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency }, worker));
  } finally {
    agent.destroy();
  }
}

export interface ReadApiWarmUpOptions {
  /** Opened at once before the reads (the pools' connections); a failure fails the warm-up. */
  connect: ReadonlyArray<() => Promise<unknown>>;
  /**
   * auth's signing keys, fetched now rather than by the first request; best effort (jose fetches
   * them again when a request needs them), so auth being away does not fail the warm-up.
   */
  keys?: { reload(): Promise<void> };
  /** The warm-up credential (@svc/auth's warmUpAccess), ended when the warm-up ends. */
  access: { authorization: string; end(): void };
  /** Reads at once: the pool's size. */
  concurrency: number;
  /** Reads in all (default 300). */
  requests?: number;
  /** The collection's path, e.g. /v1/vacancies: its pages of 100 and single items are read. */
  collection: string;
  /** An item's id in the collection's list. */
  idOf: (item: Record<string, unknown>) => string;
  /** Also read in turn: a filtered list, the metadata. */
  extra: string[];
}

/** What a service's read warm-up needs from its composition root (the rest it names itself). */
export type ReadApiWarmUpDeps = Omit<ReadApiWarmUpOptions, "collection" | "idOf" | "extra">;

interface ListBody {
  data: Array<Record<string, unknown>>;
  meta: { pagination: { total_pages: number } };
}

/**
 * A read API's start-up warm-up: every pool connection and auth's keys, then `requests` reads
 * through the API over loopback, `concurrency` at once, so each connection prepares the statements:
 * list pages near the start and deep in the collection, single items, and the `extra` reads.
 * Why: docs/decisions/cold-start-warm-up.md.
 */
export function readApiWarmUp(
  options: ReadApiWarmUpOptions,
): (api: { origin: string; signal?: AbortSignal }) => Promise<void> {
  return async ({ origin, signal }) => {
    try {
      const [, ...connections] = await Promise.allSettled([
        options.keys?.reload(),
        ...options.connect.map((open) => open()),
      ]);
      for (const c of connections) if (c.status === "rejected") throw c.reason;
      const auth = options.access.authorization;
      const list = `${options.collection}?per_page=100`;
      const first = (await getJson(origin, list, auth)) as ListBody;
      const pages = Math.max(1, first.meta.pagination.total_pages);
      const ids = first.data.map(options.idOf);
      const deep = () => `${list}&page=${1 + Math.floor(Math.random() * pages)}`;
      const single = () =>
        `${options.collection}/${encodeURIComponent(ids[Math.floor(Math.random() * ids.length)] ?? "")}`;
      await warmUpRequests({
        origin,
        authorization: auth,
        concurrency: options.concurrency,
        requests: options.requests ?? 300,
        ...(signal ? { signal } : {}),
        paths: [deep, list, ...(ids.length > 0 ? [single, single] : []), deep, ...options.extra],
      });
    } finally {
      options.access.end();
    }
  };
}
