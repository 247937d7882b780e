/**
 * The vacancy endpoints (spec 4.3, 4.4, 4.8): each handler parses its input, calls one use case
 * and wraps the result in the envelope. Errors are thrown and become responses in @svc/http.
 */
import express, { type RequestHandler } from "express";
import { MethodNotAllowedError, parseQuery, q, sendData, sendPage, ValidationError } from "@svc/http";
import { requireScope, type TokenVerifier } from "@svc/auth";
import { getVacancy } from "./get-vacancy.ts";
import { listVacancies } from "./list-vacancies.ts";
import { vacancyMetadata } from "./vacancy-metadata.ts";
import type { VacancyReader } from "./vacancy-reader.ts";

const SCOPE = "vacancies:read";

const listQuery = {
  page: q.page(),
  per_page: q.perPage(),
  language: q.oneOf(["nl", "fr"]).optional(),
  // Codes outside the reference lists are valid filters: vacancies do carry unknown codes.
  province: q.text().optional(),
  position: q.text().optional(),
  status: q.oneOf(["created", "open", "filled"]).optional(),
  published: q.bool().optional(),
  practice: q.text().optional(),
  updated_since: q.dateOrDateTime().optional(),
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A path value that cannot be a vacancy uuid is a bad parameter (422), not an absent vacancy. */
function uuidParam(value: unknown): string {
  if (typeof value !== "string" || !UUID.test(value)) throw new ValidationError([{ field: "uuid", message: "must be a UUID" }]);
  return value;
}

export function vacancyHandlers(reader: VacancyReader): Record<"list" | "get" | "meta", RequestHandler> {
  return {
    list: async (req, res) => {
      const result = await listVacancies(reader, parseQuery(listQuery, req.query));
      sendPage(res, result.items, { page: result.page, perPage: result.perPage, total: result.total });
    },
    get: async (req, res) => {
      parseQuery({}, req.query);
      sendData(res, await getVacancy(reader, uuidParam(req.params.uuid)));
    },
    meta: async (req, res) => {
      parseQuery({}, req.query);
      sendData(res, await vacancyMetadata(reader));
    },
  };
}

const onlyGet: RequestHandler = () => {
  throw new MethodNotAllowedError(["GET", "HEAD"]);
};

export function vacancyRoutes(deps: { verify: TokenVerifier; reader: VacancyReader }): express.Router {
  const router = express.Router();
  const guard = requireScope(deps.verify, SCOPE);
  const handlers = vacancyHandlers(deps.reader);
  router.get("/v1/vacancies", guard, handlers.list);
  router.get("/v1/vacancies/:uuid", guard, handlers.get);
  router.get("/v1/meta/vacancies", guard, handlers.meta);
  router.all(["/v1/vacancies", "/v1/vacancies/:uuid", "/v1/meta/vacancies"], onlyGet);
  return router;
}
