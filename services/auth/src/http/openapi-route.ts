import express, { type Router } from "express";
import { MethodNotAllowedError } from "@svc/errors";
import { expressPath } from "@svc/openapi";
import { openApiOperation } from "./operations.ts";

/**
 * GET /openapi.json: the checked-in document, byte for byte, public (the route table sends it
 * here).
 */
export function openApiRoutes(documentJson: string): Router {
  const router = express.Router();
  router
    .route(expressPath(openApiOperation.path))
    .get((_req, res) => {
      res.set("Cache-Control", "public, max-age=300");
      res.type("application/json").send(documentJson);
    })
    .all(() => {
      throw new MethodNotAllowedError(["GET", "HEAD"]);
    });
  return router;
}
