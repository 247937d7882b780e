// The portal's production build (Vite) into packages/portal/dist/, which the webhooks service
// serves at /portal/ and the image copies (`npm run build`, `npm start` and the image build run
// it). It is skipped when nothing it reads changed since the last build (a digest of its inputs
// beside dist/), and, as @svc/build does for the bundles, each output file is replaced atomically
// and only when it changed, index.html last, so a server reading dist/ meanwhile never sees a
// page whose scripts are missing.
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { writeIfChanged } from "@svc/build";

const PORTAL_DIR = fileURLToPath(new URL("../..", import.meta.url));
/** The built files, relative to the repository root. */
export const PORTAL_DIST = "packages/portal/dist";

export interface PortalBuild {
  /** Output files, relative to the repository root. */
  files: string[];
  written: string[];
  removed: string[];
  /** True when the inputs had not changed and nothing was built. */
  upToDate: boolean;
  ms: number;
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** A digest of everything the build reads: the sources and the config. */
function inputsDigest(root: string): string {
  const portal = join(root, "packages/portal");
  const inputs = [
    ...listFiles(join(portal, "src")),
    ...listFiles(join(portal, "public")),
    join(portal, "index.html"),
    join(portal, "vite.config.ts"),
    join(portal, "package.json"),
  ];
  const hash = createHash("sha256");
  for (const file of inputs) {
    hash.update(relative(root, file)).update("\0");
    hash.update(readFileSync(file)).update("\0");
  }
  return hash.digest("hex");
}

export async function buildPortal(
  options: { root?: string; force?: boolean } = {},
): Promise<PortalBuild> {
  const root = options.root ?? join(PORTAL_DIR, "../..");
  const started = performance.now();
  const portal = join(root, "packages/portal");
  const dist = join(root, PORTAL_DIST);
  const stamp = join(portal, "node_modules/.portal-build-digest");
  const digest = inputsDigest(root);
  const files = () => listFiles(dist).map((f) => relative(root, f));
  const ms = () => Math.round(performance.now() - started);
  if (
    options.force !== true &&
    existsSync(join(dist, "index.html")) &&
    existsSync(stamp) &&
    readFileSync(stamp, "utf8") === digest
  )
    return { files: files(), written: [], removed: [], upToDate: true, ms: ms() };

  const { build } = await import("vite");
  const out = join(portal, `node_modules/.portal-build-${randomBytes(6).toString("hex")}`);
  try {
    await build({
      root: portal,
      configFile: join(portal, "vite.config.ts"),
      logLevel: "error",
      build: { outDir: out, emptyOutDir: true },
    });
    const built = listFiles(out).map((f) => relative(out, f));
    // Scripts and styles first, the page that names them last.
    built.sort((a, b) => Number(a === "index.html") - Number(b === "index.html"));
    const written: string[] = [];
    for (const file of built) {
      if (writeIfChanged(join(dist, file), readFileSync(join(out, file))))
        written.push(join(PORTAL_DIST, file));
    }
    const keep = new Set(built.map((f) => join(dist, f)));
    const removed: string[] = [];
    for (const file of listFiles(dist)) {
      if (keep.has(file)) continue;
      rmSync(file, { force: true });
      removed.push(relative(root, file));
    }
    mkdirSync(dirname(stamp), { recursive: true });
    writeFileSync(stamp, digest);
    return { files: files(), written, removed, upToDate: false, ms: ms() };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
