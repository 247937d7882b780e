/**
 * The routes an express router registers, read from its stack (express 5), as
 * `METHOD /openapi/{path}`.
 * Fallback `.all()` routes (405 answers) are not operations and are left out.
 */
import type { Router } from "express";

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** `/v1/vacancies/:uuid` → `/v1/vacancies/{uuid}`; `accounts\:bulk` → `accounts:bulk`. */
function openApiPath(expressPath: string): string {
  return expressPath.replace(/(?<!\\):([A-Za-z0-9_]+)/g, "{$1}").replace(/\\:/g, ":");
}

export function registeredRoutes(router: Router | { router: Router }): string[] {
  const stack = ("router" in router ? router.router : router).stack as unknown as Layer[];
  const found: string[] = [];
  const walk = (layers: Layer[]) => {
    for (const layer of layers) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        const methods = Object.keys(layer.route.methods).filter((m) => m !== "_all");
        for (const path of paths)
          for (const method of methods) found.push(`${method.toUpperCase()} ${openApiPath(path)}`);
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack);
      }
    }
  };
  walk(stack);
  return [...new Set(found)].sort();
}
