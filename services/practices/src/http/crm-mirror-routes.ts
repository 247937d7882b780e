/**
 * CRM mirror write endpoints (spec 1.3, 4.12; scope crm-mirror:write, production only). Writes are
 * idempotent and ordered by the CRM's own modified_on; see README "CRM mirror" for the payloads.
 */
import express, { type RequestHandler } from "express";
import { MethodNotAllowedError, parseQuery, requireJson, sendData } from "@svc/http";
import { requireScope, type TokenVerifier } from "@svc/auth";
import { expressPath } from "@svc/openapi";
import {
  bulkCrmAccountsOperation,
  CRM_MIRROR_SCOPE,
  deleteCrmAccountOperation,
  putCrmAccountOperation,
} from "./operations.ts";
import type { CrmMirrorStore } from "../domain/ports.ts";
import {
  DELETE_VERSION_HEADER,
  parseBulk,
  parseDelete,
  parsePut,
} from "./crm-mirror-validation.ts";

// A custom method (`:bulk`) rather than `/accounts/bulk`, which would read as the account "bulk".
const ACCOUNT = expressPath(putCrmAccountOperation.path);
const BULK = expressPath(bulkCrmAccountsOperation.path);

export interface CrmMirrorDeps {
  verify: TokenVerifier;
  store: CrmMirrorStore;
  now: () => number;
}

function handlers(deps: CrmMirrorDeps): Record<"put" | "remove" | "bulk", RequestHandler> {
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

export function crmMirrorRoutes(deps: CrmMirrorDeps): express.Router {
  const router = express.Router();
  const guard = requireScope(deps.verify, CRM_MIRROR_SCOPE);
  const h = handlers(deps);
  router.put(ACCOUNT, guard, requireJson(), h.put);
  router.delete(ACCOUNT, guard, h.remove);
  router.post(BULK, guard, requireJson(), h.bulk);
  router.all(ACCOUNT, methods(["PUT", "DELETE"]));
  router.all(BULK, methods(["POST"]));
  return router;
}
