import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { registerHooks, type ResolveHookContext, type ResolveFnOutput } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

type ModuleFormat = "module" | "commonjs";

/**
 * Resolves relative `import`s between the files of installed packages, finding each file's format
 * from the nearest package.json once per folder: Node 24's ESM loader deserialises that
 * package.json again for every module it loads. Why: docs/decisions/process-runtime-settings.md.
 *
 * Only what Node itself would do: a relative specifier with an explicit .js/.mjs/.cjs extension,
 * from a file under node_modules, that names an existing file. Anything else (bare specifiers, our
 * own sources, require(), missing files, other extensions) goes to Node's own resolution.
 */
export function registerEsmFormatCache(): void {
  const typeOfFolder = new Map<string, ModuleFormat | undefined>();
  registerHooks({
    resolve(specifier: string, context: ResolveHookContext, nextResolve): ResolveFnOutput {
      const resolved = resolveInsidePackage(specifier, context);
      const format = resolved === undefined ? undefined : formatOf(resolved, typeOfFolder);
      if (resolved === undefined || format === undefined) return nextResolve(specifier, context);
      return { url: pathToFileURL(resolved).href, format, shortCircuit: true };
    },
  });
}

const RELATIVE = /^\.\.?\//;
const EXTENSION = /\.(?:m|c)?js$/;

/** The real path a relative ESM import inside an installed package names; else undefined. */
function resolveInsidePackage(specifier: string, context: ResolveHookContext): string | undefined {
  const parent = context.parentURL;
  if (
    !RELATIVE.test(specifier) ||
    !EXTENSION.test(specifier) ||
    !parent?.startsWith("file:") ||
    !parent.includes("/node_modules/")
  )
    return undefined;
  if (!context.conditions.includes("import")) return undefined;
  if (/[%?#\\]/.test(specifier)) return undefined;
  const path = fileURLToPath(new URL(specifier, parent));
  try {
    return statSync(path).isFile() ? realpathSync(path) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A file's format as Node decides it: by extension, else by the `type` of the nearest package.json.
 * Undefined when that package.json has no `type` (Node then detects the syntax) or cannot be read.
 */
function formatOf(
  path: string,
  cache: Map<string, ModuleFormat | undefined>,
): ModuleFormat | undefined {
  if (path.endsWith(".mjs")) return "module";
  if (path.endsWith(".cjs")) return "commonjs";
  return packageType(dirname(path), cache);
}

function packageType(
  folder: string,
  cache: Map<string, ModuleFormat | undefined>,
): ModuleFormat | undefined {
  if (cache.has(folder)) return cache.get(folder);
  const manifest = join(folder, "package.json");
  let type: ModuleFormat | undefined;
  if (existsSync(manifest)) {
    try {
      const declared = (JSON.parse(readFileSync(manifest, "utf8")) as { type?: unknown }).type;
      type = declared === "module" || declared === "commonjs" ? declared : undefined;
    } catch {
      type = undefined;
    }
  } else {
    // Node's lookup stops at a node_modules folder and the file system root.
    const parent = dirname(folder);
    type =
      parent === folder || folder.endsWith("/node_modules")
        ? undefined
        : packageType(parent, cache);
  }
  cache.set(folder, type);
  return type;
}
