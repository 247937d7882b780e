// The patch types kubectl sends (PATCH with the type as Content-Type): JSON merge patch
// (RFC 7386), JSON patch (RFC 6902) and strategic merge patch. Strategic merge is served as a JSON
// merge patch plus `$patch: delete` on maps: lists are replaced whole, never merged by key
// (enough for kubectl's patches of custom resources and metadata; not for built-in lists such as
// a Pod's containers). Server-side apply (application/apply-patch+yaml) is refused with 415, as a
// server without it answers.
import { ApiError } from "./fake-kube-store.ts";
import type { Obj } from "./fake-kube-store.ts";

export const PATCH_TYPES = [
  "application/merge-patch+json",
  "application/json-patch+json",
  "application/strategic-merge-patch+json",
] as const;

/** `existing` with the patch applied; throws the real server's errors for a bad patch. */
export function applyPatch(contentType: string, existing: Obj, patch: unknown): Obj {
  const type = contentType.split(";")[0]!.trim();
  if (type === "application/json-patch+json") return jsonPatch(existing, patch);
  if (
    type === "application/merge-patch+json" ||
    type === "application/strategic-merge-patch+json"
  ) {
    if (!isRecord(patch)) throw new ApiError(400, "BadRequest", "a merge patch must be an object");
    return mergePatch(existing, patch) as Obj;
  }
  throw new ApiError(
    415,
    "UnsupportedMediaType",
    `the body of the request was in an unknown format - accepted media types include: ${PATCH_TYPES.join(", ")}`,
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return structuredClone(patch);
  if (patch.$patch === "delete") return undefined;
  const result: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key === "$patch" || key.startsWith("$setElementOrder/") || key === "$retainKeys") continue;
    if (value === null) delete result[key];
    else {
      const merged = mergePatch(result[key], value);
      if (merged === undefined) delete result[key];
      else result[key] = merged;
    }
  }
  return result;
}

type Operation = { op: string; path: string; value?: unknown; from?: string };

function jsonPatch(existing: Obj, patch: unknown): Obj {
  if (!Array.isArray(patch))
    throw new ApiError(400, "BadRequest", "a JSON patch must be an array of operations");
  const doc = { root: structuredClone(existing) as unknown };
  for (const raw of patch as Operation[]) {
    const { op, path } = raw;
    const at = pointer(path);
    if (op === "test") {
      if (JSON.stringify(read(doc, at)) !== JSON.stringify(raw.value))
        throw new ApiError(422, "Invalid", `the test operation failed at ${path}`);
    } else if (op === "remove") remove(doc, at);
    else if (op === "add") add(doc, at, structuredClone(raw.value));
    else if (op === "replace") {
      read(doc, at);
      remove(doc, at);
      add(doc, at, structuredClone(raw.value));
    } else if (op === "move" || op === "copy") {
      const from = pointer(raw.from ?? "");
      const value = structuredClone(read(doc, from));
      if (op === "move") remove(doc, from);
      add(doc, at, value);
    } else throw new ApiError(400, "BadRequest", `unknown JSON patch operation ${op}`);
  }
  return doc.root as Obj;
}

function pointer(path: string): string[] {
  if (path !== "" && !path.startsWith("/"))
    throw new ApiError(400, "BadRequest", `invalid JSON pointer ${path}`);
  return [
    "root",
    ...path
      .split("/")
      .slice(1)
      .map((p) => p.replaceAll("~1", "/").replaceAll("~0", "~")),
  ];
}

function parentOf(doc: object, at: string[]): { parent: unknown; key: string } {
  let parent: unknown = doc;
  for (const key of at.slice(0, -1)) {
    parent = (parent as Record<string, unknown>)?.[key];
    if (parent === undefined || parent === null)
      throw new ApiError(422, "Invalid", `path /${at.slice(1).join("/")} does not exist`);
  }
  return { parent, key: at[at.length - 1]! };
}

function read(doc: object, at: string[]): unknown {
  const { parent, key } = parentOf(doc, at);
  const value = (parent as Record<string, unknown>)[key];
  if (value === undefined)
    throw new ApiError(422, "Invalid", `path /${at.slice(1).join("/")} does not exist`);
  return value;
}

function remove(doc: object, at: string[]): void {
  read(doc, at);
  const { parent, key } = parentOf(doc, at);
  if (Array.isArray(parent)) parent.splice(Number(key), 1);
  else delete (parent as Record<string, unknown>)[key];
}

function add(doc: object, at: string[], value: unknown): void {
  const { parent, key } = parentOf(doc, at);
  if (Array.isArray(parent)) {
    const index = key === "-" ? parent.length : Number(key);
    if (!Number.isInteger(index) || index > parent.length)
      throw new ApiError(422, "Invalid", `index ${key} is out of bounds`);
    parent.splice(index, 0, value);
  } else (parent as Record<string, unknown>)[key] = value;
}
