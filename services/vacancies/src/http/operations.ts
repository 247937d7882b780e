/**
 * The vacancy operations (list, single read, metadata), declared once: the router mounts these
 * paths and parses these query shapes, and the OpenAPI document (tools/openapi.ts) is generated
 * from them and the field catalogue.
 */
import { occurredAtFor } from "@svc/events";
import {
  catalogueSchema,
  metadataResourceSchema,
  type NamedSchema,
  type OperationSpec,
  type TagSpec,
  type ServiceOpenApi,
  uuidPathParams,
} from "@svc/openapi";
import { q } from "@svc/http";
import { VACANCY_FIELDS } from "../domain/vacancy-catalogue.ts";

export const VACANCIES_SCOPE = "vacancies:read";

export const VACANCY_TAGS: TagSpec[] = [
  {
    name: "Vacancies",
    description:
      "Vacancies of the primary system, read-only, with their metadata and reference lists.",
  },
];

const vacancy: NamedSchema = {
  name: "Vacancy",
  description: "A vacancy; deleted vacancies are never returned.",
  schema: catalogueSchema(VACANCY_FIELDS),
};

const referenceList = (usedBy: string) => ({
  type: "object",
  additionalProperties: false,
  required: ["used_by", "entries"],
  properties: {
    used_by: { const: usedBy },
    entries: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["code", "label", "active"],
        properties: {
          code: { type: "string" },
          label: { type: "string" },
          active: {
            type: "boolean",
            description:
              "Selectable today; inactive entries stay because older vacancies may refer to them.",
          },
        },
      },
    },
  },
});

const vacancyMetadata: NamedSchema = {
  name: "VacancyMetadata",
  description:
    "The vacancy field catalogue with the live reference lists `positions` and `provinces`.",
  schema: metadataResourceSchema(
    {
      type: "object",
      additionalProperties: false,
      required: ["positions", "provinces"],
      properties: {
        positions: referenceList("position.code"),
        provinces: referenceList("location.province.code"),
      },
    },
    occurredAtFor("vacancy"),
  ),
};

const LEGACY_ERRORS = { 422: ["VALIDATION_ERROR"], 503: ["LEGACY_SOURCE_UNAVAILABLE"] } as const;

export const listVacanciesOperation = {
  operationId: "listVacancies",
  method: "get",
  path: "/v1/vacancies",
  summary: "List vacancies",
  description:
    "Filters are combined (AND). Ordered by the primary system's own stable order (its internal id), so pages do not overlap while the data stands still.",
  tag: "Vacancies",
  auth: { scope: VACANCIES_SCOPE },
  query: {
    page: q.page(),
    per_page: q.perPage(),
    language: q
      .oneOf(["nl", "fr"])
      .optional()
      .meta({ description: "Only vacancies in this language." }),
    // Codes outside the reference lists are valid filters: vacancies do carry unknown codes.
    province: q.text().optional().meta({
      description: "Province code (reference list `provinces`); unknown codes are valid filters.",
    }),
    position: q.text().optional().meta({
      description: "Position code (reference list `positions`); unknown codes are valid filters.",
    }),
    status: q.oneOf(["created", "open", "filled"]).optional().meta({
      description: "Legacy workflow status (`status.value`); does not decide publication.",
    }),
    published: q.bool().optional().meta({
      description: "Only (un)published vacancies, by the public-site rule of `published`.",
    }),
    practice: q
      .text()
      .optional()
      .meta({ description: "Only vacancies of this practice_id (`practice.legacy_reference`)." }),
    updated_since: q.dateOrDateTime().optional().meta({
      description:
        "Updated at or after: a date (midnight Europe/Brussels) or a date-time with offset.",
    }),
  },
  responses: {
    200: { description: "A page of vacancies.", body: { envelope: "page", items: vacancy } },
  },
  errors: LEGACY_ERRORS,
} as const satisfies OperationSpec;

export const getVacancyOperation = {
  operationId: "getVacancy",
  method: "get",
  path: "/v1/vacancies/{uuid}",
  summary: "Read one vacancy",
  description: "A soft-deleted vacancy is 404, like an unknown uuid.",
  tag: "Vacancies",
  auth: { scope: VACANCIES_SCOPE },
  pathParams: uuidPathParams({ uuid: "vacancy" }),
  query: {},
  responses: { 200: { description: "The vacancy.", body: { envelope: "data", schema: vacancy } } },
  errors: { ...LEGACY_ERRORS, 404: ["NOT_FOUND"] },
} as const satisfies OperationSpec;

export const vacancyMetadataOperation = {
  operationId: "getVacancyMetadata",
  method: "get",
  path: "/v1/meta/vacancies",
  summary: "Vacancy field metadata and reference lists",
  description:
    "What every vacancy field means, with the reference lists `positions` and `provinces`; no business data.",
  tag: "Vacancies",
  auth: { scope: VACANCIES_SCOPE },
  query: {},
  responses: {
    200: {
      description: "The metadata resource.",
      body: { envelope: "data", schema: vacancyMetadata },
    },
  },
  errors: LEGACY_ERRORS,
} as const satisfies OperationSpec;

export const VACANCY_OPERATIONS: ReadonlyArray<OperationSpec> = [
  listVacanciesOperation,
  getVacancyOperation,
  vacancyMetadataOperation,
];

/** This service's part of the OpenAPI document (tools/openapi.ts). */
export const OPENAPI: ServiceOpenApi = { tags: VACANCY_TAGS, operations: VACANCY_OPERATIONS };
