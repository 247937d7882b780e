import type { RequestListener } from "node:http";
import type { Logger } from "@svc/logging";
import type { Config } from "./config.ts";
import { loadRoutes, type Route } from "./http/route-table.ts";
import { createRouter } from "./http/router.ts";

/** Everything the gateway needs, built by main.ts (or a test) and passed in. */
export interface AppDeps {
  config: Pick<Config, "GATEWAY_UPSTREAMS">;
  logger: Logger;
  /** The route table; by default the one the Ingress is rendered from (routes.json). */
  routes?: ReadonlyArray<Route>;
}

/**
 * Builds the gateway's request listener around the router; never listens (main.ts and the tests
 * do).
 */
export function createApp(deps: AppDeps): RequestListener {
  return createRouter({
    routes: deps.routes ?? loadRoutes(),
    upstreams: deps.config.GATEWAY_UPSTREAMS,
    logger: deps.logger,
  });
}
