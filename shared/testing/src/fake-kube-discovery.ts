// What kubectl reads before it sends a request (./fake-kube-api.ts): the legacy (unaggregated)
// discovery documents, /version, and OpenAPI v3 per group-version. The OpenAPI documents carry each
// kind's schema (a CRD's openAPIV3Schema) and PATCH operations that accept `fieldValidation`, so
// kubectl leaves validation to the server (fieldValidation=Strict) as it does against a real one.
import type { ResourceConfig } from "./fake-kube-store.ts";

const VERBS = ["create", "delete", "get", "list", "patch", "update", "watch"];

function groupVersionOf(config: ResourceConfig): { group: string; version: string } {
  const [group, version] = config.apiVersion.includes("/")
    ? (config.apiVersion.split("/") as [string, string])
    : ["", config.apiVersion];
  return { group, version };
}

const OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
const stringMap = { type: "object", additionalProperties: { type: "string" } };
/** The ObjectMeta fields kubectl computes patches of. */
const objectMeta = {
  type: "object",
  properties: {
    name: { type: "string" },
    namespace: { type: "string" },
    labels: stringMap,
    annotations: stringMap,
    finalizers: { type: "array", items: { type: "string" } },
    resourceVersion: { type: "string" },
    uid: { type: "string" },
    generation: { type: "integer", format: "int64" },
    creationTimestamp: { type: "string", format: "date-time" },
    deletionTimestamp: { type: "string", format: "date-time" },
  },
};

const pluralOf = (config: ResourceConfig) => config.id.split("/").pop()!;

/** "api/v1" or "apis/<group>/<version>": the discovery and OpenAPI path of a group-version. */
export function gvPath(config: ResourceConfig): string {
  const { group, version } = groupVersionOf(config);
  return group === "" ? `api/${version}` : `apis/${group}/${version}`;
}

export function apiVersions(serverAddress: string): object {
  return {
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }],
  };
}

export function apiGroupList(resources: Iterable<ResourceConfig>): object {
  const groups = new Map<string, Set<string>>();
  for (const config of resources) {
    const { group, version } = groupVersionOf(config);
    if (group === "") continue;
    groups.set(group, (groups.get(group) ?? new Set()).add(version));
  }
  return {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: [...groups].map(([name, versions]) => {
      const list = [...versions].map((version) => ({
        groupVersion: `${name}/${version}`,
        version,
      }));
      return { name, versions: list, preferredVersion: list[0] };
    }),
  };
}

/** The APIResourceList of one group-version, or undefined when nothing is served there. */
export function apiResourceList(
  resources: Iterable<ResourceConfig>,
  path: string,
): object | undefined {
  const served = [...resources].filter((c) => gvPath(c) === path);
  if (served.length === 0) return undefined;
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: served[0]!.apiVersion,
    resources: served.flatMap((c) => {
      const namespaced = c.namespaced !== false;
      const main = {
        name: pluralOf(c),
        singularName: c.singular ?? c.kind.toLowerCase(),
        namespaced,
        kind: c.kind,
        verbs: VERBS,
        ...(c.shortNames?.length && { shortNames: c.shortNames }),
        ...(c.categories?.length && { categories: c.categories }),
      };
      const status = {
        name: `${pluralOf(c)}/status`,
        singularName: "",
        namespaced,
        kind: c.kind,
        verbs: ["get", "patch", "update"],
      };
      return c.statusSubresource ? [main, status] : [main];
    }),
  };
}

export function version(): object {
  return {
    major: "1",
    minor: "34",
    gitVersion: "v1.34.0-fake",
    platform: "linux/amd64",
  };
}

/** GET /openapi/v3: where each group-version's document is. */
export function openApiIndex(resources: Iterable<ResourceConfig>, hash: string): object {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const config of resources) {
    const path = gvPath(config);
    paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${hash}` };
  }
  return { paths };
}

/** GET /openapi/v3/<api/v1|apis/g/v>: schemas and the PATCH operations kubectl looks at. */
export function openApiDocument(
  resources: Iterable<ResourceConfig>,
  path: string,
): object | undefined {
  const served = [...resources].filter((c) => gvPath(c) === path);
  if (served.length === 0) return undefined;
  const schemas: Record<string, object> = {};
  const paths: Record<string, object> = {};
  for (const config of served) {
    const { group, version } = groupVersionOf(config);
    const gvk = { group, version, kind: config.kind };
    const name = `${group === "" ? "io.k8s.api.core" : group.split(".").reverse().join(".")}.${version}.${config.kind}`;
    const schema = config.schema ?? {
      type: "object",
      "x-kubernetes-preserve-unknown-fields": true,
    };
    schemas[name] = {
      ...schema,
      properties: {
        ...(schema.properties as object | undefined),
        metadata: { $ref: `#/components/schemas/${OBJECT_META}` },
      },
      "x-kubernetes-group-version-kind": [gvk],
    };
    schemas[OBJECT_META] = objectMeta;
    const scope = config.namespaced === false ? "" : "/namespaces/{namespace}";
    const item = `/${path}${scope}/${pluralOf(config)}/{name}`;
    const ref = { $ref: `#/components/schemas/${name}` };
    const body = { content: { "application/json": { schema: ref } } };
    const ok = { "200": { description: "OK", ...body } };
    // kubectl looks for fieldValidation among the PATCH operation's own parameters.
    const parameters = ["fieldValidation", "fieldManager", "dryRun"].map((name) => ({
      name,
      in: "query",
      schema: { type: "string", uniqueItems: true },
    }));
    // Custom resources (a schema from their CRD) take no strategic merge patch.
    const patchTypes = [
      "application/json-patch+json",
      "application/merge-patch+json",
      ...(config.schema ? [] : ["application/strategic-merge-patch+json"]),
    ];
    paths[item] = {
      get: { "x-kubernetes-group-version-kind": gvk, responses: ok },
      put: { "x-kubernetes-group-version-kind": gvk, parameters, requestBody: body, responses: ok },
      patch: {
        "x-kubernetes-group-version-kind": gvk,
        parameters,
        requestBody: {
          content: Object.fromEntries(patchTypes.map((t) => [t, { schema: { type: "object" } }])),
        },
        responses: ok,
      },
    };
  }
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes (fake)", version: "v1.34.0" },
    paths,
    components: { schemas },
  };
}
