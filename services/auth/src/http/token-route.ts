import express, { type Router } from "express";
import type { Counter, Meter } from "@opentelemetry/api";
import { TOKEN_PATH } from "@svc/http";
import type { Logger } from "@svc/logging";
import { oauthErrors } from "../domain/token/oauth-error.ts";
import { oauthErrorHandler, setNoStore } from "./oauth-error-handler.ts";
import { parseTokenRequest } from "./token-request.ts";
import type { TokenService } from "../domain/token/token-service.ts";

export interface TokenRouteDeps {
  service: TokenService;
  environmentScopes: ReadonlySet<string>;
  logger: Logger;
  /** The process's Meter: `auth.token.issuance` counts token requests by outcome. */
  meter?: Meter | undefined;
}

/**
 * Token requests by outcome: `issued`, or the RFC 6749 error code answered (invalid_client,
 * slow_down, …).
 */
export type IssuanceCounter = Pick<Counter, "add">;

function issuanceCounter(meter: Meter | undefined): IssuanceCounter | undefined {
  return meter?.createCounter("auth.token.issuance", {
    unit: "{request}",
    description: "Token requests by outcome: issued, or the OAuth error answered",
  });
}

// A client-credentials request is a few hundred bytes; anything near this is not one.
const BODY_LIMIT = "4kb";

/** POST /oauth/token (RFC 6749 4.4); every answer carries no-store, errors in RFC 6749 form. */
export function tokenRoutes(deps: TokenRouteDeps): Router {
  const router = express.Router();
  const issuance = issuanceCounter(deps.meter);
  router
    .route(TOKEN_PATH)
    .post(express.raw({ type: () => true, limit: BODY_LIMIT }), async (req, res) => {
      setNoStore(res);
      const request = parseTokenRequest(req, deps.environmentScopes);
      const { clientId, response } = await deps.service.issue(request, req.ip ?? "unknown");
      // For the request log line only (never the token or the secret).
      res.locals.auth = { clientId };
      res.status(200).json(response);
      issuance?.add(1, { outcome: "issued" });
    })
    .all((_req, _res, next) => next(oauthErrors.methodNotAllowed()));
  // Not path-mounted, so the request log still names the route as /oauth/token.
  router.use(oauthErrorHandler(deps.logger, issuance));
  return router;
}
