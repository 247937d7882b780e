// An in-test fake of the few Kubernetes API endpoints the @svc/k8s machinery, the Lease elector
// (@svc/leader) and the webhooks operator use, served over real HTTP on loopback so the real
// @kubernetes/client-node requests (paths, bodies, errors, watch streams) are exercised. A fake,
// because no kube-apiserver (or envtest binary) can run on these machines (shared/k8s/README.md,
// "Tests").
import http from "node:http";
import type { AddressInfo } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";
import { ApiError, FakeStore } from "./fake-kube-store.ts";
import type { Change, Obj, ResourceConfig } from "./fake-kube-store.ts";

export type Fault = {
  method?: string;
  /** Matched against the path (no query). */
  path: RegExp;
  /** Only watch requests (true) or only non-watch requests (false). */
  watch?: boolean;
  /** Answer with this status (a Kubernetes Status body). */
  status?: number;
  /** Wait this long first (then answer normally unless `status` is set). */
  delayMs?: number;
  /**
   * Apply the request at once but answer only after this long (a write that lands, then times out).
   */
  respondAfterMs?: number;
  /** Never answer (the client must time out). */
  hang?: boolean;
  /** How many requests it affects; default unlimited. */
  times?: number;
};

export type RecordedRequest = {
  method: string;
  path: string;
  query: Record<string, string>;
  status: number;
  resource?: string;
  name?: string;
  subresource?: string;
};

type Route = { resource: string; namespace: string; name?: string; subresource?: string };
type Watcher = {
  resource: string;
  namespace: string;
  res: http.ServerResponse;
  matches: (obj: Obj) => boolean;
};

const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;

/** Go's metav1.MicroTime accepts only RFC3339Micro (exactly six fractional digits). */
function validateLease(obj: Obj): string | undefined {
  for (const field of ["acquireTime", "renewTime"]) {
    const value = obj.spec?.[field];
    if (value !== undefined && (typeof value !== "string" || !MICRO_TIME.test(value))) {
      return `Lease in version "v1" cannot be handled as a Lease: parsing time ${JSON.stringify(value)} as "2006-01-02T15:04:05.000000Z07:00": cannot parse`;
    }
  }
  return undefined;
}

export class FakeKubeApi {
  readonly store = new FakeStore();
  readonly requests: RecordedRequest[] = [];
  readonly #server: http.Server;
  readonly #faults: Fault[] = [];
  readonly #watchers = new Set<Watcher>();

  private constructor(resources: readonly ResourceConfig[]) {
    this.store.register({
      id: "coordination.k8s.io/v1/leases",
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      validate: validateLease,
    });
    this.store.register({ id: "v1/secrets", apiVersion: "v1", kind: "Secret" });
    this.store.register({ id: "v1/events", apiVersion: "v1", kind: "Event" });
    for (const resource of resources) this.store.register(resource);
    this.store.onChange = (change) => this.#broadcast(change);
    this.#server = http.createServer((req, res) => void this.#handle(req, res));
  }

  /** Serves Leases, Secrets and Events, plus the custom `resources` a test names. */
  static async start(
    options: { resources?: readonly ResourceConfig[] } = {},
  ): Promise<FakeKubeApi> {
    const api = new FakeKubeApi(options.resources ?? []);
    await new Promise<void>((resolve) => api.#server.listen(0, "127.0.0.1", resolve));
    return api;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** A real KubeConfig pointed at this server (plain HTTP needs skipTLSVerify in the library). */
  kubeConfig(): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: "fake", server: this.url, skipTLSVerify: true }],
      users: [{ name: "dispatcher", token: "test-token" }],
      contexts: [{ name: "fake", cluster: "fake", user: "dispatcher", namespace: "integration" }],
      currentContext: "fake",
    });
    return kc;
  }

  /** Adds a fault; returns a function that removes it. */
  fault(fault: Fault): () => void {
    this.#faults.push(fault);
    return () => {
      const i = this.#faults.indexOf(fault);
      if (i >= 0) this.#faults.splice(i, 1);
    };
  }

  /** Ends every open watch stream, as a restarting API server or a load balancer would. */
  dropWatches(): void {
    for (const w of this.#watchers) w.res.destroy();
    this.#watchers.clear();
  }

  get openWatches(): number {
    return this.#watchers.size;
  }

  async close(): Promise<void> {
    this.dropWatches();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://fake");
    const query = Object.fromEntries(url.searchParams);
    const method = req.method ?? "GET";
    const watch = query.watch === "true";
    const body = await readBody(req);
    const route = parseRoute(url.pathname);
    const record: RecordedRequest = {
      method,
      path: url.pathname,
      query,
      status: 0,
      ...(route && { resource: route.resource }),
      ...(route?.name && { name: route.name }),
      ...(route?.subresource && { subresource: route.subresource }),
    };
    this.requests.push(record);
    const fault = this.#takeFault(method, url.pathname, watch);
    if (fault?.hang) return;
    if (fault?.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
    if (fault?.status)
      return this.#fail(
        res,
        record,
        new ApiError(fault.status, "InjectedFault", `injected ${fault.status}`),
      );
    if (!route)
      return this.#fail(
        res,
        record,
        new ApiError(404, "NotFound", "the server could not find the requested resource"),
      );
    try {
      const matches = selectorOf(query);
      if (watch && method === "GET" && !route.name)
        return this.#watch(
          res,
          record,
          route,
          query.resourceVersion ?? "",
          Number(query.timeoutSeconds ?? 0),
          matches,
        );
      const result = this.#dispatch(method, route, body, matches);
      record.status = method === "POST" ? 201 : 200;
      if (fault?.respondAfterMs) await new Promise((r) => setTimeout(r, fault.respondAfterMs));
      res.writeHead(record.status, { "content-type": "application/json" });
      res.end(JSON.stringify(result));
    } catch (err) {
      this.#fail(
        res,
        record,
        err instanceof ApiError ? err : new ApiError(500, "InternalError", String(err)),
      );
    }
  }

  #dispatch(method: string, route: Route, body: Obj, matches: (obj: Obj) => boolean): unknown {
    const { resource, namespace, name, subresource } = route;
    if (method === "GET" && !name) {
      const config = this.store.resources.get(resource);
      return {
        apiVersion: config?.apiVersion,
        kind: `${config?.kind}List`,
        metadata: { resourceVersion: String(this.store.currentRv) },
        items: this.store.list(resource, namespace).filter(matches),
      };
    }
    if (method === "GET" && name) return this.store.get(resource, namespace, name);
    if (method === "POST" && !name) return this.store.create(resource, namespace, body);
    if (method === "PUT" && name)
      return this.store.update(
        resource,
        namespace,
        name,
        body,
        subresource === "status" ? "status" : undefined,
      );
    if (method === "DELETE" && name) return this.store.delete(resource, namespace, name);
    throw new ApiError(405, "MethodNotAllowed", `${method} is not supported by the fake`);
  }

  #watch(
    res: http.ServerResponse,
    record: RecordedRequest,
    route: Route,
    fromRv: string,
    timeoutSeconds: number,
    matches: (obj: Obj) => boolean,
  ): void {
    record.status = 200;
    res.writeHead(200, { "content-type": "application/json" });
    res.flushHeaders();
    const since = Number(fromRv || this.store.currentRv);
    if (since < this.store.compactedBelow) {
      // The real server answers 200 and then one ERROR event carrying a 410 Status.
      res.end(
        `${JSON.stringify({ type: "ERROR", object: statusBody(new ApiError(410, "Expired", `too old resource version: ${since} (${this.store.compactedBelow})`)) })}\n`,
      );
      return;
    }
    for (const change of this.store.history) {
      if (
        change.rv > since &&
        change.resource === route.resource &&
        change.namespace === route.namespace &&
        matches(change.object)
      )
        res.write(eventLine(change));
    }
    const watcher: Watcher = {
      resource: route.resource,
      namespace: route.namespace,
      res,
      matches,
    };
    this.#watchers.add(watcher);
    const timer =
      timeoutSeconds > 0 ? setTimeout(() => res.end(), timeoutSeconds * 1000) : undefined;
    res.on("close", () => {
      clearTimeout(timer);
      this.#watchers.delete(watcher);
    });
  }

  #broadcast(change: Change): void {
    for (const w of this.#watchers) {
      if (
        w.resource === change.resource &&
        w.namespace === change.namespace &&
        w.matches(change.object)
      )
        w.res.write(eventLine(change));
    }
  }

  #takeFault(method: string, path: string, watch: boolean): Fault | undefined {
    const fault = this.#faults.find(
      (f) =>
        (f.method === undefined || f.method === method) &&
        f.path.test(path) &&
        (f.watch === undefined || f.watch === watch),
    );
    if (!fault) return undefined;
    if (fault.times !== undefined && --fault.times <= 0)
      this.#faults.splice(this.#faults.indexOf(fault), 1);
    return fault;
  }

  #fail(res: http.ServerResponse, record: RecordedRequest, err: ApiError): void {
    record.status = err.code;
    res.writeHead(err.code, { "content-type": "application/json" });
    res.end(JSON.stringify(statusBody(err)));
  }
}

/**
 * The list/watch filter of `labelSelector` (`k=v`, `k==v`, `k!=v`, `k`, `!k`, comma-separated) and
 * `fieldSelector` (`metadata.name` and `metadata.namespace`, `=`, `==` or `!=`); anything else is
 * the real server's 400. An object that stops matching is not announced as DELETED (the real
 * server does that; nothing here relies on it).
 */
function selectorOf(query: Record<string, string>): (obj: Obj) => boolean {
  const tests: Array<(obj: Obj) => boolean> = [];
  for (const term of splitTerms(query.labelSelector)) {
    const m = /^(!?)([A-Za-z0-9./_-]+)(?:\s*(==|=|!=)\s*([A-Za-z0-9._-]*))?$/.exec(term);
    if (!m) throw new ApiError(400, "BadRequest", `unable to parse requirement: ${term}`);
    const [, not, key = "", op, value] = m;
    const label = (obj: Obj) => obj.metadata.labels?.[key];
    if (op === undefined) tests.push((obj) => (label(obj) !== undefined) !== (not === "!"));
    else if (op === "!=") tests.push((obj) => label(obj) !== value);
    else tests.push((obj) => label(obj) === value);
  }
  for (const term of splitTerms(query.fieldSelector)) {
    const m = /^(metadata\.name|metadata\.namespace)\s*(==|=|!=)\s*(.*)$/.exec(term);
    if (!m)
      throw new ApiError(400, "BadRequest", `field label not supported: ${term.split(/[=!]/)[0]}`);
    const [, field, op, value] = m;
    const of = (obj: Obj) =>
      field === "metadata.name" ? obj.metadata.name : (obj.metadata.namespace ?? "");
    tests.push(op === "!=" ? (obj) => of(obj) !== value : (obj) => of(obj) === value);
  }
  return (obj) => tests.every((t) => t(obj));
}

function splitTerms(selector: string | undefined): string[] {
  return (selector ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t !== "");
}

function statusBody(err: ApiError): object {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: err.message,
    reason: err.reason,
    code: err.code,
  };
}

function eventLine(change: Change): string {
  return `${JSON.stringify({ type: change.type, object: change.object })}\n`;
}

/** /api/v1/namespaces/{ns}/{plural}[/{name}[/{sub}]] and /apis/{group}/{version}/namespaces/... */
function parseRoute(path: string): Route | undefined {
  const m =
    /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))\/namespaces\/([^/]+)\/([^/]+)(?:\/([^/]+))?(?:\/([^/]+))?$/.exec(
      path,
    );
  if (!m) return undefined;
  const [, core, group, version, namespace = "", plural, name, subresource] = m;
  const resource = core ? `v1/${plural}` : `${group}/${version}/${plural}`;
  return { resource, namespace, ...(name && { name }), ...(subresource && { subresource }) };
}

async function readBody(req: http.IncomingMessage): Promise<Obj> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? (JSON.parse(text) as Obj) : ({ metadata: { name: "" } } as Obj);
}
