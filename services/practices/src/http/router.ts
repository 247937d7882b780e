/**
 * The practice endpoints (spec 4.5, 4.6, 4.7): each handler parses its input, calls one use case
 * and wraps the result in the envelope. Errors are thrown and become responses in @svc/http.
 */
import express, { type RequestHandler } from "express";
import { MethodNotAllowedError, parseQuery, sendData, sendPage, ValidationError } from "@svc/http";
import { requireScope, type TokenVerifier } from "@svc/auth";
import { expressPath } from "@svc/openapi";
import { getPractice, listPractices, type PracticeReader } from "../domain/list-practices.ts";
import { practiceMetadata } from "../domain/practice-catalogue.ts";
import {
  getPracticeOperation,
  listPracticesOperation,
  practiceMetadataOperation,
  PRACTICES_SCOPE,
} from "./operations.ts";

const MAX_ID_LENGTH = 255;
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * practice_id is opaque: any string the sources hold (`ACC/2009/117` arrives as `ACC%2F2009%2F117`
 * and express decodes it). It is only ever a bound SQL value, never a path or a file name.
 * What no source can hold is a bad parameter (422), not an absent practice.
 */
function practiceIdParam(value: unknown): string {
  if (typeof value !== "string" || value === "")
    throw new ValidationError([{ field: "practice_id", message: "must not be empty" }]);
  if ([...value].length > MAX_ID_LENGTH)
    throw new ValidationError([
      { field: "practice_id", message: `must be at most ${MAX_ID_LENGTH} characters` },
    ]);
  if (CONTROL.test(value))
    throw new ValidationError([
      { field: "practice_id", message: "must not contain control characters" },
    ]);
  return value;
}

export function practiceHandlers(
  reader: PracticeReader,
): Record<"list" | "get" | "meta", RequestHandler> {
  return {
    list: async (req, res) => {
      const {
        page,
        per_page: perPage,
        ...filters
      } = parseQuery(listPracticesOperation.query, req.query);
      const result = await listPractices(reader, { page, perPage, filters });
      sendPage(res, result.items, {
        page: result.page,
        perPage: result.perPage,
        total: result.total,
      });
    },
    get: async (req, res) => {
      parseQuery(getPracticeOperation.query, req.query);
      sendData(res, await getPractice(reader, practiceIdParam(req.params.practice_id)));
    },
    meta: async (req, res) => {
      parseQuery(practiceMetadataOperation.query, req.query);
      sendData(res, await practiceMetadata(reader.source));
    },
  };
}

const onlyGet: RequestHandler = () => {
  throw new MethodNotAllowedError(["GET", "HEAD"]);
};

export function practiceRoutes(deps: {
  verify: TokenVerifier;
  reader: PracticeReader;
}): express.Router {
  const router = express.Router();
  const guard = requireScope(deps.verify, PRACTICES_SCOPE);
  const handlers = practiceHandlers(deps.reader);
  // Paths and query shapes come from the operation descriptors the OpenAPI document is built from.
  const [list, get, meta] = [
    listPracticesOperation,
    getPracticeOperation,
    practiceMetadataOperation,
  ].map((op) => expressPath(op.path)) as [string, string, string];
  router.get(list, guard, handlers.list);
  router.get(get, guard, handlers.get);
  router.get(meta, guard, handlers.meta);
  router.all([list, get, meta], onlyGet);
  return router;
}
