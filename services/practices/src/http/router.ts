/**
 * The practices service's one router. The practice endpoints (list, single read, metadata): each
 * handler parses its input, calls one use case and wraps the result in the envelope. The CRM mirror
 * endpoints (scope crm-mirror:write, production only): writes are idempotent and ordered by the
 * CRM's own modified_on, and the same client reads them back; see the service README "CRM mirror"
 * for the payloads. Errors are
 * thrown and become responses in @svc/http.
 */
import express, { type RequestHandler } from "express";
import { cursorPagination, parseQuery, requireJson, sendData, sendPage } from "@svc/http";
import { MethodNotAllowedError, ValidationError } from "@svc/errors";
import { requireScope, type TokenVerifier } from "@svc/auth";
import { expressPath } from "@svc/openapi";
import { getPractice, listPractices, type PracticeReader } from "../domain/list-practices.ts";
import { practiceMetadata } from "../domain/practice-catalogue.ts";
import type { CrmMirrorStore } from "../domain/ports.ts";
import { getMirroredAccount, listMirroredAccounts } from "../domain/crm-mirror/read.ts";
import { presentMirroredAccount } from "./crm-mirror-present.ts";
import {
  bulkCrmAccountsOperation,
  CRM_MIRROR_SCOPE,
  deleteCrmAccountOperation,
  getCrmAccountOperation,
  getPracticeOperation,
  listCrmAccountsOperation,
  listPracticesOperation,
  practiceIdSchema,
  practiceMetadataOperation,
  PRACTICES_SCOPE,
  putCrmAccountOperation,
} from "./operations.ts";
import {
  DELETE_VERSION_HEADER,
  parseBulk,
  parseCrmId,
  parseDelete,
  parsePut,
} from "./crm-mirror-validation.ts";

/** The path's practice_id (only ever a bound SQL value, never a path or a file name), or 422. */
export function practiceIdParam(value: unknown): string {
  const id = practiceIdSchema.safeParse(value);
  if (!id.success)
    throw new ValidationError(
      id.error.issues.map((i) => ({ field: "practice_id", message: i.message })),
    );
  return id.data;
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
      sendPage(res, result.items, result);
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
const ACCOUNTS = expressPath(listCrmAccountsOperation.path);

export interface CrmMirrorDeps {
  verify: TokenVerifier;
  store: CrmMirrorStore;
  now: () => number;
}

function crmMirrorHandlers(
  deps: CrmMirrorDeps,
): Record<"get" | "list" | "put" | "remove" | "bulk", RequestHandler> {
  return {
    get: async (req, res) => {
      parseQuery(getCrmAccountOperation.query, req.query);
      const account = await getMirroredAccount(deps.store, parseCrmId(req.params.crm_id));
      sendData(res, presentMirroredAccount(account));
    },
    list: async (req, res) => {
      const query = parseQuery(listCrmAccountsOperation.query, req.query);
      const page = await listMirroredAccounts(deps.store, {
        cursor: query.cursor,
        perPage: query.per_page,
      });
      sendData(res, page.items.map(presentMirroredAccount), {
        pagination: cursorPagination(page),
      });
    },
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
  router.get(ACCOUNTS, guard, h.list);
  router.get(ACCOUNT, guard, h.get);
  router.put(ACCOUNT, guard, requireJson(), h.put);
  router.delete(ACCOUNT, guard, h.remove);
  router.post(BULK, guard, requireJson(), h.bulk);
  router.all(ACCOUNTS, methods(["GET", "HEAD"]));
  router.all(ACCOUNT, methods(["GET", "HEAD", "PUT", "DELETE"]));
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
