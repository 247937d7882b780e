import type pg from "pg";
import type { TraceContext } from "@svc/messaging";
import type { Resolution } from "../domain/model.ts";
import type { ApplicationDraft, RecordedApplication } from "../domain/ports.ts";
import { MAX_MERGE_DEPTH } from "./db.ts";

/**
 * The whole application write as one call of identity.record_application (migration
 * 0001_record_application.sql), a named statement, so each connection parses and plans it once:
 * one round trip, and its own transaction. Why: docs/decisions/application-write-path.md.
 */
const RECORD_APPLICATION = {
  name: "identity.record_application",
  text: "SELECT * FROM identity.record_application($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
};

interface Row {
  application_uuid: string;
  candidate_uuid: string;
  vacancy_uuid: string;
  practice_id: string;
  resolution: Resolution;
  consent_flag: boolean;
  entrypoint_raw: string | null;
  entrypoint_code: string | null;
  recruitment_case_uuid: string;
  created_at: Date;
  updated_at: Date | null;
  submitted_at: Date | null;
  candidate_created: boolean;
  application_created: boolean;
}

/** Advisory-lock key of an identifier: the first 64 bits of its keyed hash. */
const lockKeyOf = (hash: Buffer): string => hash.readBigInt64BE(0).toString();

export async function recordApplication(
  pool: pg.Pool,
  draft: ApplicationDraft,
  traceContext: TraceContext | undefined,
): Promise<RecordedApplication> {
  const result = await pool.query<Row>({
    ...RECORD_APPLICATION,
    values: [
      draft.keys.map((k) => k.hash),
      draft.keys.map((k) => k.kind),
      [...new Set(draft.keys.map((k) => lockKeyOf(k.hash)))],
      draft.vacancyUuid,
      draft.practiceId,
      draft.consent,
      draft.entrypointRaw,
      draft.entrypointCode,
      draft.now,
      draft.candidateUuid,
      draft.recruitmentCaseUuid,
      draft.applicationUuid,
      JSON.stringify(draft.events),
      traceContext === undefined ? null : JSON.stringify(traceContext),
      MAX_MERGE_DEPTH,
    ],
  });
  const row = result.rows[0];
  if (!row) throw new Error("record_application returned no row");
  return {
    application: {
      applicationUuid: row.application_uuid,
      candidateUuid: row.candidate_uuid,
      vacancyUuid: row.vacancy_uuid,
      practiceId: row.practice_id,
      resolution: row.resolution,
      consentFlag: row.consent_flag,
      entrypointRaw: row.entrypoint_raw,
      entrypointCode: row.entrypoint_code,
      recruitmentCaseUuid: row.recruitment_case_uuid,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      submittedAt: row.submitted_at,
    },
    candidateCreated: row.candidate_created,
    applicationCreated: row.application_created,
  };
}
