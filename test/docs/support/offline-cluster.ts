// Runs a guide's tested blocks the way a reader would, from the root of a checkout, against no
// cluster: `kubectl` and `helm` on PATH are offline-cluster-cli.ts, which runs client dry runs and
// `helm template` for real and records every command that would change a cluster. The result is
// the list of those commands, to replay (release-check.ts).
import { execFile } from "node:child_process";
import {
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  chmodSync,
  mkdirSync,
  existsSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { transformSync } from "esbuild";
import { parseAllDocuments } from "yaml";
import { k8sTools } from "@svc/testing";
import { blockLabel, fencedBlocks, tagValue } from "./markdown.ts";
import type { ClusterEvent } from "./offline-cluster-cli.ts";

export type { ClusterEvent };

const run = promisify(execFile);
const CLI = join(import.meta.dirname, "offline-cluster-cli.ts");
/** What a reader's checkout offers the commands: the chart, and `npm run` of the workspaces. */
const CHECKOUT = ["package.json", "node_modules", "services", "shared", "charts", "tools"];
/** The Kubernetes version `helm template` renders for (the bundled kubectl's minor). */
export const KUBE_VERSION = "1.34.0";

export interface GuideRun {
  /** What the cluster would have been asked to do, in order. */
  events: ClusterEvent[];
  /** A block that failed (non-zero exit, or a tested block nothing knows how to run), with its output. */
  failure?: string;
  /** The labels of the tested blocks that ran. */
  ran: string[];
  /** Reads a recorded object file. */
  objects(file: string): Array<Record<string, unknown>>;
  /** Removes the working directory. */
  cleanup(): void;
}

// A cluster that cannot be reached, so a command that slips past the fake never talks to a real one.
const KUBECONFIG = `apiVersion: v1
kind: Config
clusters:
  - name: offline
    cluster:
      server: https://127.0.0.1:1
contexts:
  - name: offline
    context:
      cluster: offline
      user: offline
current-context: offline
users:
  - name: offline
    user:
      token: offline
`;

/**
 * Runs every tested block of `file` in order in a fresh working directory: `yaml tested
 * file=<name>` blocks are written to <name>, `sh tested` blocks run with `bash -euo pipefail` and
 * `env` (the variables the guide tells the reader to set). Stops at the first failing block.
 */
export async function runGuide(
  file: string,
  options: { root: string; env: Record<string, string> },
): Promise<GuideRun> {
  const { helm, kubectl } = k8sTools();
  const work = mkdtempSync(join(tmpdir(), "docs-guide-"));
  const state = join(work, ".offline-cluster");
  const bin = join(state, "bin");
  mkdirSync(bin, { recursive: true });
  for (const entry of CHECKOUT) symlinkSync(join(options.root, entry), join(work, entry));
  // The fake runs as plain JavaScript: a node start without type stripping takes half the time,
  // and the guides call it dozens of times. Its packages resolve from here, not from the copy.
  const cli = join(state, "offline-cluster-cli.mjs");
  const js = transformSync(readFileSync(CLI, "utf8"), { loader: "ts", format: "esm" }).code;
  writeFileSync(
    cli,
    js.replace(/from "([^".][^"]*)"/g, (whole, spec: string) =>
      spec.startsWith("node:") ? whole : `from ${JSON.stringify(import.meta.resolve(spec))}`,
    ),
  );
  // A client dry run needs no server: straight to the real kubectl (a node start saved each time).
  const dryRun = `for a in "$@"; do [ "$a" = --dry-run=client ] && exec "${kubectl}" "$@"; done\n`;
  for (const tool of ["kubectl", "helm"]) {
    const shim = join(bin, tool);
    const fast = tool === "kubectl" ? dryRun : "";
    writeFileSync(shim, `#!/bin/sh\n${fast}exec "${process.execPath}" "${cli}" ${tool} "$@"\n`);
    chmodSync(shim, 0o755);
  }
  writeFileSync(join(state, "kubeconfig"), KUBECONFIG);
  const log = join(state, "commands.jsonl");
  const baseEnv = {
    ...process.env,
    ...options.env,
    PATH: `${bin}:${process.env.PATH ?? ""}`,
    KUBECONFIG: join(state, "kubeconfig"),
    OFFLINE_CLUSTER_DIR: state,
    OFFLINE_CLUSTER_LOG: log,
    OFFLINE_CLUSTER_KUBECTL: kubectl,
    OFFLINE_CLUSTER_HELM: helm,
    OFFLINE_CLUSTER_KUBE_VERSION: KUBE_VERSION,
  };
  const ran: string[] = [];
  let failure: string | undefined;
  for (const block of fencedBlocks(file).filter((b) => b.tags.includes("tested"))) {
    const label = blockLabel(block, options.root);
    ran.push(label);
    const target = tagValue(block, "file");
    if (target !== undefined) {
      writeFileSync(join(work, target), block.code.endsWith("\n") ? block.code : `${block.code}\n`);
      continue;
    }
    if (block.lang !== "sh") {
      failure = `${label}: a tested ${block.lang} block needs file=<name> (or is not a shell block)`;
      break;
    }
    try {
      await run("bash", ["-euo", "pipefail", "-c", block.code], {
        cwd: work,
        env: { ...baseEnv, OFFLINE_CLUSTER_BLOCK: label },
        maxBuffer: 16 * 1024 * 1024,
      });
    } catch (err) {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      failure =
        `${label}: exited with ${String(e.code)}\n${e.stderr ?? ""}${e.stdout ?? ""}`.trim();
      break;
    }
  }
  const events = existsSync(log)
    ? readFileSync(log, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as ClusterEvent)
    : [];
  return {
    events,
    ran,
    ...(failure !== undefined && { failure }),
    objects: (f) =>
      parseAllDocuments(readFileSync(f, "utf8"))
        .map((d) => d.toJS() as Record<string, unknown> | null)
        .filter((o): o is Record<string, unknown> => o !== null && typeof o === "object"),
    cleanup: () => rmSync(work, { recursive: true, force: true }),
  };
}
