// CustomResourceDefinitions in the fake API server (./fake-kube-api.ts): a CRD created or changed
// registers its served versions as resources (names for discovery, printer columns, the status
// subresource) with the admission the real server derives from the structural schema: unknown
// fields pruned (or refused under fieldValidation=Strict), defaults applied, the schema checked.
// CEL rules (x-kubernetes-validations) and conversion are not modelled.
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { ApiError } from "./fake-kube-store.ts";
import type { Obj, PrinterColumn, ResourceConfig } from "./fake-kube-store.ts";

// ajv-formats is CommonJS with a default export; under NodeNext its callable is the module itself.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => void;

export const CRD_RESOURCE = "apiextensions.k8s.io/v1/customresourcedefinitions";

type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  [key: string]: unknown;
};

type CrdVersion = {
  name: string;
  served: boolean;
  subresources?: { status?: object };
  additionalPrinterColumns?: PrinterColumn[];
  schema?: { openAPIV3Schema?: Schema };
};

type CrdSpec = {
  group: string;
  scope: "Namespaced" | "Cluster";
  names: {
    kind: string;
    listKind?: string;
    plural: string;
    singular?: string;
    shortNames?: string[];
    categories?: string[];
  };
  versions: CrdVersion[];
};

/** The CRD resource itself (cluster-scoped, as on a real server). */
export const crdResource: ResourceConfig = {
  id: CRD_RESOURCE,
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  namespaced: false,
  singular: "customresourcedefinition",
  shortNames: ["crd", "crds"],
  statusSubresource: true,
  generation: true,
};

/** The resources one CRD serves: one per served version. */
export function resourcesOfCrd(crd: Obj): ResourceConfig[] {
  const spec = crd.spec as unknown as CrdSpec;
  return spec.versions
    .filter((v) => v.served)
    .map((v) => {
      const schema = v.schema?.openAPIV3Schema ?? { type: "object" };
      return {
        id: `${spec.group}/${v.name}/${spec.names.plural}`,
        apiVersion: `${spec.group}/${v.name}`,
        kind: spec.names.kind,
        namespaced: spec.scope === "Namespaced",
        singular: spec.names.singular ?? spec.names.kind.toLowerCase(),
        shortNames: spec.names.shortNames ?? [],
        categories: spec.names.categories ?? [],
        printerColumns: v.additionalPrinterColumns ?? [],
        schema,
        statusSubresource: v.subresources?.status !== undefined,
        generation: true,
        admit: schemaAdmission(spec.names.kind, schema),
      };
    });
}

/** The status the real server's controllers give an accepted CRD. */
export function establishedStatus(crd: Obj, now: string): Record<string, unknown> {
  const spec = crd.spec as unknown as CrdSpec;
  const condition = (type: string, reason: string, message: string) => ({
    type,
    status: "True",
    lastTransitionTime: now,
    reason,
    message,
  });
  return {
    acceptedNames: { ...spec.names, listKind: spec.names.listKind ?? `${spec.names.kind}List` },
    storedVersions: spec.versions.filter((v) => v.served).map((v) => v.name),
    conditions: [
      condition("NamesAccepted", "NoConflicts", "no conflicts found"),
      condition("Established", "InitialNamesAccepted", "the initial names have been accepted"),
    ],
  };
}

/** Paths of the fields `schema` does not declare (what pruning removes), as ".spec.foo". */
export function unknownFields(schema: Schema | undefined, value: unknown, at = ""): string[] {
  if (!schema || schema["x-kubernetes-preserve-unknown-fields"]) return [];
  if (Array.isArray(value))
    return value.flatMap((item, i) => unknownFields(schema.items, item, `${at}[${i}]`));
  if (value === null || typeof value !== "object") return [];
  const found: string[] = [];
  for (const [key, child] of Object.entries(value)) {
    const path = `${at}.${key}`;
    // metadata is the server's own (ObjectMeta), never pruned by the CRD's schema.
    if (at === "" && (key === "metadata" || key === "apiVersion" || key === "kind")) continue;
    const declared =
      schema.properties?.[key] ??
      (typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined);
    if (declared) found.push(...unknownFields(declared, child, path));
    else if (schema.additionalProperties !== true) found.push(path);
  }
  return found;
}

function prune(schema: Schema | undefined, value: unknown, top = true): void {
  if (!schema || schema["x-kubernetes-preserve-unknown-fields"]) return;
  if (Array.isArray(value)) return value.forEach((item) => prune(schema.items, item, false));
  if (value === null || typeof value !== "object") return;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (top && (key === "metadata" || key === "apiVersion" || key === "kind")) continue;
    const declared =
      schema.properties?.[key] ??
      (typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined);
    if (declared) prune(declared, record[key], false);
    else if (schema.additionalProperties !== true) delete record[key];
  }
}

let ajv: Ajv | undefined;

function compile(schema: Schema): ValidateFunction {
  if (!ajv) {
    ajv = new Ajv({ strict: false, allErrors: true, useDefaults: true });
    addFormats(ajv);
    ajv.addFormat("int64", true).addFormat("int32", true);
  }
  // metadata is checked by the server itself, not by the CRD's schema.
  const properties = { ...schema.properties, metadata: { type: "object" } };
  return ajv.compile({ ...schema, properties });
}

/** Prune, default, validate: the real server's handling of a custom resource's body. */
function schemaAdmission(kind: string, schema: Schema): (obj: Obj) => void {
  const validate = compile(schema);
  return (obj) => {
    prune(schema, obj);
    if (validate(obj)) return;
    const causes = (validate.errors ?? []).map((e) => {
      const field = e.instancePath.replaceAll("/", ".").replace(/^\./, "");
      return `${field || "<root>"}: Invalid value: ${e.message ?? "invalid"}`;
    });
    throw new ApiError(
      422,
      "Invalid",
      `${kind} "${String((obj as Obj).metadata?.name ?? "")}" is invalid: ${causes.join(", ")}`,
    );
  };
}
