import { readFileSync } from "node:fs";

export interface Route {
  prefix: string;
  service: string;
}

/**
 * The one route table (charts/integration-service/routes.json): the Ingress is rendered from it
 * too.
 */
export const ROUTES_FILE = new URL(
  "../../../../charts/integration-service/routes.json",
  import.meta.url,
);

export function loadRoutes(file: URL = ROUTES_FILE): Route[] {
  const parsed = JSON.parse(readFileSync(file, "utf8")) as { routes: Route[] };
  return parsed.routes;
}

/**
 * Longest matching prefix, at a path-segment boundary (the Ingress's `Prefix` path type):
 * `/v1/practices` matches `/v1/practices` and `/v1/practices/x`, never `/v1/practicesx`.
 */
export function matchRoute(routes: ReadonlyArray<Route>, path: string): Route | undefined {
  let best: Route | undefined;
  for (const route of routes) {
    const hit = path === route.prefix || path.startsWith(`${route.prefix}/`);
    if (hit && (!best || route.prefix.length > best.prefix.length)) best = route;
  }
  return best;
}
