CREATE SCHEMA IF NOT EXISTS "auth";
--> statement-breakpoint
CREATE TYPE "auth"."client_status" AS ENUM('active', 'revoked');--> statement-breakpoint
CREATE TABLE "auth"."clients" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"secret_hash" text NOT NULL,
	"scopes" text[] NOT NULL,
	"status" "auth"."client_status" DEFAULT 'active' NOT NULL,
	"is_crm_mirror" boolean DEFAULT false NOT NULL,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"rotated_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "clients_crm_mirror_scope" CHECK ("auth"."clients"."is_crm_mirror" OR NOT ('crm-mirror:write' = ANY("auth"."clients"."scopes"))),
	CONSTRAINT "clients_revoked_at" CHECK (("auth"."clients"."status" = 'revoked') = ("auth"."clients"."revoked_at" IS NOT NULL))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "clients_one_active_crm_mirror" ON "auth"."clients" USING btree ("is_crm_mirror") WHERE "auth"."clients"."is_crm_mirror" AND "auth"."clients"."status" = 'active';--> statement-breakpoint
CREATE INDEX "clients_revoked_or_expiring" ON "auth"."clients" USING btree ("id") WHERE "auth"."clients"."status" = 'revoked' OR "auth"."clients"."expires_at" IS NOT NULL;