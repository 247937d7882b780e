-- IF NOT EXISTS: runMigrations creates the schema first (its journal lives there).
CREATE SCHEMA IF NOT EXISTS "practices";
--> statement-breakpoint
CREATE TABLE "practices"."crm_accounts" (
	"crm_id" text PRIMARY KEY NOT NULL,
	"name" text,
	"alias" text,
	"organisation_type" text,
	"language" text,
	"vat" text,
	"street" text,
	"postal_code" text,
	"city" text,
	"province" text,
	"country" text,
	"email" text,
	"phone" text,
	"period_start" date,
	"period_stop" date,
	"modified_on" timestamp(6) with time zone NOT NULL,
	"deleted" boolean DEFAULT false NOT NULL,
	"received_at" timestamp(3) with time zone NOT NULL
);
