import { randomUUID } from "node:crypto";
import express, { type Express, type RequestHandler, type Router } from "express";
import { context, type Meter } from "@opentelemetry/api";
import { MethodNotAllowedError } from "@svc/errors";
import type { Logger } from "@svc/logging";
import { API_VERSION, sendData } from "./envelope.ts";
import { errorHandler, notFoundHandler } from "./error-handler.ts";
import { serverSpans } from "./tracing.ts";

export interface PlatformInfo {
  /** Service name reported by /health. */
  service: string;
  /** The installation's semantic version (`installationVersion` of @svc/config). */
  version: string;
  environment: "production" | "sandbox";
}

export interface HttpAppOptions {
  platform: PlatformInfo;
  logger: Logger;
  /** The service's own routes, mounted after the public platform routes. */
  routes: Router | RequestHandler;
  /** Largest accepted JSON body; larger ones are 413. */
  bodyLimitBytes?: number;
  /** Records request duration by route and status (OpenTelemetry semantic conventions). */
  meter?: Meter;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/**
 * The request id of a request: a caller's UUID-shaped `X-Request-Id` is kept (in lower case), any
 * other value or none gets a new UUID. The one rule for the gateway and every service, so an id
 * a client sends is the one every hop logs and answers.
 */
export function requestIdFor(incoming: string | string[] | undefined): string {
  return typeof incoming === "string" && UUID.test(incoming)
    ? incoming.toLowerCase()
    : randomUUID();
}

/** Per-request UUID (the envelope's meta.request_id), by `requestIdFor`. */
function requestId(): RequestHandler {
  return (req, res, next) => {
    const id = requestIdFor(req.get("x-request-id"));
    res.locals.requestId = id;
    res.set("X-Request-Id", id);
    next();
  };
}

/**
 * One log line and one duration measurement per request: id, client, route, status, duration.
 * Never headers, bodies or tokens. The route is the matched pattern, so ids do not explode metrics.
 */
function requestLog(logger: Logger, meter: Meter | undefined): RequestHandler {
  const duration = meter?.createHistogram("http.server.request.duration", {
    unit: "s",
    description: "Duration of HTTP server requests",
    advice: {
      explicitBucketBoundaries: [
        0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
      ],
    },
  });
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    // Bound to the request's context (its server span), so the line carries trace_id and span_id.
    res.on(
      "finish",
      context.bind(context.active(), () => {
        const route = req.route ? `${req.baseUrl}${String(req.route.path)}` : undefined;
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        duration?.record(seconds, {
          "http.request.method": req.method,
          "http.route": route ?? "unmatched",
          "http.response.status_code": res.statusCode,
        });
        logger.info(
          {
            request_id: res.locals.requestId,
            client_id: res.locals.auth?.clientId,
            method: req.method,
            route,
            status: res.statusCode,
            duration_ms: seconds * 1000,
          },
          "request",
        );
      }),
    );
    next();
  };
}

/** Public platform endpoints (health, version), also under their unversioned aliases. */
function platformRoutes(platform: PlatformInfo): Router {
  const router = express.Router();
  const health: RequestHandler = (_req, res) => {
    res.json({ service: platform.service, status: "ok", version: platform.version });
  };
  const version: RequestHandler = (_req, res) => {
    // `php` keeps its name for compatibility with the contract and carries the runtime's version.
    sendData(res, {
      api_version: API_VERSION,
      build: platform.version,
      php: process.version,
      environment: platform.environment,
    });
  };
  router.get(["/health", "/v1/health"], health);
  router.get(["/version", "/v1/version"], version);
  // Any other method is 405 (OPTIONS too, which express would answer itself in text/plain).
  router.all(["/health", "/v1/health", "/version", "/v1/version"], (_req, _res, next) =>
    next(new MethodNotAllowedError(["GET", "HEAD"])),
  );
  return router;
}

/** Builds (never listens) the express app all services share: ids, logging, platform, errors. */
export function createHttpApp(options: HttpAppOptions): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("query parser", "simple");
  app.use(serverSpans());
  app.use(requestId());
  app.use(requestLog(options.logger, options.meter));
  app.use((_req, res, next) => {
    res.set("X-Content-Type-Options", "nosniff");
    next();
  });
  app.use(express.json({ limit: options.bodyLimitBytes ?? 256 * 1024, strict: true }));
  app.use(platformRoutes(options.platform));
  app.use(options.routes);
  app.use(notFoundHandler());
  app.use(errorHandler(options.logger));
  return app;
}
