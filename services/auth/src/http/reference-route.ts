import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import express, { type Router } from "express";
import { MethodNotAllowedError } from "@svc/errors";
import { expressPath } from "@svc/openapi";
import {
  openApiOperation,
  REFERENCE_FILES,
  referenceFileOperation,
  referenceOperation,
} from "./operations.ts";

// Swagger UI (swagger-ui-dist, a dependency of this service, so the image installs it) renders the
// document in the browser; docs/decisions/api-reference-renderer.md says why this renderer.
const swaggerUi = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

type ReferenceFile = keyof typeof REFERENCE_FILES;
const filePath = (name: ReferenceFile) => `${referenceOperation.path}/${name}`;
const OPENAPI_PATH = openApiOperation.path;

/** Starts the renderer on the page: the document from this origin, no validator badge (it calls out). */
const START_SCRIPT = `"use strict";
window.SwaggerUIBundle({
  url: ${JSON.stringify(OPENAPI_PATH)},
  dom_id: "#reference",
  deepLinking: true,
  docExpansion: "list",
  validatorUrl: null,
});
`;

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Integration service API reference</title>
    <link rel="icon" href="data:,">
    <link rel="stylesheet" href="${filePath("renderer.css")}">
  </head>
  <body>
    <noscript>This page needs JavaScript; the document itself is <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</noscript>
    <div id="reference"></div>
    <script src="${filePath("renderer.js")}"></script>
    <script src="${filePath("reference.js")}"></script>
  </body>
</html>
`;

/**
 * Scripts, styles and requests from this origin only; images also as data: URLs (the stylesheet's
 * icons). No inline script or style, no eval, no framing, no form posts.
 */
export const REFERENCE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const FILES: Record<ReferenceFile, { path: string } | { text: string }> = {
  "renderer.js": { path: join(swaggerUi, "swagger-ui-bundle.js") },
  "renderer.css": { path: join(swaggerUi, "swagger-ui.css") },
  "reference.js": { text: START_SCRIPT },
};

const isReferenceFile = (name: string): name is ReferenceFile => Object.hasOwn(FILES, name);

const CACHE = "public, max-age=300";

/**
 * GET /reference, the document rendered as a web page, and GET /reference/{file}, the files it
 * loads; public like /openapi.json (the route table sends both here).
 */
export function referenceRoutes(): Router {
  const router = express.Router();
  const notAllowed = () => {
    throw new MethodNotAllowedError(["GET", "HEAD"]);
  };
  router
    .route(expressPath(referenceOperation.path))
    .get((_req, res) => {
      res.set({ "Cache-Control": CACHE, "Content-Security-Policy": REFERENCE_CSP });
      res.type("text/html; charset=utf-8").send(PAGE);
    })
    .all(notAllowed);
  router
    .route(expressPath(referenceFileOperation.path))
    .get((req, res, next) => {
      const name = req.params.file;
      if (typeof name !== "string" || !isReferenceFile(name)) {
        next("route");
        return;
      }
      const file = FILES[name];
      res.set("Cache-Control", CACHE);
      res.type(REFERENCE_FILES[name].type);
      if ("text" in file) {
        res.send(file.text);
        return;
      }
      // Installed files carry npm's fixed timestamp, so no Last-Modified or ETag from it.
      res.sendFile(file.path, { lastModified: false, etag: false, cacheControl: false }, (err) => {
        if (err && !res.headersSent) next(err);
      });
    })
    .all(notAllowed);
  return router;
}
