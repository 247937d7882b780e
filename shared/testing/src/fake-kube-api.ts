// An in-test fake of the Kubernetes API server, served over real HTTP on loopback so the real
// clients' requests (paths, bodies, errors, watch streams) are exercised: the @kubernetes/client-node
// requests of the @svc/k8s machinery, the Lease elector (@svc/leader) and the webhooks operator,
// and the real kubectl (discovery, OpenAPI v3, Table output, patches; see the modules beside it).
// A fake, because no kube-apiserver (or envtest binary) can run on these machines
// (shared/k8s/README.md, "Tests").
import http from "node:http";
import type { AddressInfo } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";
import { ApiError, FakeStore } from "./fake-kube-store.ts";
import type { Change, Obj, ResourceConfig } from "./fake-kube-store.ts";
import {
  CRD_RESOURCE,
  crdResource,
  establishedStatus,
  resourcesOfCrd,
  unknownFields,
} from "./fake-kube-crds.ts";
import {
  apiGroupList,
  apiResourceList,
  apiVersions,
  openApiDocument,
  openApiIndex,
  version,
} from "./fake-kube-discovery.ts";
import { applyPatch } from "./fake-kube-patch.ts";
import { toTable, wantsTable } from "./fake-kube-table.ts";

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
  /** The bearer token sent: tells clients with their own kubeconfig apart. */
  token?: string;
};

/** namespace "" for a cluster-scoped resource. */
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
    this.store.register(crdResource);
    for (const resource of resources) this.store.register(resource);
    this.store.onChange = (change) => this.#broadcast(change);
    this.#server = http.createServer((req, res) => void this.#handle(req, res));
  }

  /**
   * Serves Leases, Secrets, Events and CustomResourceDefinitions (a CRD applied serves its
   * resources), plus the custom `resources` a test names.
   */
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

  /**
   * The same as a kubeconfig file (KUBECONFIG) for kubectl or a process: context namespace
   * `namespace`, bearer token `token` (recorded with each request).
   */
  kubeConfigYaml(namespace = "integration", token = "test-token"): string {
    return [
      "apiVersion: v1",
      "kind: Config",
      "clusters:",
      "  - name: fake",
      "    cluster:",
      `      server: ${this.url}`,
      "      insecure-skip-tls-verify: true",
      "users:",
      "  - name: fake",
      "    user:",
      `      token: ${token}`,
      "contexts:",
      "  - name: fake",
      "    context:",
      "      cluster: fake",
      "      user: fake",
      `      namespace: ${namespace}`,
      "current-context: fake",
      "",
    ].join("\n");
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
    const watch = query.watch === "true" || query.watch === "1";
    const text = await readText(req);
    const route = parseRoute(url.pathname);
    const record: RecordedRequest = {
      method,
      path: url.pathname,
      query,
      status: 0,
      ...(route && { resource: route.resource }),
      ...(route?.name && { name: route.name }),
      ...(route?.subresource && { subresource: route.subresource }),
      ...(req.headers.authorization?.startsWith("Bearer ") && {
        token: req.headers.authorization.slice(7),
      }),
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
    try {
      if (!route) {
        const found = method === "GET" ? this.#meta(url.pathname) : undefined;
        if (!found)
          throw new ApiError(404, "NotFound", "the server could not find the requested resource");
        return this.#answer(res, record, 200, found);
      }
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
      const result = this.#dispatch(
        method,
        route,
        text,
        req.headers["content-type"],
        query,
        matches,
      );
      if (route.resource === CRD_RESOURCE && method !== "GET") this.#serveCrds();
      if (fault?.respondAfterMs) await new Promise((r) => setTimeout(r, fault.respondAfterMs));
      const body =
        method === "GET" && wantsTable(req.headers.accept)
          ? this.#table(route, result, query.includeObject)
          : result;
      this.#answer(res, record, method === "POST" ? 201 : 200, body);
    } catch (err) {
      this.#fail(
        res,
        record,
        err instanceof ApiError ? err : new ApiError(500, "InternalError", String(err)),
      );
    }
  }

  #answer(res: http.ServerResponse, record: RecordedRequest, status: number, body: unknown): void {
    record.status = status;
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  }

  /** Discovery, /version and OpenAPI v3. */
  #meta(path: string): object | undefined {
    const resources = this.store.resources.values();
    if (path === "/version") return version();
    if (path === "/api") return apiVersions(new URL(this.url).host);
    if (path === "/apis") return apiGroupList(resources);
    if (path === "/openapi/v3") return openApiIndex(resources, String(this.store.currentRv));
    if (path.startsWith("/openapi/v3/")) return openApiDocument(resources, path.slice(12));
    if (/^\/(api\/v1|apis\/[^/]+\/[^/]+)$/.test(path))
      return apiResourceList(resources, path.slice(1));
    return undefined;
  }

  #table(route: Route, result: unknown, includeObject: string | undefined): object {
    const config = this.store.resources.get(route.resource)!;
    const list = result as { metadata: { resourceVersion: string }; items?: Obj[] };
    const objects = route.name ? [result as Obj] : (list.items ?? []);
    return toTable(config, objects, list.metadata.resourceVersion, includeObject);
  }

  /** Every CRD's served versions become resources; a new CRD is accepted and established. */
  #serveCrds(): void {
    for (const crd of this.store.list(CRD_RESOURCE, "")) {
      for (const resource of resourcesOfCrd(crd)) {
        const known = this.store.resources.get(resource.id);
        if (known) Object.assign(known, resource);
        else this.store.register(resource);
      }
      if (!crd.metadata.deletionTimestamp && !crd.status?.conditions) {
        const status = establishedStatus(crd, new Date().toISOString().slice(0, 19) + "Z");
        this.store.update(CRD_RESOURCE, "", crd.metadata.name, { ...crd, status }, "status");
      }
    }
  }

  #dispatch(
    method: string,
    route: Route,
    text: string,
    contentType: string | undefined,
    query: Record<string, string>,
    matches: (obj: Obj) => boolean,
  ): unknown {
    const { resource, namespace, name, subresource } = route;
    const status = subresource === "status" ? "status" : undefined;
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
    if (method === "DELETE" && name) return this.store.delete(resource, namespace, name);
    const body = parseJson(text);
    if (method === "POST" && !name)
      return this.store.create(resource, namespace, this.#strict(resource, query, body as Obj));
    if (method === "PUT" && name)
      return this.store.update(
        resource,
        namespace,
        name,
        this.#strict(resource, query, body as Obj),
        status,
      );
    if (
      method === "PATCH" &&
      this.store.resources.get(resource)?.schema &&
      contentType?.startsWith("application/strategic-merge-patch+json")
    )
      throw new ApiError(
        415,
        "UnsupportedMediaType",
        "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
      );
    if (method === "PATCH" && name)
      return this.store.patch(
        resource,
        namespace,
        name,
        (existing) => this.#strict(resource, query, applyPatch(contentType ?? "", existing, body)),
        status,
      );
    throw new ApiError(405, "MethodNotAllowed", `${method} is not supported by the fake`);
  }

  /** fieldValidation=Strict: a field the resource's schema does not declare is a 400. */
  #strict(resource: string, query: Record<string, string>, body: Obj): Obj {
    const schema = this.store.resources.get(resource)?.schema;
    if (query.fieldValidation !== "Strict" || !schema) return body;
    const unknown = unknownFields(schema, body);
    if (unknown.length > 0)
      throw new ApiError(
        400,
        "BadRequest",
        `strict decoding error: ${unknown.map((f) => `unknown field "${f.slice(1)}"`).join(", ")}`,
      );
    return body;
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

/**
 * /api/v1/namespaces/{ns}/{plural}[/{name}[/{sub}]], the same under /apis/{group}/{version}, and
 * a cluster-scoped /apis/{group}/{version}/{plural}[/{name}[/{sub}]] (namespace "").
 */
function parseRoute(path: string): Route | undefined {
  const m =
    /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))(?:\/namespaces\/([^/]+)\/([^/]+)|\/([^/]+))(?:\/([^/]+))?(?:\/([^/]+))?$/.exec(
      path,
    );
  if (!m) return undefined;
  const [, core, group, version, namespace, namespacedPlural, clusterPlural, name, subresource] = m;
  if (clusterPlural === "namespaces") return undefined; // a Namespace object: not served
  const plural = namespacedPlural ?? clusterPlural ?? "";
  const resource = core ? `v1/${plural}` : `${group}/${version}/${plural}`;
  return {
    resource,
    namespace: namespace ?? "",
    ...(name && { name }),
    ...(subresource && { subresource }),
  };
}

async function readText(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function parseJson(text: string): unknown {
  if (!text) return { metadata: { name: "" } };
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError(400, "BadRequest", "the request body is not JSON");
  }
}
