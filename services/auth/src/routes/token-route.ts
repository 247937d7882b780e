import express, { type Router } from "express";
import type { Logger } from "@svc/logging";
import { oauthErrorHandler, oauthErrors, setNoStore } from "../token/oauth-error.ts";
import { parseTokenRequest } from "../token/token-request.ts";
import type { TokenService } from "../token/token-service.ts";

export interface TokenRouteDeps {
  service: TokenService;
  environmentScopes: ReadonlySet<string>;
  logger: Logger;
}

// A client-credentials request is a few hundred bytes; anything near this is not one.
const BODY_LIMIT = "4kb";

/** POST /oauth/token (spec 4.2, RFC 6749 4.4); every answer carries no-store, errors in RFC 6749 form. */
export function tokenRoutes(deps: TokenRouteDeps): Router {
  const router = express.Router();
  router
    .route("/oauth/token")
    .post(express.raw({ type: () => true, limit: BODY_LIMIT }), async (req, res) => {
      setNoStore(res);
      const request = parseTokenRequest(req, deps.environmentScopes);
      const { clientId, response } = await deps.service.issue(request, req.ip ?? "unknown");
      // For the request log line only (never the token or the secret).
      res.locals.auth = { clientId };
      res.status(200).json(response);
    })
    .all((_req, _res, next) => next(oauthErrors.methodNotAllowed()));
  // Not path-mounted, so the request log still names the route as /oauth/token.
  router.use(oauthErrorHandler(deps.logger));
  return router;
}
