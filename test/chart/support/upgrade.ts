// What `helm upgrade` from the release in production (test/chart/upgrade-base) to this checkout
// must not do: change a field the API server keeps immutable, collide a hook with a release object,
// or run a migration that breaks the pods still running the previous release.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual, promisify } from "node:util";
import type { K8sObject } from "./helm.ts";
import { repoRoot } from "./helm.ts";

const run = promisify(execFile);

export const upgradeBaseFile = join(import.meta.dirname, "../upgrade-base");

/** The commit named by test/chart/upgrade-base (its one line that is not a comment). */
export function upgradeBase(): string {
  const lines = readFileSync(upgradeBaseFile, "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
  if (lines.length !== 1 || !/^[0-9a-f]{40}$/.test(lines[0]!))
    throw new Error(`${upgradeBaseFile}: expected one full commit hash`);
  return lines[0]!;
}

export async function git(args: string[]): Promise<string> {
  const { stdout } = await run("git", args, { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/** The paths (files or folders) at `commit`, unpacked into a new temporary directory. */
export async function checkoutPaths(
  commit: string,
  paths: string[],
): Promise<{ dir: string; remove(): void }> {
  try {
    await git(["cat-file", "-e", `${commit}^{commit}`]);
  } catch {
    throw new Error(
      `upgrade base ${commit} is not in this clone's history (shallow clone? git fetch --unshallow)`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), "upgrade-base-"));
  const present: string[] = [];
  for (const path of paths)
    if ((await git(["ls-tree", "--name-only", commit, path])).trim() !== "") present.push(path);
  const tar = join(dir, "base.tar");
  await git(["archive", "--format=tar", "-o", tar, commit, ...present]);
  await run("tar", ["-xf", tar, "-C", dir]);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export function isHook(obj: K8sObject): boolean {
  return obj.metadata.annotations?.["helm.sh/hook"] !== undefined;
}

const key = (obj: K8sObject) => `${obj.kind}/${obj.metadata.name}`;

function at(obj: unknown, path: string): unknown {
  return path
    .split(".")
    .reduce<unknown>((o, p) => (o as Record<string, unknown> | undefined)?.[p], obj);
}

/**
 * Fields the API server refuses to change on an existing object (or, for PDB selectors, whose
 * change silently moves protection between pods), by kind.
 */
const IMMUTABLE: Record<string, string[]> = {
  Deployment: ["spec.selector"],
  ReplicaSet: ["spec.selector"],
  DaemonSet: ["spec.selector"],
  StatefulSet: [
    "spec.selector",
    "spec.serviceName",
    "spec.volumeClaimTemplates",
    "spec.podManagementPolicy",
  ],
  Job: ["spec.selector", "spec.template", "spec.completions", "spec.completionMode"],
  Service: ["spec.clusterIP", "spec.clusterIPs"],
  PodDisruptionBudget: ["spec.selector"],
  RoleBinding: ["roleRef"],
  ClusterRoleBinding: ["roleRef"],
  PersistentVolumeClaim: ["spec.storageClassName", "spec.accessModes", "spec.volumeName"],
  CustomResourceDefinition: ["spec.group", "spec.scope", "spec.names.kind", "spec.names.plural"],
};

/** Every way upgrading the `before` objects to the `after` ones would fail or misbehave. */
export function upgradeProblems(before: K8sObject[], after: K8sObject[]): string[] {
  const problems: string[] = [];
  const beforeRelease = new Map(before.filter((o) => !isHook(o)).map((o) => [key(o), o]));
  const beforeHooks = new Map(before.filter(isHook).map((o) => [key(o), o]));

  for (const obj of after) {
    const k = key(obj);
    if (isHook(obj)) {
      // Created before the upgrade's manifest applies; the old release object of that name is
      // then deleted as no longer in the manifest, taking the hook's object with it.
      if (beforeRelease.has(k)) problems.push(`${k}: was a release object, is now a hook`);
      continue;
    }
    // A hook object that stays (no hook-succeeded policy) blocks a release object of its name.
    const oldHook = beforeHooks.get(k);
    if (
      oldHook &&
      !/hook-succeeded/.test(oldHook.metadata.annotations?.["helm.sh/hook-delete-policy"] ?? "")
    )
      problems.push(`${k}: was a hook that stays behind, is now a release object`);
    const old = beforeRelease.get(k);
    if (!old) continue;
    for (const field of IMMUTABLE[obj.kind] ?? [])
      if (!isDeepStrictEqual(at(old, field), at(obj, field)))
        problems.push(`${k}: immutable ${field} changes`);
    if ((old as { immutable?: boolean }).immutable === true && !isDeepStrictEqual(old, obj))
      problems.push(`${k}: an immutable ${obj.kind} changes`);
    if (obj.kind === "CustomResourceDefinition") problems.push(...crdProblems(old, obj));
  }
  return problems;
}

interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
}

/** Stored objects stay readable: every version served before is still there and served. */
function crdProblems(before: K8sObject, after: K8sObject): string[] {
  const versions = (o: K8sObject) => (o.spec as { versions: CrdVersion[] }).versions;
  const now = new Map(versions(after).map((v) => [v.name, v]));
  return versions(before)
    .filter((v) => v.served && !now.get(v.name)?.served)
    .map((v) => `${key(after)}: version ${v.name} is no longer served`);
}

/** Problems of one rendered release on its own that would make later upgrades fail. */
export function releaseProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  for (const obj of objects) {
    if (obj.kind === "PersistentVolumeClaim")
      problems.push(`${key(obj)}: the chart keeps no state`);
    if (at(obj, "spec.volumeClaimTemplates")) problems.push(`${key(obj)}: volumeClaimTemplates`);
    // A plain Job's template can never change: a new image would fail the upgrade.
    if (obj.kind === "Job" && !isHook(obj)) problems.push(`${key(obj)}: a Job that is not a hook`);
    const selector = at(obj, "spec.selector.matchLabels") as Record<string, string> | undefined;
    const labels = at(obj, "spec.template.metadata.labels") as Record<string, string> | undefined;
    if (selector && labels && Object.entries(selector).some(([l, v]) => labels[l] !== v))
      problems.push(`${key(obj)}: selector does not match its pod template`);
  }
  return problems;
}

/**
 * Statements a migration may not run while the previous release's pods still read the schema
 * (expand, then contract): each [rule, test of one statement without comments].
 */
const CONTRACT_STATEMENTS: [string, (sql: string) => boolean][] = [
  [
    "DROP TABLE, SCHEMA, VIEW, TYPE or FUNCTION",
    (s) => /^DROP\s+(TABLE|SCHEMA|VIEW|MATERIALIZED\s+VIEW|TYPE|FUNCTION)\b/i.test(s),
  ],
  [
    "ALTER TABLE ... DROP COLUMN, CONSTRAINT or DEFAULT",
    (s) => /^ALTER\s+TABLE\b/i.test(s) && /\bDROP\s+(COLUMN|CONSTRAINT|DEFAULT)\b/i.test(s),
  ],
  ["RENAME", (s) => /\bRENAME\b/i.test(s)],
  ["ALTER COLUMN ... TYPE", (s) => /\bALTER\s+(COLUMN\s+)?\S+\s+(SET\s+DATA\s+)?TYPE\b/i.test(s)],
  ["SET NOT NULL", (s) => /\bSET\s+NOT\s+NULL\b/i.test(s)],
  [
    "ADD COLUMN ... NOT NULL without DEFAULT",
    (s) => /\bADD\s+COLUMN\b/i.test(s) && /\bNOT\s+NULL\b/i.test(s) && !/\bDEFAULT\b/i.test(s),
  ],
  ["TRUNCATE or DELETE", (s) => /^(TRUNCATE|DELETE)\b/i.test(s)],
];

/** The marker that makes a migration a contract step (docs/developers.md, "Upgrades"). */
export const CONTRACT_MARKER = /^--\s*contract:\s*\S/;

/** The statements of a migration file, without comments, one per entry. */
export function statements(sql: string): string[] {
  return sql
    .replace(/-->\s*statement-breakpoint/g, ";")
    .replace(/--[^\n]*/g, "")
    .split(";")
    .map((s) => s.replace(/\s+/g, " ").trim())
    .filter(Boolean);
}

/** Why a new migration would break the previous release's pods; empty when it only expands. */
export function contractProblems(sql: string): string[] {
  if (CONTRACT_MARKER.test(sql)) return [];
  return statements(sql).flatMap((s) =>
    CONTRACT_STATEMENTS.filter(([, test]) => test(s)).map(([rule]) => `${rule}: ${s}`),
  );
}
