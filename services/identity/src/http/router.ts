import express, { type RequestHandler } from "express";
import { requireScope, type Scope, type TokenVerifier } from "@svc/auth";
import { expressPath, type OperationSpec } from "@svc/openapi";
import { parseQuery, requireJson, sendData, sendPage, uuidParam } from "@svc/http";
import {
  MethodNotAllowedError,
  NotFoundError,
  UnsupportedMediaTypeError,
  ValidationError,
} from "@svc/errors";
import type { ApplicationOutcome, ApplicationRequest } from "../domain/create-application.ts";
import type { Page, Submission } from "../domain/model.ts";
import type { IdentityQueries } from "../domain/ports.ts";
import { parseApplicationBody } from "./application-body.ts";
import { applicationFilterOf, candidateFilterOf, recruitmentCaseFilterOf } from "./list-queries.ts";
import {
  applicationCreateResponse,
  applicationResource,
  candidateResource,
  recruitmentCaseResource,
  submissionResource,
} from "./representations.ts";
import {
  createApplicationOperation,
  getApplicationOperation,
  getCandidateOperation,
  getRecruitmentCaseOperation,
  listApplicationsOperation,
  listCandidatesOperation,
  listRecruitmentCasesOperation,
  submitApplicationOperation,
} from "./operations.ts";

export interface RouterDeps {
  environment: "production" | "sandbox";
  verify: TokenVerifier;
  queries: IdentityQueries;
  createApplication: (request: ApplicationRequest) => Promise<ApplicationOutcome>;
  submitApplication: (
    applicationUuid: string,
  ) => Promise<{ submission: Submission; created: boolean }>;
  /** Idempotency-Key handling for POST /v1/applications (./idempotency-middleware.ts). */
  idempotency: RequestHandler;
  timeZone: string;
}

const notAllowed =
  (...allowed: string[]): RequestHandler =>
  (_req, _res, next) =>
    next(new MethodNotAllowedError(allowed));

function page<T>(
  res: express.Response,
  result: Page<T>,
  request: { page: number; perPage: number },
  map: (item: T) => unknown,
): void {
  sendPage(res, result.items.map(map), {
    page: request.page,
    perPage: request.perPage,
    total: result.total,
  });
}

/** Operations without query parameters refuse any (unknown query parameters are 422). */
const noQuery: RequestHandler = (req, _res, next) => {
  try {
    parseQuery({}, req.query);
    next();
  } catch (err) {
    next(err);
  }
};

/** A submission takes no body: none, or an empty JSON object. */
const requireNoBody: RequestHandler = (req, _res, next) => {
  const announced =
    (req.get("content-length") ?? "0") !== "0" || req.get("transfer-encoding") !== undefined;
  if (announced && !req.is("application/json"))
    return next(new UnsupportedMediaTypeError("application/json (or no body at all)"));
  const body: unknown = req.body;
  const empty =
    body === undefined ||
    (typeof body === "object" &&
      body !== null &&
      !Array.isArray(body) &&
      Object.keys(body).length === 0);
  next(
    empty
      ? undefined
      : new ValidationError([
          { field: "body", message: "must be empty: this endpoint takes no fields" },
        ]),
  );
};

/** The handler table: each parses its input, calls one domain function and wraps the result. */
function handlers(deps: RouterDeps) {
  return {
    listCandidates: async (req, res) => {
      const filter = candidateFilterOf(req.query, deps.timeZone);
      page(res, await deps.queries.listCandidates(filter), filter, candidateResource);
    },
    getCandidate: async (req, res) => {
      const candidate = await deps.queries.getCandidate(
        uuidParam(req.params.candidate_uuid, "candidate_uuid"),
      );
      if (!candidate) throw new NotFoundError("no candidate with this uuid");
      sendData(res, candidateResource(candidate));
    },
    listApplications: async (req, res) => {
      const filter = applicationFilterOf(req.query, deps.timeZone);
      page(res, await deps.queries.listApplications(filter), filter, applicationResource);
    },
    getApplication: async (req, res) => {
      const application = await deps.queries.getApplication(
        uuidParam(req.params.application_uuid, "application_uuid"),
      );
      if (!application) throw new NotFoundError("no application with this uuid");
      sendData(res, applicationResource(application));
    },
    createApplication: async (req, res) => {
      const outcome = await deps.createApplication(parseApplicationBody(req.body));
      sendData(res, applicationCreateResponse(outcome), {
        status: outcome.applicationCreated ? 201 : 200,
      });
    },
    submitApplication: async (req, res) => {
      const { submission, created } = await deps.submitApplication(
        uuidParam(req.params.application_uuid, "application_uuid"),
      );
      sendData(res, submissionResource(submission), { status: created ? 201 : 200 });
    },
    listRecruitmentCases: async (req, res) => {
      const filter = recruitmentCaseFilterOf(req.query, deps.timeZone);
      page(res, await deps.queries.listRecruitmentCases(filter), filter, recruitmentCaseResource);
    },
    getRecruitmentCase: async (req, res) => {
      const found = await deps.queries.getRecruitmentCase(
        uuidParam(req.params.recruitment_case_uuid, "recruitment_case_uuid"),
      );
      if (!found) throw new NotFoundError("no recruitment case with this uuid");
      sendData(res, recruitmentCaseResource(found));
    },
  } satisfies Record<string, RequestHandler>;
}

/**
 * The router's form of a documented path (paths and scopes come from the operation descriptors,
 * ./operations.ts).
 */
const path = (op: OperationSpec) => expressPath(op.path);

/** Every identity route with its scope. The submission route exists in production only. */
export function createRouter(deps: RouterDeps): express.Router {
  const router = express.Router();
  const scope = (s: Scope) => requireScope(deps.verify, s);
  const h = handlers(deps);
  router
    .route(path(listCandidatesOperation))
    .get(scope(listCandidatesOperation.auth.scope), h.listCandidates)
    .all(notAllowed("GET"));
  router
    .route(path(getCandidateOperation))
    .get(scope(getCandidateOperation.auth.scope), noQuery, h.getCandidate)
    .all(notAllowed("GET"));
  router
    .route(path(listApplicationsOperation))
    .get(scope(listApplicationsOperation.auth.scope), h.listApplications)
    .post(
      scope(createApplicationOperation.auth.scope),
      noQuery,
      requireJson(),
      deps.idempotency,
      h.createApplication,
    )
    .all(notAllowed("GET", "POST"));
  router
    .route(path(getApplicationOperation))
    .get(scope(getApplicationOperation.auth.scope), noQuery, h.getApplication)
    .all(notAllowed("GET"));
  if (deps.environment === "production") {
    // In the sandbox applications:write covers creating applications only; the route does not
    // exist there.
    router
      .route(path(submitApplicationOperation))
      .post(
        scope(submitApplicationOperation.auth.scope),
        noQuery,
        requireNoBody,
        h.submitApplication,
      )
      .all(notAllowed("POST"));
  }
  router
    .route(path(listRecruitmentCasesOperation))
    .get(scope(listRecruitmentCasesOperation.auth.scope), h.listRecruitmentCases)
    .all(notAllowed("GET"));
  router
    .route(path(getRecruitmentCaseOperation))
    .get(scope(getRecruitmentCaseOperation.auth.scope), noQuery, h.getRecruitmentCase)
    .all(notAllowed("GET"));
  return router;
}
