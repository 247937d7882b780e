/**
 * The vacancy endpoints (list, single read, metadata): each handler parses its input, calls one use
 * case and wraps the result in the envelope. Errors are thrown and become responses in @svc/http.
 */
import express, { type RequestHandler } from "express";
import { parseQuery, sendData, sendPage, uuidParam } from "@svc/http";
import { MethodNotAllowedError } from "@svc/errors";
import { requireScope, type TokenVerifier } from "@svc/auth";
import { expressPath } from "@svc/openapi";
import { getVacancy } from "../domain/get-vacancy.ts";
import { listVacancies } from "../domain/list-vacancies.ts";
import { vacancyMetadata } from "../domain/vacancy-metadata.ts";
import {
  getVacancyOperation,
  listVacanciesOperation,
  VACANCIES_SCOPE,
  vacancyMetadataOperation,
} from "./operations.ts";
import type { VacancyReader } from "../domain/vacancy-reader.ts";

export function vacancyHandlers(
  reader: VacancyReader,
): Record<"list" | "get" | "meta", RequestHandler> {
  return {
    list: async (req, res) => {
      const result = await listVacancies(
        reader,
        parseQuery(listVacanciesOperation.query, req.query),
      );
      sendPage(res, result.items, result);
    },
    get: async (req, res) => {
      parseQuery(getVacancyOperation.query, req.query);
      sendData(res, await getVacancy(reader, uuidParam(req.params.uuid, "uuid")));
    },
    meta: async (req, res) => {
      parseQuery(vacancyMetadataOperation.query, req.query);
      sendData(res, await vacancyMetadata(reader));
    },
  };
}

const onlyGet: RequestHandler = () => {
  throw new MethodNotAllowedError(["GET", "HEAD"]);
};

export interface RouterDeps {
  verify: TokenVerifier;
  reader: VacancyReader;
}

/** The one router of the service: every vacancy route behind its scope guard. */
export function createRouter(deps: RouterDeps): express.Router {
  const router = express.Router();
  const guard = requireScope(deps.verify, VACANCIES_SCOPE);
  const handlers = vacancyHandlers(deps.reader);
  // Paths and query shapes come from the operation descriptors the OpenAPI document is built from.
  const [list, get, meta] = [
    listVacanciesOperation,
    getVacancyOperation,
    vacancyMetadataOperation,
  ].map((op) => expressPath(op.path)) as [string, string, string];
  router.get(list, guard, handlers.list);
  router.get(get, guard, handlers.get);
  router.get(meta, guard, handlers.meta);
  router.all([list, get, meta], onlyGet);
  return router;
}
