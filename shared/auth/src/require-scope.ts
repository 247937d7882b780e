import type { RequestHandler } from "express";
import { InsufficientScopeError } from "@svc/errors";
import { DEFAULT_REALM, type AccessToken, type TokenVerifier } from "./verifier.ts";

/**
 * Route guard: 401 UNAUTHENTICATED without a valid token, 403 INSUFFICIENT_SCOPE (naming the scope)
 * with a valid token that lacks it. The verified token lands on res.locals.auth.
 */
export function requireScope(
  verify: TokenVerifier,
  scope: string,
  realm = DEFAULT_REALM,
): RequestHandler {
  return async (req, res, next) => {
    try {
      const token = await verify(req.get("authorization"));
      res.locals.auth = token;
      if (!token.scopes.has(scope)) throw new InsufficientScopeError(scope, realm);
      next();
    } catch (err) {
      next(err);
    }
  };
}

/** The verified caller of a guarded route. */
export function callerOf(locals: Record<string, unknown>): AccessToken {
  const token = locals.auth as AccessToken | undefined;
  if (!token) throw new Error("callerOf used on a route without requireScope");
  return token;
}
