import express from "express";
import type { Meter } from "@opentelemetry/api";
import type { Logger } from "@svc/logging";
import type { SigningKeys } from "../domain/keys/signing-keys.ts";
import type { TokenService } from "../domain/token/token-service.ts";
import { jwksRoutes } from "./jwks-route.ts";
import { openApiRoutes } from "./openapi-route.ts";
import { referenceRoutes } from "./reference-route.ts";
import { tokenRoutes } from "./token-route.ts";

export interface RouterDeps {
  service: TokenService;
  /** Scopes that exist in this environment. */
  environmentScopes: ReadonlySet<string>;
  keys: SigningKeys;
  /** The OpenAPI document served at GET /openapi.json. */
  openApiJson: string;
  logger: Logger;
  /** The process's Meter: `auth.token.issuance` counts token requests by outcome. */
  meter?: Meter | undefined;
}

/**
 * Every route of the auth service: POST /oauth/token, the JWKS, GET /openapi.json and its
 * reference page (GET /reference and its files).
 */
export function createRouter(deps: RouterDeps): express.Router {
  const router = express.Router();
  router.use(
    tokenRoutes({
      service: deps.service,
      environmentScopes: deps.environmentScopes,
      logger: deps.logger,
      meter: deps.meter,
    }),
  );
  router.use(jwksRoutes(deps.keys));
  router.use(openApiRoutes(deps.openApiJson));
  router.use(referenceRoutes());
  return router;
}
