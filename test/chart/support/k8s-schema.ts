// Validates objects against the Kubernetes API schemas shipped in kubernetes-models, and finds
// fields those schemas do not know (the models accept unknown fields; the API server's strict
// field validation does not).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { K8sObject } from "./helm.ts";

interface Model {
  validate(): void;
}
type ModelClass = new (data: unknown) => Model;
type ValidateFn = ((data: unknown) => boolean) & { errors?: unknown[] | null };

/** kubernetes-models module path of a kind: core as v1/<Kind>, others <group>/<version>/<Kind>. */
export function modelPath(apiVersion: string, kind: string): string {
  return `kubernetes-models/${apiVersion}/${kind}`;
}

/** The compiled schema module the model itself validates with (named in its import). */
function schemaModule(apiVersion: string, kind: string): string {
  const file = fileURLToPath(import.meta.resolve(modelPath(apiVersion, kind)));
  const match = /_schemas\/([A-Za-z0-9]+)\.js/.exec(readFileSync(file, "utf8"));
  if (!match) throw new Error(`no schema import in ${file}`);
  return `kubernetes-models/_schemas/${match[1]}`;
}

/** Throws when the object breaks the API schema of its apiVersion/kind. */
export async function validateModel(obj: K8sObject): Promise<void> {
  const mod = (await import(modelPath(obj.apiVersion, obj.kind))) as Record<string, ModelClass>;
  const Model = mod[obj.kind];
  if (!Model) throw new Error(`kubernetes-models has no ${obj.apiVersion} ${obj.kind}`);
  new Model(obj).validate();
}

/**
 * Paths of fields the schema does not define. The compiled validator reads exactly the
 * properties its schema names (and enumerates free-form maps such as labels), so a field it
 * never reads is one the API does not know.
 */
export async function unknownFields(obj: K8sObject): Promise<string[]> {
  const mod = (await import(schemaModule(obj.apiVersion, obj.kind))) as { validate: ValidateFn };
  const seen = new Map<object, Set<string>>();
  const paths = new Map<object, string>();
  const proxies = new WeakMap<object, object>();
  const track = (value: unknown, path: string): unknown => {
    if (value === null || typeof value !== "object") return value;
    const cached = proxies.get(value);
    if (cached) return cached;
    seen.set(value, new Set());
    paths.set(value, path);
    const proxy = new Proxy(value, {
      get(target, key, receiver) {
        const result = Reflect.get(target, key, receiver) as unknown;
        if (typeof key !== "string" || !Object.hasOwn(target, key)) return result;
        seen.get(target)?.add(key);
        return track(result, `${path}/${key}`);
      },
      ownKeys(target) {
        for (const key of Reflect.ownKeys(target))
          if (typeof key === "string") seen.get(target)?.add(key);
        return Reflect.ownKeys(target);
      },
    });
    proxies.set(value, proxy);
    return proxy;
  };
  mod.validate(track(obj, ""));
  const unknown: string[] = [];
  for (const [target, keys] of seen) {
    if (Array.isArray(target)) continue;
    for (const key of Object.keys(target))
      if (!keys.has(key)) unknown.push(`${paths.get(target)}/${key}`);
  }
  return unknown;
}

/** Property names of a kubernetes-models interface, read from its declaration file. */
function interfaceKeys(apiVersion: string, kind: string): Set<string> {
  const file = fileURLToPath(import.meta.resolve(modelPath(apiVersion, kind))).replace(
    /\.js$/,
    ".d.ts",
  );
  const body = readFileSync(file, "utf8").split(/export declare class/)[0] ?? "";
  return new Set([...body.matchAll(/^\s+"([^"]+)"\??:/gm)].map((m) => m[1] as string));
}

/**
 * The compiled validator reads a recursive JSONSchemaProps only in part, so the generic check
 * cannot judge a CRD's openAPIV3Schema; walk it against the JSONSchemaProps fields instead.
 */
function unknownSchemaKeys(node: unknown, path: string, out: string[]): void {
  if (node === null || typeof node !== "object" || Array.isArray(node)) return;
  const allowed = interfaceKeys("apiextensions.k8s.io/v1", "JSONSchemaProps");
  const ruleKeys = interfaceKeys("apiextensions.k8s.io/v1", "ValidationRule");
  for (const [key, value] of Object.entries(node)) {
    if (!allowed.has(key)) out.push(`${path}/${key}`);
    if (key === "properties" || key === "patternProperties" || key === "definitions") {
      for (const [name, child] of Object.entries(value as object))
        unknownSchemaKeys(child, `${path}/${key}/${name}`, out);
    } else if (key === "items" || key === "additionalProperties" || key === "not") {
      unknownSchemaKeys(value, `${path}/${key}`, out);
    } else if (key === "allOf" || key === "anyOf" || key === "oneOf") {
      (value as unknown[]).forEach((child, i) =>
        unknownSchemaKeys(child, `${path}/${key}/${i}`, out),
      );
    } else if (key === "x-kubernetes-validations") {
      (value as Record<string, unknown>[]).forEach((rule, i) => {
        for (const k of Object.keys(rule))
          if (!ruleKeys.has(k)) out.push(`${path}/${key}/${i}/${k}`);
      });
    }
  }
}

/** unknownFields, with a CRD's embedded schemas checked by unknownSchemaKeys. */
export async function unknownFieldsStrict(obj: K8sObject): Promise<string[]> {
  const found = await unknownFields(obj);
  if (obj.kind !== "CustomResourceDefinition") return found;
  const out = found.filter((p) => !/^\/spec\/versions\/\d+\/schema\/openAPIV3Schema\//.test(p));
  const versions = (obj.spec as { versions: { schema?: { openAPIV3Schema?: unknown } }[] })
    .versions;
  versions.forEach((v, i) =>
    unknownSchemaKeys(v.schema?.openAPIV3Schema, `/spec/versions/${i}/schema/openAPIV3Schema`, out),
  );
  return out;
}
