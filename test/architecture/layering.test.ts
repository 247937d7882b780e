import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { LAYERS, TOOLING_PACKAGES } from "./dependency-rules.ts";
import { folderViolations, importsIn, type SourceFile } from "./service-folders.ts";

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

function importsOf(file: string): string[] {
  return importsIn(readFileSync(join(ROOT, file), "utf8"));
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

describe("the folders inside every service", () => {
  const services = workspaces().filter((ws) => ws.name.startsWith("@services/"));

  it.each(services.map((ws) => [ws.dir, ws] as const))(
    "%s/src imports only what its folder may",
    (_dir, ws) => {
      const files: SourceFile[] = sourceFiles(join(ws.dir, "src")).map((path) => ({
        path: path.split(sep).join("/"),
        text: readFileSync(join(ROOT, path), "utf8"),
      }));
      expect(files.length).toBeGreaterThan(0);
      expect(folderViolations(ws.dir, files)).toEqual([]);
    },
  );

  it("names the file, the import and the rule for each broken folder rule", () => {
    const src = "services/demo/src";
    const file = (path: string, ...lines: string[]) => ({
      path: `${src}/${path}`,
      text: lines.join("\n"),
    });
    const files: SourceFile[] = [
      file(
        "domain/rule.ts",
        'import { guard } from "../outbound/url-guard.ts";',
        'import type { DateOrInstant } from "@svc/http";',
        'import type { Msg } from "@nats-io/transport-node";',
        'import { errors } from "@svc/errors";',
        'import { model } from "./model.ts";',
        'const store = await import("../store/pg-store.ts");',
      ),
      file("store/pg-store.ts", 'export { feed } from "../source/feed.ts";', 'import "pg";'),
      file("http/router.ts", 'import "../domain/rule.ts";', 'import "../messaging/queue.ts";'),
      file("workers/relay.ts", 'import { config } from "../config.ts";'),
      file(
        "workers/relay/start-relay.ts",
        'import "../../store/pg-store.ts";',
        'import "../../config.ts";',
      ),
      file("main.ts", 'import "./store/pg-store.ts";', 'import "./outbound/client.ts";'),
      file("cli/tool.ts", 'import "../store/pg-store.ts";'),
      file("domain/rule.test.ts", 'import "../store/pg-store.ts";'),
      file("outbound/client.ts", 'import "../../test/support/receiver.ts";'),
      file("helpers/clock.ts", 'import "../domain/rule.ts";'),
    ];
    expect(folderViolations("services/demo", files)).toEqual([
      `${src}/domain/rule.ts imports ../outbound/url-guard.ts: domain may not import outbound (domain owns its ports; adapters implement them)`,
      `${src}/domain/rule.ts imports @svc/http: domain may not import @svc/http (the domain stays free of transport and storage; adapters bring them)`,
      `${src}/domain/rule.ts imports @nats-io/transport-node: domain may not import @nats-io/transport-node (the domain stays free of transport and storage; adapters bring them)`,
      `${src}/domain/rule.ts imports ../store/pg-store.ts: domain may not import store (domain owns its ports; adapters implement them)`,
      `${src}/store/pg-store.ts imports ../source/feed.ts: store may not import source (an adapter implements domain ports, not another adapter)`,
      `${src}/http/router.ts imports ../messaging/queue.ts: http may not import messaging (http calls the domain; the domain reaches adapters through its ports)`,
      `${src}/workers/relay.ts imports ../config.ts: workers may not import config.ts (a composition root: configuration and dependencies reach workers as parameters)`,
      `${src}/outbound/client.ts imports ../../test/support/receiver.ts: outbound may not import outside src/ (tests and benchmarks import src/, not the reverse)`,
      `${src}/helpers/clock.ts: src/helpers/ is no folder of SERVICE_FOLDERS in dependency-rules.ts`,
    ]);
  });
});
