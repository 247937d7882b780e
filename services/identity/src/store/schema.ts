import { sql } from "drizzle-orm";
import {
  boolean,
  check,
  customType,
  index,
  pgSchema,
  text,
  timestamp,
  unique,
  uuid,
  type AnyPgColumn,
} from "drizzle-orm/pg-core";
import { outboxTable } from "@svc/events";
import { idempotencyKeysTable } from "./idempotency-table.ts";

/**
 * The identity service's own store. It holds identities and links, never personal data: e-mail
 * addresses and phone numbers exist here only as keyed lookup hashes (HMAC-SHA256 with the pepper).
 */
export const identitySchema = pgSchema("identity");

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => "bytea" });
const instant = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const candidates = identitySchema.table(
  "candidates",
  {
    candidateUuid: uuid("candidate_uuid").primaryKey(),
    status: text("status", { enum: ["active", "merged", "inactive"] }).notNull(),
    mergedIntoCandidateUuid: uuid("merged_into_candidate_uuid").references(
      (): AnyPgColumn => candidates.candidateUuid,
    ),
    createdAt: instant("created_at").notNull(),
    updatedAt: instant("updated_at"),
  },
  (t) => [
    index("candidates_created_idx").on(t.createdAt, t.candidateUuid),
    index("candidates_merged_into_idx").on(t.mergedIntoCandidateUuid),
    check("candidates_status_check", sql`${t.status} IN ('active', 'merged', 'inactive')`),
    // A merged candidate always names its survivor, and only a merged one does.
    check(
      "candidates_merge_check",
      sql`(${t.status} = 'merged') = (${t.mergedIntoCandidateUuid} IS NOT NULL)`,
    ),
    check("candidates_no_self_merge", sql`${t.mergedIntoCandidateUuid} <> ${t.candidateUuid}`),
  ],
);

/** One row per known identifier: the keyed hash (kind is inside the HMAC input too) → candidate. */
export const candidateIdentifiers = identitySchema.table(
  "candidate_identifiers",
  {
    lookupHash: bytea("lookup_hash").primaryKey(),
    kind: text("kind", { enum: ["email", "phone"] }).notNull(),
    candidateUuid: uuid("candidate_uuid")
      .notNull()
      .references(() => candidates.candidateUuid),
    createdAt: instant("created_at").notNull(),
  },
  (t) => [
    index("candidate_identifiers_candidate_idx").on(t.candidateUuid),
    check("candidate_identifiers_kind_check", sql`${t.kind} IN ('email', 'phone')`),
  ],
);

export const recruitmentCases = identitySchema.table(
  "recruitment_cases",
  {
    recruitmentCaseUuid: uuid("recruitment_case_uuid").primaryKey(),
    candidateUuid: uuid("candidate_uuid")
      .notNull()
      .references(() => candidates.candidateUuid),
    vacancyUuid: text("vacancy_uuid").notNull(),
    practiceId: text("practice_id").notNull(),
    createdAt: instant("created_at").notNull(),
    updatedAt: instant("updated_at"),
  },
  (t) => [
    unique("recruitment_cases_candidate_vacancy_key").on(t.candidateUuid, t.vacancyUuid),
    index("recruitment_cases_created_idx").on(t.createdAt, t.recruitmentCaseUuid),
    index("recruitment_cases_vacancy_idx").on(t.vacancyUuid),
    index("recruitment_cases_practice_idx").on(t.practiceId),
  ],
);

export const applications = identitySchema.table(
  "applications",
  {
    applicationUuid: uuid("application_uuid").primaryKey(),
    candidateUuid: uuid("candidate_uuid")
      .notNull()
      .references(() => candidates.candidateUuid),
    vacancyUuid: text("vacancy_uuid").notNull(),
    practiceId: text("practice_id").notNull(),
    resolution: text("resolution", { enum: ["resolved", "unresolved", "ambiguous"] }).notNull(),
    consentFlag: boolean("consent_flag").notNull(),
    entrypointRaw: text("entrypoint_raw"),
    entrypointCode: text("entrypoint_code"),
    recruitmentCaseUuid: uuid("recruitment_case_uuid")
      .notNull()
      .references(() => recruitmentCases.recruitmentCaseUuid),
    createdAt: instant("created_at").notNull(),
    updatedAt: instant("updated_at"),
    submittedAt: instant("submitted_at"),
  },
  (t) => [
    // One application per candidate and vacancy: a second POST answers 200 with this one.
    unique("applications_candidate_vacancy_key").on(t.candidateUuid, t.vacancyUuid),
    index("applications_created_idx").on(t.createdAt, t.applicationUuid),
    index("applications_vacancy_idx").on(t.vacancyUuid),
    index("applications_practice_idx").on(t.practiceId),
    index("applications_case_idx").on(t.recruitmentCaseUuid),
    check(
      "applications_resolution_check",
      sql`${t.resolution} IN ('resolved', 'unresolved', 'ambiguous')`,
    ),
  ],
);

export const idempotencyKeys = idempotencyKeysTable(identitySchema);

export const outbox = outboxTable(identitySchema);
