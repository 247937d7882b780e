CREATE TABLE "practices"."change_cursor" (
	"source" text PRIMARY KEY NOT NULL,
	"modified_after_local" text NOT NULL,
	"baseline_at" timestamp with time zone NOT NULL,
	"swept_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "practices"."change_state" (
	"entity_id" text PRIMARY KEY NOT NULL,
	"hash" "bytea" NOT NULL,
	"recheck_on" date,
	"seen_at" timestamp with time zone NOT NULL,
	"deleted" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "practices"."outbox" (
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
CREATE INDEX "change_state_recheck_idx" ON "practices"."change_state" USING btree ("recheck_on","entity_id") WHERE recheck_on IS NOT NULL AND NOT deleted;--> statement-breakpoint
CREATE INDEX "outbox_pending_idx" ON "practices"."outbox" USING btree ("id") WHERE sent_at IS NULL;