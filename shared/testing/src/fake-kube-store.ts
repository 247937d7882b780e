// The storage half of the fake API server: objects per resource, one resourceVersion counter,
// optimistic concurrency, status subresource, generation, finalizers and deletionTimestamp,
// garbage collection by owner references, and an event history watches replay from (with
// compaction, for 410 Gone).
import { randomUUID } from "node:crypto";

export type Obj = {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    finalizers?: string[];
    ownerReferences?: Array<{
      apiVersion: string;
      kind: string;
      name: string;
      uid: string;
      controller?: boolean;
      blockOwnerDeletion?: boolean;
    }>;
    labels?: Record<string, string>;
    [key: string]: unknown;
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  [key: string]: unknown;
};

export type PrinterColumn = {
  name: string;
  type: string;
  jsonPath: string;
  format?: string;
  description?: string;
  priority?: number;
};

export type ResourceConfig = {
  /** "<group>/<version>/<plural>", "v1/<plural>" for the core group. */
  id: string;
  apiVersion: string;
  kind: string;
  /** Default true; a cluster-scoped resource lives under namespace "". */
  namespaced?: boolean;
  /** Discovery's names (kubectl resolves `whsub`, `crd` by them). */
  singular?: string;
  shortNames?: string[];
  categories?: string[];
  /** The Table columns after Name (a CRD's additionalPrinterColumns); default Created At. */
  printerColumns?: PrinterColumn[];
  /** The structural schema (a CRD version's openAPIV3Schema), served as OpenAPI v3. */
  schema?: Record<string, unknown>;
  statusSubresource?: boolean;
  /** metadata.generation counts spec changes (custom resources, most built-ins). */
  generation?: boolean;
  /** Returns an error message (answered 400) for a body the real server would not decode. */
  validate?: (obj: Obj) => string | undefined;
  /** Admission: defaults and schema checks; may change `obj`; throws an ApiError to refuse. */
  admit?: (obj: Obj, old: Obj | undefined) => void;
};

export type ChangeType = "ADDED" | "MODIFIED" | "DELETED";
export type Change = {
  rv: number;
  resource: string;
  namespace: string;
  type: ChangeType;
  object: Obj;
};

export class ApiError extends Error {
  readonly code: number;
  readonly reason: string;
  constructor(code: number, reason: string, message: string) {
    super(message);
    this.code = code;
    this.reason = reason;
  }
}

const clone = <T>(value: T): T => structuredClone(value);
const rfc3339 = (d = new Date()) => `${d.toISOString().slice(0, 19)}Z`;
const withoutMeta = (o: Obj) => JSON.stringify({ ...o, metadata: undefined, status: undefined });

export class FakeStore {
  readonly resources = new Map<string, ResourceConfig>();
  readonly history: Change[] = [];
  #objects = new Map<string, Map<string, Obj>>();
  #rv = 100;
  /** Watches from a resourceVersion below this get 410 Gone. */
  compactedBelow = 0;
  onChange: (change: Change) => void = () => {};

  register(config: ResourceConfig): void {
    this.resources.set(config.id, config);
    this.#objects.set(config.id, new Map());
  }

  get currentRv(): number {
    return this.#rv;
  }

  list(resource: string, namespace: string): Obj[] {
    return [...this.#table(resource).values()]
      .filter((o) => (o.metadata.namespace ?? "") === namespace)
      .map(clone);
  }

  get(resource: string, namespace: string, name: string): Obj {
    const found = this.#table(resource).get(`${namespace}/${name}`);
    if (!found) throw new ApiError(404, "NotFound", `${resource} "${name}" not found`);
    return clone(found);
  }

  find(resource: string, namespace: string, name: string): Obj | undefined {
    const found = this.#table(resource).get(`${namespace}/${name}`);
    return found && clone(found);
  }

  create(resource: string, namespace: string, body: Obj): Obj {
    const config = this.#config(resource);
    this.#validate(config, body);
    const key = `${namespace}/${body.metadata?.name}`;
    if (!body.metadata?.name) throw new ApiError(422, "Invalid", "metadata.name: Required value");
    if (this.#table(resource).has(key))
      throw new ApiError(
        409,
        "AlreadyExists",
        `${resource} "${body.metadata.name}" already exists`,
      );
    const obj = clone(body);
    config.admit?.(obj, undefined);
    obj.metadata = {
      ...obj.metadata,
      ...(config.namespaced !== false && { namespace }),
      uid: randomUUID(),
      creationTimestamp: rfc3339(),
      resourceVersion: String(++this.#rv),
    };
    delete obj.metadata.deletionTimestamp;
    if (config.generation) obj.metadata.generation = 1;
    if (config.statusSubresource) delete obj.status; // status is ignored on create
    return this.#commit(config, namespace, "ADDED", obj);
  }

  update(
    resource: string,
    namespace: string,
    name: string,
    body: Obj,
    subresource?: "status",
  ): Obj {
    const config = this.#config(resource);
    this.#validate(config, body);
    const existing = this.get(resource, namespace, name);
    if (body.metadata?.name !== name)
      throw new ApiError(
        400,
        "BadRequest",
        "the name of the object does not match the name on the URL",
      );
    if (!body.metadata.resourceVersion)
      throw new ApiError(
        422,
        "Invalid",
        "metadata.resourceVersion: Invalid value: 0: must be specified for an update",
      );
    if (body.metadata.resourceVersion !== existing.metadata.resourceVersion) {
      throw new ApiError(
        409,
        "Conflict",
        `Operation cannot be fulfilled on ${resource} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
      );
    }
    const next =
      subresource === "status"
        ? { ...existing, status: clone(body.status) }
        : this.#mainUpdate(config, existing, clone(body));
    if (subresource !== "status" || config.statusSubresource) config.admit?.(next, existing);
    if (JSON.stringify(next) === JSON.stringify(existing)) return existing; // no-op: no new version
    next.metadata.resourceVersion = String(++this.#rv);
    const gone =
      next.metadata.deletionTimestamp !== undefined &&
      (next.metadata.finalizers ?? []).length === 0;
    return this.#commit(config, namespace, gone ? "DELETED" : "MODIFIED", next);
  }

  #mainUpdate(config: ResourceConfig, existing: Obj, body: Obj): Obj {
    const m = existing.metadata;
    const next: Obj = {
      ...body,
      metadata: {
        ...body.metadata,
        uid: m.uid,
        creationTimestamp: m.creationTimestamp,
        ...(m.namespace !== undefined && { namespace: m.namespace }),
      },
    };
    if (m.deletionTimestamp) next.metadata.deletionTimestamp = m.deletionTimestamp;
    else delete next.metadata.deletionTimestamp;
    if (config.statusSubresource) next.status = existing.status;
    if (!next.status) delete next.status;
    if (config.generation)
      next.metadata.generation =
        (m.generation ?? 1) + (withoutMeta(next) === withoutMeta(existing) ? 0 : 1);
    return next;
  }

  /**
   * A patch: `apply` turns the stored object into the desired one, then it is an update (a
   * resourceVersion in the patch is a precondition, as on the real server).
   */
  patch(
    resource: string,
    namespace: string,
    name: string,
    apply: (existing: Obj) => Obj,
    subresource?: "status",
  ): Obj {
    const existing = this.get(resource, namespace, name);
    const next = apply(clone(existing));
    next.metadata = {
      ...next.metadata,
      name,
      resourceVersion: next.metadata?.resourceVersion ?? existing.metadata.resourceVersion,
    };
    return this.update(resource, namespace, name, next, subresource);
  }

  /** Finalizers present: only marks the object (deletionTimestamp); otherwise removes it. */
  delete(resource: string, namespace: string, name: string): Obj {
    const config = this.#config(resource);
    const existing = this.get(resource, namespace, name);
    existing.metadata.resourceVersion = String(++this.#rv);
    if ((existing.metadata.finalizers ?? []).length > 0) {
      existing.metadata.deletionTimestamp ??= rfc3339();
      return this.#commit(config, namespace, "MODIFIED", existing);
    }
    return this.#commit(config, namespace, "DELETED", existing);
  }

  /** Forgets history: a watch resuming from an older resourceVersion now gets 410 Gone. */
  compact(): void {
    this.compactedBelow = this.#rv;
    this.history.length = 0;
  }

  #commit(config: ResourceConfig, namespace: string, type: ChangeType, obj: Obj): Obj {
    const key = `${namespace}/${obj.metadata.name}`;
    if (type === "DELETED") this.#table(config.id).delete(key);
    else this.#table(config.id).set(key, obj);
    const change: Change = {
      rv: Number(obj.metadata.resourceVersion),
      resource: config.id,
      namespace,
      type,
      object: clone(obj),
    };
    this.history.push(change);
    this.onChange(change);
    if (type === "DELETED" && obj.metadata.uid) this.#collectGarbage(obj.metadata.uid);
    return clone(obj);
  }

  /**
   * The garbage collector (background propagation): objects whose every owner reference names a
   * deleted object are deleted too (at once here; the real collector takes a moment).
   */
  #collectGarbage(uid: string): void {
    const live = new Set(
      [...this.#objects.values()].flatMap((t) => [...t.values()].map((o) => o.metadata.uid)),
    );
    for (const [resource, table] of this.#objects) {
      for (const obj of [...table.values()]) {
        const owners = obj.metadata.ownerReferences ?? [];
        if (owners.some((o) => o.uid === uid) && owners.every((o) => !live.has(o.uid)))
          this.delete(resource, obj.metadata.namespace ?? "", obj.metadata.name);
      }
    }
  }

  #validate(config: ResourceConfig, body: Obj): void {
    const problem = config.validate?.(body);
    if (problem) throw new ApiError(400, "BadRequest", problem);
  }

  #config(resource: string): ResourceConfig {
    const config = this.resources.get(resource);
    if (!config)
      throw new ApiError(
        404,
        "NotFound",
        `the server could not find the requested resource (${resource})`,
      );
    return config;
  }

  #table(resource: string): Map<string, Obj> {
    this.#config(resource);
    return this.#objects.get(resource) as Map<string, Obj>;
  }
}
