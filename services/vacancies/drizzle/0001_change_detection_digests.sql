ALTER TABLE "vacancies"."change_cursor" ADD COLUMN "digest_version" text;--> statement-breakpoint
ALTER TABLE "vacancies"."change_state" ADD COLUMN "source_digest" "bytea";