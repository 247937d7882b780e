import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { LAYERS, TOOLING_PACKAGES } from "./dependency-rules.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

type Workspace = {
  dir: string;
  name: string;
  dependencies: ReadonlySet<string>;
  devDependencies: ReadonlySet<string>;
};

function workspaces(): Workspace[] {
  return ["shared", "services"].flatMap((top) =>
    readdirSync(join(ROOT, top))
      .map((d) => join(top, d))
      .filter((dir) => existsSync(join(ROOT, dir, "package.json")))
      .map((dir) => {
        const manifest = JSON.parse(readFileSync(join(ROOT, dir, "package.json"), "utf8")) as {
          name: string;
          dependencies?: Record<string, string>;
          devDependencies?: Record<string, string>;
        };
        return {
          dir,
          name: manifest.name,
          dependencies: new Set(Object.keys(manifest.dependencies ?? {})),
          devDependencies: new Set(Object.keys(manifest.devDependencies ?? {})),
        };
      }),
  );
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((entry) => {
    if (entry === "node_modules" || entry === "drizzle") return [];
    const path = join(dir, entry);
    if (statSync(join(ROOT, path)).isDirectory()) return sourceFiles(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

/** Module specifiers a file imports, re-exports or loads dynamically (not text inside strings). */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(join(ROOT, file), "utf8"), true, true);
  return info.importedFiles.map((f) => f.fileName);
}

/** Test, benchmark and test-support files: they may use devDependencies and tooling packages. */
function isTestOrBench(file: string, workspaceDir: string): boolean {
  const inside = relative(workspaceDir, file).split(sep);
  return inside[0] === "test" || inside[0] === "bench" || file.endsWith(".test.ts");
}

const layerOf = new Map(LAYERS.flatMap((layer, i) => layer.packages.map((p) => [p, i] as const)));

function packageOf(specifier: string): string | undefined {
  const match = /^(@svc|@services)\/[^/]+/.exec(specifier);
  return match?.[0];
}

/** Every rule broken by one workspace, as lines that name the file and the rule. */
export function violations(ws: Workspace): string[] {
  const found: string[] = [];
  const isService = ws.name.startsWith("@services/");
  if (!isService && !layerOf.has(ws.name))
    found.push(`${ws.dir}: ${ws.name} is in no layer of test/architecture/dependency-rules.ts`);
  for (const file of sourceFiles(ws.dir)) {
    const testOrBench = isTestOrBench(file, ws.dir);
    for (const specifier of importsOf(file)) {
      if (specifier.startsWith(".")) {
        const target = resolve(ROOT, dirname(file), specifier);
        if (!target.startsWith(join(ROOT, ws.dir) + sep))
          found.push(`${file}: imports ${specifier}, outside its workspace ${ws.dir}`);
        continue;
      }
      const pkg = packageOf(specifier);
      if (pkg === undefined || pkg === ws.name) continue;
      if (pkg.startsWith("@services/")) {
        found.push(`${file}: imports ${pkg}; a workspace never imports a service`);
        continue;
      }
      const declared = testOrBench
        ? ws.dependencies.has(pkg) || ws.devDependencies.has(pkg)
        : ws.dependencies.has(pkg);
      if (!declared)
        found.push(
          `${file}: imports ${pkg}, not in ${ws.dir}/package.json ${testOrBench ? "dependencies or devDependencies" : "dependencies"}`,
        );
      if (!testOrBench && TOOLING_PACKAGES.has(pkg) && !TOOLING_PACKAGES.has(ws.name))
        found.push(`${file}: imports ${pkg}, which only tests and benchmarks may use`);
      const own = layerOf.get(ws.name);
      const theirs = layerOf.get(pkg);
      if (theirs === undefined)
        found.push(`${file}: imports ${pkg}, which is in no layer of dependency-rules.ts`);
      else if (!isService && own !== undefined && !testOrBench && theirs >= own)
        found.push(
          `${file}: ${ws.name} (layer "${LAYERS[own]!.name}") may not import ${pkg} (layer "${LAYERS[theirs]!.name}")`,
        );
    }
  }
  return found;
}

describe("the dependency graph of the workspaces", () => {
  const all = workspaces();

  it.each(all.map((ws) => [ws.name, ws] as const))(
    "%s imports only what its layer and package.json allow",
    (_name, ws) => {
      expect(violations(ws)).toEqual([]);
    },
  );

  it("flags a platform package that imports a higher one, a service, or a path outside itself", () => {
    const db = all.find((ws) => ws.name === "@svc/db")!;
    const broken = { ...db, dependencies: new Set([...db.dependencies, "@svc/http"]) };
    const probe = join(ROOT, db.dir, "src", "__layering-probe.ts");
    const text = [
      'import "@svc/http";',
      'import "@services/vacancies";',
      'import "../../../tools/stack.ts";',
      "",
    ].join("\n");
    ts.sys.writeFile(probe, text);
    try {
      const lines = violations(broken).filter((line) => line.includes("__layering-probe.ts"));
      expect(lines).toEqual([
        expect.stringContaining('may not import @svc/http (layer "HTTP and leadership")'),
        expect.stringContaining("a workspace never imports a service"),
        expect.stringContaining("outside its workspace shared/db"),
      ]);
    } finally {
      ts.sys.deleteFile?.(probe);
    }
  });
});
