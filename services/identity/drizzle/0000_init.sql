CREATE SCHEMA IF NOT EXISTS "identity";
--> statement-breakpoint
CREATE TABLE "identity"."applications" (
	"application_uuid" uuid PRIMARY KEY NOT NULL,
	"candidate_uuid" uuid NOT NULL,
	"vacancy_uuid" text NOT NULL,
	"practice_id" text NOT NULL,
	"resolution" text NOT NULL,
	"consent_flag" boolean NOT NULL,
	"entrypoint_raw" text,
	"entrypoint_code" text,
	"recruitment_case_uuid" uuid NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone,
	"submitted_at" timestamp with time zone,
	CONSTRAINT "applications_candidate_vacancy_key" UNIQUE("candidate_uuid","vacancy_uuid"),
	CONSTRAINT "applications_resolution_check" CHECK ("identity"."applications"."resolution" IN ('resolved', 'unresolved', 'ambiguous'))
);
--> statement-breakpoint
CREATE TABLE "identity"."candidate_identifiers" (
	"lookup_hash" "bytea" PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"candidate_uuid" uuid NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "candidate_identifiers_kind_check" CHECK ("identity"."candidate_identifiers"."kind" IN ('email', 'phone'))
);
--> statement-breakpoint
CREATE TABLE "identity"."candidates" (
	"candidate_uuid" uuid PRIMARY KEY NOT NULL,
	"status" text NOT NULL,
	"merged_into_candidate_uuid" uuid,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone,
	CONSTRAINT "candidates_status_check" CHECK ("identity"."candidates"."status" IN ('active', 'merged', 'inactive')),
	CONSTRAINT "candidates_merge_check" CHECK (("identity"."candidates"."status" = 'merged') = ("identity"."candidates"."merged_into_candidate_uuid" IS NOT NULL)),
	CONSTRAINT "candidates_no_self_merge" CHECK ("identity"."candidates"."merged_into_candidate_uuid" <> "identity"."candidates"."candidate_uuid")
);
--> statement-breakpoint
CREATE TABLE "identity"."idempotency_keys" (
	"client_id" text NOT NULL,
	"key_hash" "bytea" NOT NULL,
	"request_hash" "bytea" NOT NULL,
	"state" text NOT NULL,
	"response_status" integer,
	"response_body" text,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"locked_until" timestamp with time zone NOT NULL,
	CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY("client_id","key_hash"),
	CONSTRAINT "idempotency_keys_state_check" CHECK ("identity"."idempotency_keys"."state" IN ('in_progress', 'completed'))
);
--> statement-breakpoint
CREATE TABLE "identity"."outbox" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"event_uuid" uuid NOT NULL,
	"event_type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"trace_context" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone,
	CONSTRAINT "outbox_event_uuid_unique" UNIQUE("event_uuid")
);
--> statement-breakpoint
CREATE TABLE "identity"."recruitment_cases" (
	"recruitment_case_uuid" uuid PRIMARY KEY NOT NULL,
	"candidate_uuid" uuid NOT NULL,
	"vacancy_uuid" text NOT NULL,
	"practice_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone,
	CONSTRAINT "recruitment_cases_candidate_vacancy_key" UNIQUE("candidate_uuid","vacancy_uuid")
);
--> statement-breakpoint
ALTER TABLE "identity"."applications" ADD CONSTRAINT "applications_candidate_uuid_candidates_candidate_uuid_fk" FOREIGN KEY ("candidate_uuid") REFERENCES "identity"."candidates"("candidate_uuid") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."applications" ADD CONSTRAINT "applications_recruitment_case_uuid_recruitment_cases_recruitment_case_uuid_fk" FOREIGN KEY ("recruitment_case_uuid") REFERENCES "identity"."recruitment_cases"("recruitment_case_uuid") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."candidate_identifiers" ADD CONSTRAINT "candidate_identifiers_candidate_uuid_candidates_candidate_uuid_fk" FOREIGN KEY ("candidate_uuid") REFERENCES "identity"."candidates"("candidate_uuid") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."candidates" ADD CONSTRAINT "candidates_merged_into_candidate_uuid_candidates_candidate_uuid_fk" FOREIGN KEY ("merged_into_candidate_uuid") REFERENCES "identity"."candidates"("candidate_uuid") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."recruitment_cases" ADD CONSTRAINT "recruitment_cases_candidate_uuid_candidates_candidate_uuid_fk" FOREIGN KEY ("candidate_uuid") REFERENCES "identity"."candidates"("candidate_uuid") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "applications_created_idx" ON "identity"."applications" USING btree ("created_at","application_uuid");--> statement-breakpoint
CREATE INDEX "applications_vacancy_idx" ON "identity"."applications" USING btree ("vacancy_uuid");--> statement-breakpoint
CREATE INDEX "applications_practice_idx" ON "identity"."applications" USING btree ("practice_id");--> statement-breakpoint
CREATE INDEX "applications_case_idx" ON "identity"."applications" USING btree ("recruitment_case_uuid");--> statement-breakpoint
CREATE INDEX "candidate_identifiers_candidate_idx" ON "identity"."candidate_identifiers" USING btree ("candidate_uuid");--> statement-breakpoint
CREATE INDEX "candidates_created_idx" ON "identity"."candidates" USING btree ("created_at","candidate_uuid");--> statement-breakpoint
CREATE INDEX "candidates_merged_into_idx" ON "identity"."candidates" USING btree ("merged_into_candidate_uuid");--> statement-breakpoint
CREATE INDEX "idempotency_keys_expires_idx" ON "identity"."idempotency_keys" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "outbox_pending_idx" ON "identity"."outbox" USING btree ("id") WHERE sent_at IS NULL;--> statement-breakpoint
CREATE INDEX "recruitment_cases_created_idx" ON "identity"."recruitment_cases" USING btree ("created_at","recruitment_case_uuid");--> statement-breakpoint
CREATE INDEX "recruitment_cases_vacancy_idx" ON "identity"."recruitment_cases" USING btree ("vacancy_uuid");--> statement-breakpoint
CREATE INDEX "recruitment_cases_practice_idx" ON "identity"."recruitment_cases" USING btree ("practice_id");