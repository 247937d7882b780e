-- Subscriber portal sessions (src/store/pg-portal-session-store.ts): a new table, so an expand-only step.
-- Only SHA-256 hashes of the link's one-time token and of the cookie's secret are kept.
CREATE TABLE "webhooks"."portal_sessions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"subscription_ids" uuid[],
	"read_only" boolean NOT NULL,
	"scopes" text[] NOT NULL,
	"token_hash" text NOT NULL,
	"cookie_hash" text,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"opened_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"revoked_reason" text,
	CONSTRAINT "portal_sessions_revoked_reason_check" CHECK (revoked_reason IN ('requested', 'client_revoked'))
);
--> statement-breakpoint
CREATE INDEX "portal_sessions_client_idx" ON "webhooks"."portal_sessions" USING btree ("client_id","created_at");