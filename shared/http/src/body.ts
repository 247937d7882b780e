import type { RequestHandler } from "express";
import { UnsupportedMediaTypeError } from "@svc/errors";

/** For endpoints that take a JSON body: anything else is 415, never a confused 500. */
export function requireJson(): RequestHandler {
  return (req, _res, next) => {
    if (!req.is("application/json")) return next(new UnsupportedMediaTypeError("application/json"));
    next();
  };
}
