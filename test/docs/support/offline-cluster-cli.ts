// The `kubectl` and `helm` a documentation test puts first on PATH (`node offline-cluster-cli.ts
// kubectl|helm <args>`): the guide's commands run unchanged without a cluster. What needs no
// server runs for real (kubectl client dry runs, and `helm template` for `helm install` and
// `helm upgrade`); what would change a cluster is recorded instead, one JSON line per command in
// OFFLINE_CLUSTER_LOG, with the objects it carried saved as files, so the test can replay what
// the cluster would hold. A small state file answers like a server would where a command depends
// on what exists (AlreadyExists, NotFound, a namespace or release that is missing). Anything else
// needs a real cluster and fails, naming the command. offline-cluster.ts sets it up.
import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";

/** One recorded command; `files` hold the YAML it applied or rendered, in order. */
export interface ClusterEvent {
  /** The guide block that ran the command (its blockLabel). */
  block: string;
  tool: "kubectl" | "helm";
  /** create, apply, replace, rollout-restart, rollout-status, install, upgrade, test */
  verb: string;
  namespace: string;
  files: string[];
  /** rollouts: `deployment/<name>`; helm: the release name. */
  target?: string;
  command: string;
}

interface State {
  namespaces: string[];
  /** `<namespace>/<Kind>/<name>` of every object created, applied or replaced. */
  objects: string[];
  /** `<namespace>/<release>` → its Deployments. */
  releases: Record<string, string[]>;
}

const env = process.env;
const dir = env.OFFLINE_CLUSTER_DIR!;
const statePath = join(dir, "state.json");
const command = process.argv.slice(2);
const [tool, ...args] = command as ["kubectl" | "helm", ...string[]];
const CLUSTER_SCOPED = new Set(["Namespace", "CustomResourceDefinition", "ClusterRole"]);

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

function readState(): State {
  return existsSync(statePath)
    ? (JSON.parse(readFileSync(statePath, "utf8")) as State)
    : { namespaces: ["default", "kube-system"], objects: [], releases: {} };
}

function record(event: Omit<ClusterEvent, "block" | "tool" | "command">): void {
  const full: ClusterEvent = {
    block: env.OFFLINE_CLUSTER_BLOCK ?? "?",
    tool,
    command: command.join(" "),
    ...event,
  };
  appendFileSync(env.OFFLINE_CLUSTER_LOG!, `${JSON.stringify(full)}\n`);
}

function saveFile(text: string): string {
  const file = join(dir, `object-${readdirSync(dir).length}.yaml`);
  writeFileSync(file, text);
  return file;
}

/** Splits `-n x`, `--namespace x`, `--namespace=x` out of the arguments. */
function takeNamespace(list: string[]): { namespace: string | undefined; rest: string[] } {
  const rest: string[] = [];
  let namespace: string | undefined;
  for (let i = 0; i < list.length; i++) {
    const a = list[i]!;
    if (a === "-n" || a === "--namespace") namespace = list[++i];
    else if (a.startsWith("--namespace=")) namespace = a.slice("--namespace=".length);
    else if (/^-n\S/.test(a)) namespace = a.slice(2);
    else rest.push(a);
  }
  return { namespace, rest };
}

/** The values of a repeatable flag (`-f a -f b`, `--filename=a`). */
function flagValues(list: string[], names: string[]): string[] {
  const values: string[] = [];
  for (let i = 0; i < list.length; i++) {
    const a = list[i]!;
    const eq = names.find((n) => a.startsWith(`${n}=`));
    if (eq) values.push(a.slice(eq.length + 1));
    else if (names.includes(a)) values.push(list[++i]!);
  }
  return values;
}

/** The text of `-f` sources: `-` is stdin, a folder is its YAML and JSON files. */
function readSources(sources: string[]): string[] {
  const texts: string[] = [];
  for (const source of sources) {
    if (source === "-") texts.push(readFileSync(0, "utf8"));
    else if (!existsSync(source)) fail(`error: the path "${source}" does not exist`);
    else if (statSync(source).isDirectory()) {
      for (const name of readdirSync(source).sort())
        if (/\.(ya?ml|json)$/.test(name)) texts.push(readFileSync(join(source, name), "utf8"));
    } else texts.push(readFileSync(source, "utf8"));
  }
  return texts;
}

type Meta = { kind?: string; metadata?: { name?: string; namespace?: string } };

/** Records objects the way the API server would take them; fails like it for create/replace. */
function store(verb: "create" | "apply" | "replace", namespace: string, texts: string[]): void {
  const state = readState();
  const files: string[] = [];
  for (const text of texts) {
    for (const doc of parseAllDocuments(text)) {
      const obj = doc.toJS() as Meta | null;
      if (!obj?.kind || !obj.metadata?.name) continue;
      const ns = CLUSTER_SCOPED.has(obj.kind) ? "" : (obj.metadata.namespace ?? namespace);
      if (ns !== "" && !state.namespaces.includes(ns))
        fail(`Error from server (NotFound): namespaces "${ns}" not found`);
      const key = `${ns}/${obj.kind}/${obj.metadata.name}`;
      const exists = state.objects.includes(key);
      if (verb === "create" && exists)
        fail(
          `Error from server (AlreadyExists): ${obj.kind} "${obj.metadata.name}" already exists`,
        );
      if (verb === "replace" && !exists)
        fail(`Error from server (NotFound): ${obj.kind} "${obj.metadata.name}" not found`);
      if (!exists) state.objects.push(key);
      if (obj.kind === "Namespace" && !state.namespaces.includes(obj.metadata.name))
        state.namespaces.push(obj.metadata.name);
      console.log(
        `${obj.kind.toLowerCase()}/${obj.metadata.name} ${verb === "create" ? "created" : "configured"}`,
      );
    }
    files.push(saveFile(text));
  }
  writeFileSync(statePath, JSON.stringify(state));
  record({ verb, namespace, files });
}

function kubectl(): void {
  const { namespace = "default", rest } = takeNamespace(args);
  const verb = rest[0];
  const sources = flagValues(rest, ["-f", "--filename"]);
  const dryRun = rest.some((a) => a === "--dry-run=client");
  if (verb === "create" && dryRun) {
    // Needs no server: the real kubectl prints the object.
    execFileSync(env.OFFLINE_CLUSTER_KUBECTL!, args, { stdio: "inherit" });
    return;
  }
  if (verb === "create" && sources.length === 0) {
    // `kubectl create secret ...` without a dry run: what the real one would send, recorded.
    const text = execFileSync(
      env.OFFLINE_CLUSTER_KUBECTL!,
      [...args, "--dry-run=client", "-o", "yaml"],
      {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    return store("create", namespace, [text]);
  }
  if ((verb === "create" || verb === "apply" || verb === "replace") && sources.length > 0)
    return store(verb, namespace, readSources(sources));
  if (verb === "rollout" && (rest[1] === "restart" || rest[1] === "status")) {
    const target = rest[2] ?? "";
    const [kind, name] = target.split("/");
    const deployments = Object.entries(readState().releases)
      .filter(([key]) => key.startsWith(`${namespace}/`))
      .flatMap(([, names]) => names);
    if (!/^deployments?(\.apps)?$/.test(kind ?? "") || !deployments.includes(name ?? ""))
      fail(
        `Error from server (NotFound): deployments.apps "${name ?? target}" not found in namespace ${namespace}`,
      );
    console.log(
      `deployment.apps/${name} ${rest[1] === "restart" ? "restarted" : "successfully rolled out"}`,
    );
    return record({ verb: `rollout-${rest[1]}`, namespace, files: [], target });
  }
  fail(`kubectl ${args.join(" ")}: needs a cluster; the documentation tests cannot run it`);
}

// Flags `helm upgrade` has and `helm template` does not; they change nothing in what is rendered.
const UPGRADE_ONLY = new Set(["--install", "-i", "--cleanup-on-fail", "--force"]);
const UPGRADE_ONLY_WITH_VALUE = new Set(["--history-max"]);

function helm(): void {
  const { namespace = "default", rest } = takeNamespace(args);
  const [verb, release = "", chart] = rest;
  const state = readState();
  const key = `${namespace}/${release}`;
  if (verb === "test") {
    if (!state.releases[key]) fail(`Error: release: not found`);
    console.log(`TEST SUITE: ${release}-test-health (rendered offline)`);
    return record({ verb, namespace, files: [], target: release });
  }
  if ((verb !== "install" && verb !== "upgrade") || !chart)
    fail(`helm ${args.join(" ")}: needs a cluster; the documentation tests cannot run it`);
  if (rest.includes("--reuse-values") || rest.includes("--reset-then-reuse-values"))
    fail(
      "helm upgrade --reuse-values: the values live in the cluster; the tests cannot render them",
    );
  if (verb === "install" && state.releases[key])
    fail(`Error: INSTALLATION FAILED: cannot re-use a name that is still in use`);
  if (
    verb === "upgrade" &&
    !state.releases[key] &&
    !rest.includes("--install") &&
    !rest.includes("-i")
  )
    fail(`Error: UPGRADE FAILED: "${release}" has no deployed releases`);
  if (!state.namespaces.includes(namespace) && !rest.includes("--create-namespace"))
    fail(
      `Error: INSTALLATION FAILED: create: failed to create: namespaces "${namespace}" not found`,
    );
  const flags: string[] = [];
  for (let i = 3; i < rest.length; i++) {
    if (UPGRADE_ONLY.has(rest[i]!)) continue;
    if (UPGRADE_ONLY_WITH_VALUE.has(rest[i]!)) i++;
    else flags.push(rest[i]!);
  }
  const rendered = execFileSync(
    env.OFFLINE_CLUSTER_HELM!,
    [
      "template",
      release,
      chart,
      "--namespace",
      namespace,
      ...(flags.some((f) => f.startsWith("--kube-version"))
        ? []
        : ["--kube-version", env.OFFLINE_CLUSTER_KUBE_VERSION!]),
      ...(verb === "upgrade" ? ["--is-upgrade"] : []),
      ...flags,
    ],
    { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 32 * 1024 * 1024 },
  );
  state.releases[key] = parseAllDocuments(rendered)
    .map((d) => d.toJS() as Meta | null)
    .filter((o) => o?.kind === "Deployment")
    .map((o) => o!.metadata!.name!);
  if (!state.namespaces.includes(namespace)) state.namespaces.push(namespace);
  writeFileSync(statePath, JSON.stringify(state));
  console.log(`NAME: ${release}\nNAMESPACE: ${namespace}\nSTATUS: deployed (rendered offline)`);
  record({ verb, namespace, files: [saveFile(rendered)], target: release });
}

try {
  if (tool === "kubectl") kubectl();
  else if (tool === "helm") helm();
  else fail(`offline-cluster-cli: unknown tool ${String(tool)}`);
} catch (err) {
  // A real kubectl or helm failed; it has said why on stderr.
  process.exit((err as { status?: number }).status ?? 1);
}
