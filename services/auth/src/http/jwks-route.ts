import express, { type Router } from "express";
import type { SigningKeys } from "../domain/keys/signing-keys.ts";

/**
 * GET /.well-known/jwks.json: the public halves of every published key, for the services'
 * verifiers (AUTH_JWKS_URL). Internal: the route table does not expose it through the ingress.
 */
export function jwksRoutes(keys: SigningKeys): Router {
  const router = express.Router();
  const body = JSON.stringify(keys.jwks);
  router.get("/.well-known/jwks.json", (_req, res) => {
    // Verifiers cache it themselves and refetch on an unknown kid; a short shared cache is
    // harmless.
    res.set("Cache-Control", "public, max-age=300");
    res.type("application/jwk-set+json").send(body);
  });
  return router;
}
