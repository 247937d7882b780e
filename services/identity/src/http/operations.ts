/**
 * The identity operations (identities, applications, submission), declared once: the router mounts
 * these paths, the list filters parse these query shapes, POST /v1/applications parses this body,
 * and the OpenAPI document (tools/openapi.ts) is generated from them. The response schemas state
 * the presenters' shapes (representations.ts); a compile-time check keeps their keys equal.
 */
import { z } from "zod";
import { q } from "@svc/http";
import {
  doc,
  type NamedSchema,
  type OperationSpec,
  type SameKeys,
  type TagSpec,
  uuidPathParams,
  type ServiceOpenApi,
} from "@svc/openapi";
import { CANDIDATE_STATUSES, RESOLUTIONS } from "../domain/model.ts";
import { applicationBody } from "./application-body.ts";
import type {
  applicationCreateResponse,
  applicationResource,
  candidateResource,
  recruitmentCaseResource,
  submissionResource,
} from "./representations.ts";

export const IDENTITY_TAGS: TagSpec[] = [
  {
    name: "Candidates",
    description: "Candidate identities: an identity and its merge link, never personal data.",
  },
  {
    name: "Applications",
    description:
      "Applications: created with identity resolution, read, and (production) recorded as submitted.",
  },
  {
    name: "Recruitment cases",
    description: "The technical register of one candidate's process for one vacancy.",
  },
];

const uuidFilter = (what: string) => q.uuid().optional().meta({ description: what });
const createdSince = () =>
  q.dateOrDateTime().optional().meta({
    description:
      "Created at or after (inclusive): a date (midnight Europe/Brussels) or a date-time with offset.",
  });
const uuidPath = (name: string, what: string) => uuidPathParams({ [name]: what });

const candidateSchema = z.strictObject({
  candidate_uuid: doc.uuid(),
  status: z.enum(CANDIDATE_STATUSES),
  merged_into_candidate_uuid: doc.uuid().nullable().meta({
    description:
      "Set when merged: the candidate this one was merged into (follow the chain to the survivor).",
  }),
  created_at: doc.instant(),
  updated_at: doc
    .instant()
    .nullable()
    .meta({ description: "Null until the candidate changes (a merge)." }),
});

const applicationFields = {
  application_uuid: doc.uuid(),
  candidate_uuid: doc.uuid().meta({
    description: "The candidate the application was recorded for (not rewritten by later merges).",
  }),
  vacancy_uuid: doc.uuid(),
  practice_id: z.string(),
  resolution: z.enum(RESOLUTIONS).meta({
    description:
      "How the candidate identity was resolved: resolved, unresolved (no usable identifier), ambiguous (identifiers of different candidates).",
  }),
  consent_flag: z.boolean(),
  entrypoint_raw: z.string().nullable().meta({ description: "The entrypoint as received." }),
  entrypoint_code: z.string().nullable().meta({
    description:
      "The known entrypoint it maps to (`website`, `vacancy_page`, `linkedin`, …); null when unknown.",
  }),
  created_at: doc.instant(),
};
const applicationSchema = z.strictObject({
  ...applicationFields,
  updated_at: doc
    .instant()
    .nullable()
    .meta({ description: "Null until the application is submitted." }),
});
const applicationCreatedSchema = z.strictObject({
  ...applicationFields,
  candidate_created: z
    .boolean()
    .meta({ description: "A new candidate identity was created for this application." }),
  application_created: z.boolean().meta({
    description:
      "True with 201; false with 200 (the same person already applied to this vacancy: the existing application, unchanged).",
  }),
});
const recruitmentCaseSchema = z.strictObject({
  recruitment_case_uuid: doc.uuid(),
  candidate_uuid: doc.uuid(),
  vacancy_uuid: doc.uuid(),
  practice_id: z.string(),
  application_uuids: z.array(doc.uuid()).meta({ description: "Its applications, oldest first." }),
  created_at: doc.instant(),
  updated_at: doc.instant().nullable(),
});
const submissionSchema = z.strictObject({
  application_uuid: doc.uuid(),
  submitted_at: doc.instant(),
});

// The presenters return exactly these keys (representations.ts); a drift is a compile error.
export const _candidateKeys: SameKeys<
  ReturnType<typeof candidateResource>,
  z.output<typeof candidateSchema>
> = true;
export const _applicationKeys: SameKeys<
  ReturnType<typeof applicationResource>,
  z.output<typeof applicationSchema>
> = true;
export const _createdKeys: SameKeys<
  ReturnType<typeof applicationCreateResponse>,
  z.output<typeof applicationCreatedSchema>
> = true;
export const _caseKeys: SameKeys<
  ReturnType<typeof recruitmentCaseResource>,
  z.output<typeof recruitmentCaseSchema>
> = true;
export const _submissionKeys: SameKeys<
  ReturnType<typeof submissionResource>,
  z.output<typeof submissionSchema>
> = true;

const candidate: NamedSchema = {
  name: "Candidate",
  description: "A candidate identity; no personal data, no lookup hash.",
  schema: candidateSchema,
};
const application: NamedSchema = {
  name: "Application",
  description: "An application.",
  schema: applicationSchema,
};
const applicationCreated: NamedSchema = {
  name: "ApplicationCreated",
  description:
    "The create response: the application without updated_at, plus the two outcome flags.",
  schema: applicationCreatedSchema,
};
const recruitmentCase: NamedSchema = { name: "RecruitmentCase", schema: recruitmentCaseSchema };
const submission: NamedSchema = { name: "Submission", schema: submissionSchema };

export const listCandidatesOperation = {
  operationId: "listCandidates",
  method: "get",
  path: "/v1/candidates",
  summary: "List candidate identities",
  description: "Oldest first by (created_at, uuid).",
  tag: "Candidates",
  auth: { scope: "candidates:read" },
  query: {
    page: q.page(),
    per_page: q.perPage(),
    status: q
      .oneOf(CANDIDATE_STATUSES)
      .optional()
      .meta({ description: "Only candidates with this status." }),
    created_since: createdSince(),
  },
  responses: {
    200: {
      description: "A page of candidate identities.",
      body: { envelope: "page", items: candidate },
    },
  },
  errors: { 422: ["VALIDATION_ERROR"] },
} as const satisfies OperationSpec;

export const getCandidateOperation = {
  operationId: "getCandidate",
  method: "get",
  path: "/v1/candidates/{candidate_uuid}",
  summary: "Read one candidate identity",
  description: "A merged candidate carries `merged_into_candidate_uuid`.",
  tag: "Candidates",
  auth: { scope: "candidates:read" },
  pathParams: uuidPath("candidate_uuid", "candidate"),
  responses: {
    200: { description: "The candidate identity.", body: { envelope: "data", schema: candidate } },
  },
  errors: { 404: ["NOT_FOUND"], 422: ["VALIDATION_ERROR"] },
} as const satisfies OperationSpec;

export const listApplicationsOperation = {
  operationId: "listApplications",
  method: "get",
  path: "/v1/applications",
  summary: "List applications",
  description: "Oldest first by (created_at, uuid).",
  tag: "Applications",
  auth: { scope: "applications:read" },
  query: {
    page: q.page(),
    per_page: q.perPage(),
    candidate_uuid: uuidFilter(
      "Only applications recorded for this candidate (not its merge survivor).",
    ),
    vacancy_uuid: uuidFilter("Only applications to this vacancy."),
    practice_id: q
      .text(100)
      .optional()
      .meta({ description: "Only applications for this practice." }),
    resolution: q
      .oneOf(RESOLUTIONS)
      .optional()
      .meta({ description: "Only applications with this resolution." }),
    created_since: createdSince(),
  },
  responses: {
    200: { description: "A page of applications.", body: { envelope: "page", items: application } },
  },
  errors: { 422: ["VALIDATION_ERROR"] },
} as const satisfies OperationSpec;

export const createApplicationOperation = {
  operationId: "createApplication",
  method: "post",
  path: "/v1/applications",
  summary: "Create an application",
  description:
    "Resolves the candidate identity from the e-mail address and/or phone number (kept only as keyed hashes, never returned) and records the application. One application per person and vacancy: a repeat answers 200 with the existing one.",
  tag: "Applications",
  auth: { scope: "applications:write" },
  headers: {
    "Idempotency-Key": {
      description:
        "1–255 printable ASCII characters, scoped to the client, kept at least 24 h: the same key with the same body replays the first answer (`Idempotent-Replayed: true`); with another body it is 422.",
      schema: { type: "string", pattern: "^[\\x20-\\x7E]{1,255}$" },
    },
  },
  requestBody: {
    description:
      "At most 16 KiB. Unknown fields, wrong types and missing fields are 422, each named.",
    schema: { name: "ApplicationRequest", schema: applicationBody },
  },
  responses: {
    200: {
      description: "The application already existed (`application_created` false).",
      body: { envelope: "data", schema: applicationCreated },
      headers: {
        "Idempotent-Replayed": {
          description: "`true` on a replay of an earlier answer.",
          schema: { const: "true" },
        },
      },
    },
    201: {
      description: "The application was created.",
      body: { envelope: "data", schema: applicationCreated },
      headers: {
        "Idempotent-Replayed": {
          description: "`true` on a replay of an earlier answer.",
          schema: { const: "true" },
        },
      },
    },
  },
  errors: {
    409: ["IDEMPOTENT_REQUEST_IN_PROGRESS"],
    413: ["PAYLOAD_TOO_LARGE"],
    415: ["UNSUPPORTED_MEDIA_TYPE"],
    422: ["VALIDATION_ERROR"],
    // The vacancy check reaches the legacy source through the vacancies service.
    503: ["LEGACY_SOURCE_UNAVAILABLE"],
  },
} as const satisfies OperationSpec;

export const getApplicationOperation = {
  operationId: "getApplication",
  method: "get",
  path: "/v1/applications/{application_uuid}",
  summary: "Read one application",
  description: "The state an `application.*` event's `links.self` points to.",
  tag: "Applications",
  auth: { scope: "applications:read" },
  pathParams: uuidPath("application_uuid", "application"),
  responses: {
    200: { description: "The application.", body: { envelope: "data", schema: application } },
  },
  errors: { 404: ["NOT_FOUND"], 422: ["VALIDATION_ERROR"] },
} as const satisfies OperationSpec;

export const submitApplicationOperation = {
  operationId: "submitApplication",
  method: "post",
  path: "/v1/applications/{application_uuid}/submission",
  summary: "Record an application as submitted",
  description:
    "Idempotent: the first call records the submission (201, event `application.submitted`), later calls return it (200). Takes no body (none, or an empty JSON object).",
  tag: "Applications",
  auth: { scope: "applications:write" },
  environments: ["production"],
  pathParams: uuidPath("application_uuid", "application"),
  requestBody: { required: false, schema: { type: "object", maxProperties: 0 } },
  responses: {
    200: {
      description: "Already submitted: the recorded submission.",
      body: { envelope: "data", schema: submission },
    },
    201: { description: "Submitted now.", body: { envelope: "data", schema: submission } },
  },
  errors: { 404: ["NOT_FOUND"], 415: ["UNSUPPORTED_MEDIA_TYPE"], 422: ["VALIDATION_ERROR"] },
} as const satisfies OperationSpec;

export const listRecruitmentCasesOperation = {
  operationId: "listRecruitmentCases",
  method: "get",
  path: "/v1/recruitment-cases",
  summary: "List recruitment cases",
  description: "Oldest first by (created_at, uuid).",
  tag: "Recruitment cases",
  auth: { scope: "recruitment-cases:read" },
  query: {
    page: q.page(),
    per_page: q.perPage(),
    candidate_uuid: uuidFilter("Only cases recorded for this candidate."),
    vacancy_uuid: uuidFilter("Only cases for this vacancy."),
    practice_id: q.text(100).optional().meta({ description: "Only cases for this practice." }),
    created_since: createdSince(),
  },
  responses: {
    200: {
      description: "A page of recruitment cases.",
      body: { envelope: "page", items: recruitmentCase },
    },
  },
  errors: { 422: ["VALIDATION_ERROR"] },
} as const satisfies OperationSpec;

export const getRecruitmentCaseOperation = {
  operationId: "getRecruitmentCase",
  method: "get",
  path: "/v1/recruitment-cases/{recruitment_case_uuid}",
  summary: "Read one recruitment case",
  description: "The case with its applications, oldest first.",
  tag: "Recruitment cases",
  auth: { scope: "recruitment-cases:read" },
  pathParams: uuidPath("recruitment_case_uuid", "recruitment case"),
  responses: {
    200: {
      description: "The recruitment case.",
      body: { envelope: "data", schema: recruitmentCase },
    },
  },
  errors: { 404: ["NOT_FOUND"], 422: ["VALIDATION_ERROR"] },
} as const satisfies OperationSpec;

export const IDENTITY_OPERATIONS: ReadonlyArray<OperationSpec> = [
  listCandidatesOperation,
  getCandidateOperation,
  listApplicationsOperation,
  createApplicationOperation,
  getApplicationOperation,
  submitApplicationOperation,
  listRecruitmentCasesOperation,
  getRecruitmentCaseOperation,
];

/** This service's part of the OpenAPI document (tools/openapi.ts). */
export const OPENAPI: ServiceOpenApi = { tags: IDENTITY_TAGS, operations: IDENTITY_OPERATIONS };
