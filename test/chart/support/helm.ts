// Runs the offline helm commands CI relies on (lint, template) and parses what they render.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { parse, parseAllDocuments } from "yaml";
import { k8sTools } from "@svc/testing";

const run = promisify(execFile);

export const repoRoot = resolve(import.meta.dirname, "../../..");
export const chartDir = join(repoRoot, "charts/integration-service");
export const valuesDir = join(import.meta.dirname, "../values");
/** The Kubernetes version the chart is linted and rendered for (the bundled kubectl's minor). */
export const kubeVersion = "1.34.0";
/** Release name used for every render; the dev render uses the Tiltfile's RELEASE instead. */
export const release = "isvc";

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [key: string]: unknown;
}

export interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function helm(args: string[]): Promise<HelmResult> {
  try {
    const { stdout, stderr } = await run(k8sTools().helm, args, {
      cwd: repoRoot,
      maxBuffer: 32 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof e.code === "number" ? e.code : 1,
      stdout: e.stdout ?? "",
      stderr: e.stderr ?? String(err),
    };
  }
}

/**
 * `-f` arguments for value files named relative to test/chart/values/ (absolute paths pass
 * through).
 */
export function valueArgs(files: string[]): string[] {
  return files.flatMap((f) => ["-f", f.startsWith("/") ? f : join(valuesDir, f)]);
}

/** Parses a multi-document YAML stream into objects, dropping empty documents. */
export function parseObjects(text: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`YAML error: ${doc.errors[0]?.message}`);
      return doc.toJS({ maxAliasCount: 100 }) as K8sObject | null;
    })
    .filter((o): o is K8sObject => o !== null && typeof o === "object");
}

/**
 * `helm template` of the chart (with CRDs and test hooks), parsed; throws with helm's message on
 * failure. Without files: the default value set.
 */
export function render(
  files: string[] = valueSets.default,
  extra: string[] = [],
  name = release,
): Promise<K8sObject[]> {
  return renderChartAt(chartDir, files, extra, name);
}

/** render() of the chart in another directory (an earlier version of it). */
export async function renderChartAt(
  chart: string,
  files: string[],
  extra: string[] = [],
  name = release,
): Promise<K8sObject[]> {
  const result = await helm([
    "template",
    name,
    chart,
    "--namespace",
    "integration",
    "--kube-version",
    kubeVersion,
    "--include-crds",
    ...valueArgs(files),
    ...extra,
  ]);
  if (result.code !== 0) throw new Error(`helm template failed: ${result.stderr}`);
  return parseObjects(result.stdout);
}

/**
 * The value sets CI renders, each a list of files layered over values.yaml. "default" adds only
 * what values.yaml cannot know and every installation sets (api-server.yaml).
 */
export const valueSets = {
  default: ["api-server.yaml"] as string[],
  production: ["production.yaml"],
  sandbox: ["sandbox.yaml"],
  "ingress-tls": ["production.yaml", "ingress-tls.yaml"],
  hpa: ["production.yaml", "hpa.yaml"],
  // The Tiltfile adds the cluster's API server endpoints to values-dev.yaml.
  dev: [join(chartDir, "values-dev.yaml"), "api-server.yaml"],
} satisfies Record<string, string[]>;

export function byKind(objects: K8sObject[], kind: string): K8sObject[] {
  return objects.filter((o) => o.kind === kind);
}

type Values = Record<string, unknown>;

function isMapping(v: unknown): v is Values {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Helm's merge of value files: mappings merge key by key, anything else replaces. */
function mergeValues(base: Values, over: Values): Values {
  const out: Values = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    out[key] = isMapping(current) && isMapping(value) ? mergeValues(current, value) : value;
  }
  return out;
}

/** The values a render with these files sees: values.yaml with each file merged over it. */
export function mergedValues(files: string[]): Values {
  const paths = [join(chartDir, "values.yaml"), ...valueArgs(files).filter((a) => a !== "-f")];
  return paths.reduce<Values>(
    (acc, path) => mergeValues(acc, (parse(readFileSync(path, "utf8")) as Values | null) ?? {}),
    {},
  );
}
