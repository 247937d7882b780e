ALTER TABLE "practices"."change_cursor" ADD COLUMN "digest_version" text;--> statement-breakpoint
ALTER TABLE "practices"."change_state" ADD COLUMN "source_digest" "bytea";