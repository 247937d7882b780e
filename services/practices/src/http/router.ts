/**
 * The practices service's one router. The practice endpoints (list, single read, metadata): each
 * handler parses its input, calls one use case and wraps the result in the envelope. The CRM mirror
 * write endpoints (scope crm-mirror:write, production only): writes are idempotent and ordered by
 * the CRM's own modified_on; see the service README "CRM mirror" for the payloads. Errors are
 * thrown and become responses in @svc/http.
 */
import express, { type RequestHandler } from "express";
import { parseQuery, requireJson, sendData, sendPage } from "@svc/http";
import { MethodNotAllowedError, ValidationError } from "@svc/errors";
import { requireScope, type TokenVerifier } from "@svc/auth";
import { expressPath } from "@svc/openapi";
import { getPractice, listPractices, type PracticeReader } from "../domain/list-practices.ts";
import { practiceMetadata } from "../domain/practice-catalogue.ts";
import type { CrmMirrorStore } from "../domain/ports.ts";
import {
  bulkCrmAccountsOperation,
  CRM_MIRROR_SCOPE,
  deleteCrmAccountOperation,
  getPracticeOperation,
  listPracticesOperation,
  practiceMetadataOperation,
  PRACTICES_SCOPE,
  putCrmAccountOperation,
} from "./operations.ts";
import {
  DELETE_VERSION_HEADER,
  parseBulk,
  parseDelete,
  parsePut,
} from "./crm-mirror-validation.ts";

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

function practiceRoutes(deps: { verify: TokenVerifier; reader: PracticeReader }): express.Router {
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

// A custom method (`:bulk`) rather than `/accounts/bulk`, which would read as the account "bulk".
const ACCOUNT = expressPath(putCrmAccountOperation.path);
const BULK = expressPath(bulkCrmAccountsOperation.path);

export interface CrmMirrorDeps {
  verify: TokenVerifier;
  store: CrmMirrorStore;
  now: () => number;
}

function crmMirrorHandlers(deps: CrmMirrorDeps): Record<"put" | "remove" | "bulk", RequestHandler> {
  return {
    put: async (req, res) => {
      parseQuery(putCrmAccountOperation.query, req.query);
      const [result] = await deps.store.apply([parsePut(req.params.crm_id, req.body, deps.now())]);
      // RFC 9110: a PUT that creates the resource answers 201.
      sendData(res, result, { status: result?.outcome === "created" ? 201 : 200 });
    },
    remove: async (req, res) => {
      parseQuery(deleteCrmAccountOperation.query, req.query);
      const [result] = await deps.store.apply([
        parseDelete(req.params.crm_id, req.get(DELETE_VERSION_HEADER), deps.now()),
      ]);
      sendData(res, result);
    },
    bulk: async (req, res) => {
      parseQuery(bulkCrmAccountsOperation.query, req.query);
      const results = await deps.store.apply(parseBulk(req.body, deps.now()));
      const applied = results.filter((r) => r.applied).length;
      sendData(res, {
        received: results.length,
        applied,
        results: results.map((r, index) => ({ index, ...r })),
      });
    },
  };
}

const methods =
  (allowed: string[]): RequestHandler =>
  () => {
    throw new MethodNotAllowedError(allowed);
  };

function crmMirrorRoutes(deps: CrmMirrorDeps): express.Router {
  const router = express.Router();
  const guard = requireScope(deps.verify, CRM_MIRROR_SCOPE);
  const h = crmMirrorHandlers(deps);
  router.put(ACCOUNT, guard, requireJson(), h.put);
  router.delete(ACCOUNT, guard, h.remove);
  router.post(BULK, guard, requireJson(), h.bulk);
  router.all(ACCOUNT, methods(["PUT", "DELETE"]));
  router.all(BULK, methods(["POST"]));
  return router;
}

export interface RouterDeps {
  verify: TokenVerifier;
  reader: PracticeReader;
  /** The CRM mirror's store and clock; null where its routes do not exist (the sandbox). */
  crmMirror: { store: CrmMirrorStore; now: () => number } | null;
}

/** Every route of the service, each with its scope guard. */
export function createRouter(deps: RouterDeps): express.Router {
  const routes = express.Router();
  routes.use(practiceRoutes({ verify: deps.verify, reader: deps.reader }));
  if (deps.crmMirror) routes.use(crmMirrorRoutes({ verify: deps.verify, ...deps.crmMirror }));
  return routes;
}
