// The build of `npm run build` (tools/build.ts): compiles every process the image runs into plain
// JavaScript bundles under dist/ (@svc/manifest says which and where each one goes). Production,
// `npm start` and the benchmarks run these; `npm run dev` and the tests run the TypeScript sources.
//
// Why bundles rather than Node's type stripping at run time: stripping loads a WebAssembly
// compiler into every process (18 MB resident, measured: README "Runtime and toolchain"), and one
// file per process starts faster than ~300 modules. What esbuild does here:
// - the project's own code (the services and the @svc/* workspaces) goes into the bundle;
//   installed packages stay external and load from node_modules as before (OpenTelemetry patches
//   them as they load, and native addons such as argon2 cannot be bundled);
// - entry points of one build share chunks (dist/chunks/), so a module that a preload and its
//   main both import (@svc/telemetry) is still one module instance, and dynamic imports (the
//   operator, the Kubernetes lease elector) still load only when used;
// - `import.meta.url` keeps meaning the source file's location, so files found relative to the
//   source (migrations, the route table, the OpenAPI document, the version) are found as before.
// The output is deterministic and each file is replaced atomically only when it changed, so
// several launchers building at once (the system tests do) never see a half-written bundle.
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join, posix, relative } from "node:path";
import { build as esbuild, stop as stopEsbuild, type Plugin } from "esbuild";
import { bundlePath, DIST_DIR, ENTRY_POINTS, REPO_ROOT } from "@svc/manifest";
import { writeIfChanged } from "./write-if-changed.ts";

export interface BuildResult {
  /** Output files, relative to the repository root. */
  files: string[];
  /** Of those, the ones whose content changed (and were written). */
  written: string[];
  /** Stale files removed from the output folder (only with `prune`). */
  removed: string[];
  ms: number;
}

/** Bare imports other than the project's own workspaces (@svc/*) load from node_modules. */
const installedPackagesExternal: Plugin = {
  name: "installed-packages-external",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith("@svc/") ? undefined : { path: args.path, external: true },
    );
  },
};

/**
 * Rewrites `import.meta.url` in the project's own modules to the URL of the source file the code
 * came from, computed from the bundle's own URL at run time (every output file is two folders
 * below the repository root), so the bundle is relocatable with the repository.
 */
function sourceLocatedImportMeta(root: string): Plugin {
  return {
    name: "source-located-import-meta",
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        if (args.path.includes("/node_modules/")) return undefined;
        const source = readFileSync(args.path, "utf8");
        if (!source.includes("import.meta.url")) return undefined;
        const fromBundle = posix.join("../..", relative(root, args.path).split("\\").join("/"));
        return {
          contents: source.replaceAll(
            "import.meta.url",
            `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`,
          ),
          loader: "ts",
        };
      });
    },
  };
}

function listFiles(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name));
  } catch {
    return [];
  }
}

/**
 * Bundles every entry point of the manifest into dist/ under `root` (the repository by default);
 * `prune` also removes the files there that this build did not produce.
 */
export async function build(
  options: { root?: string; prune?: boolean } = {},
): Promise<BuildResult> {
  const root = options.root ?? REPO_ROOT;
  const started = performance.now();
  const outdir = join(root, DIST_DIR);
  const entryPoints = ENTRY_POINTS.map((entry) => ({
    in: join(root, entry),
    out: bundlePath(entry)
      .slice(DIST_DIR.length + 1)
      .replace(/\.js$/, ""),
  }));
  const outs = new Set(entryPoints.map((e) => e.out));
  if (outs.size !== entryPoints.length)
    throw new Error("two entry points map to the same bundle (@svc/manifest bundles.ts)");
  const result = await esbuild({
    absWorkingDir: root,
    entryPoints,
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node24",
    chunkNames: "chunks/[name]-[hash]",
    sourcemap: "linked",
    sourcesContent: false,
    // Class and function names stay what the sources say (error names, log fields).
    keepNames: true,
    legalComments: "none",
    logLevel: "silent",
    write: false,
    metafile: true,
    plugins: [installedPackagesExternal, sourceLocatedImportMeta(root)],
  }).finally(() => {
    // esbuild's API keeps a child process (its service) until stopped; the launcher's children
    // are its service processes only, and tests count them.
    void stopEsbuild();
  });
  for (const [output, meta] of Object.entries(result.metafile.outputs)) {
    const stray = meta.imports.filter(
      (i) => i.external && (i.path.startsWith("@svc/") || i.path.endsWith(".ts")),
    );
    if (stray.length > 0)
      throw new Error(`${output} still imports TypeScript: ${stray.map((i) => i.path).join(", ")}`);
  }
  const files: string[] = [];
  const written: string[] = [];
  for (const file of result.outputFiles) {
    const rel = relative(root, file.path);
    files.push(rel);
    if (writeIfChanged(file.path, file.contents)) written.push(rel);
  }
  const removed: string[] = [];
  if (options.prune === true) {
    const keep = new Set(result.outputFiles.map((f) => f.path));
    for (const file of listFiles(outdir)) {
      if (keep.has(file)) continue;
      rmSync(file, { force: true });
      removed.push(relative(root, file));
    }
  }
  return { files, written, removed, ms: Math.round(performance.now() - started) };
}
