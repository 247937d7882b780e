import { existsSync } from "node:fs";
import { join } from "node:path";
import express, { type RequestHandler } from "express";
import type { LinkRefusal } from "../domain/portal-sessions.ts";

/**
 * The portal's pages: its built files (packages/portal), served under `/portal/` with a strict
 * Content-Security-Policy, a placeholder while they are not built, and the refused-link page.
 */
export const PORTAL_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const REFUSALS: Record<LinkRefusal, { title: string; text: string }> = {
  unknown: {
    title: "This portal link is not valid",
    text: "The link is incomplete or was never issued. Check that it was copied whole, or ask for a new one.",
  },
  expired: {
    title: "This portal link has expired",
    text: "Portal links work for a limited time. Ask the person who sent it for a new one.",
  },
  used: {
    title: "This portal link was already used",
    text: "Each portal link opens once. If that was not you, tell the person who sent it; ask them for a new link.",
  },
  revoked: {
    title: "This portal link was revoked",
    text: "Its access was withdrawn. Ask the person who sent it for a new link.",
  },
};

function page(title: string, text: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head>
<body><main><h1>${title}</h1><p>${text}</p></main></body>
</html>
`;
}

/** The page a refused link shows: which refusal, never the token. */
export function refusalPage(reason: LinkRefusal): string {
  const { title, text } = REFUSALS[reason];
  return page(title, text);
}

const PLACEHOLDER = page(
  "Subscriber portal",
  "The portal's pages are not built in this installation (packages/portal). Its API answers under /portal/api.",
);

/** Every answer under `/portal`: the CSP, no framing, no Referer. */
export const portalSecurityHeaders: RequestHandler = (_req, res, next) => {
  res.set({
    "Content-Security-Policy": PORTAL_CSP,
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
  });
  next();
};

/**
 * `/portal/`: the built files of `dir` when it holds an index.html, else the placeholder. A path
 * that names no file gets the index too (the application routes in the browser); `/portal/api`
 * is not served here.
 */
export function portalFiles(dir: string): express.Router {
  const router = express.Router();
  router.get("/portal", (req, res, next) => {
    if (req.originalUrl.split("?")[0] === "/portal") res.redirect(301, "/portal/");
    else next();
  });
  router.use(
    "/portal",
    express.static(dir, {
      index: false,
      fallthrough: true,
      redirect: false,
      setHeaders: (res, path) => {
        // Vite's hashed assets never change; the index must be fetched again.
        res.set(
          "Cache-Control",
          path.includes(`${join("assets", "")}`)
            ? "public, max-age=31536000, immutable"
            : "no-cache",
        );
      },
    }),
  );
  router.get(/^\/portal\/(?!api(?:\/|$)).*/, (req, res, next) => {
    if (!req.accepts("html")) {
      next();
      return;
    }
    const index = join(dir, "index.html");
    res.set("Cache-Control", "no-cache");
    if (!existsSync(index)) {
      res.type("text/html; charset=utf-8").send(PLACEHOLDER);
      return;
    }
    res.sendFile(index, { lastModified: false, etag: false, cacheControl: false }, (err) => {
      if (err && !res.headersSent) next(err);
    });
  });
  return router;
}
