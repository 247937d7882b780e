-- IF NOT EXISTS: runMigrations creates the schema first (its journal lives there).
CREATE SCHEMA IF NOT EXISTS "webhooks";
--> statement-breakpoint
CREATE TABLE "webhooks"."deliveries" (
	"id" uuid PRIMARY KEY NOT NULL,
	"subscription_id" uuid NOT NULL,
	"event_uuid" uuid NOT NULL,
	"event_type" text NOT NULL,
	"status" text NOT NULL,
	"failure_reason" text,
	"round" integer DEFAULT 1 NOT NULL,
	"round_attempts" integer DEFAULT 0 NOT NULL,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"last_status_code" integer,
	"last_attempt_at" timestamp with time zone,
	"next_attempt_at" timestamp with time zone,
	"queued_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "deliveries_event_subscription_key" UNIQUE("event_uuid","subscription_id"),
	CONSTRAINT "deliveries_status_check" CHECK (status IN ('pending', 'succeeded', 'failed', 'dead'))
);
--> statement-breakpoint
CREATE TABLE "webhooks"."delivery_attempts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"delivery_id" uuid NOT NULL,
	"number" integer NOT NULL,
	"round" integer NOT NULL,
	"attempted_at" timestamp with time zone NOT NULL,
	"duration_ms" integer NOT NULL,
	"status_code" integer,
	"outcome" text NOT NULL,
	"error_class" text,
	"error_detail" text,
	"response_sample" text
);
--> statement-breakpoint
CREATE TABLE "webhooks"."events" (
	"event_uuid" uuid PRIMARY KEY NOT NULL,
	"event_type" text NOT NULL,
	"body" text NOT NULL,
	"traceparent" text,
	"tracestate" text,
	"received_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhooks"."subscriptions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"owner_client_id" text NOT NULL,
	"url" text NOT NULL,
	"event_types" text[] NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"secret_sealed" text NOT NULL,
	"previous_secret_sealed" text,
	"previous_secret_expires_at" timestamp with time zone,
	"secret_rotated_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "webhooks"."deliveries" ADD CONSTRAINT "deliveries_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "webhooks"."subscriptions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhooks"."deliveries" ADD CONSTRAINT "deliveries_event_uuid_events_event_uuid_fk" FOREIGN KEY ("event_uuid") REFERENCES "webhooks"."events"("event_uuid") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhooks"."delivery_attempts" ADD CONSTRAINT "delivery_attempts_delivery_id_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "webhooks"."deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "deliveries_subscription_idx" ON "webhooks"."deliveries" USING btree ("subscription_id","created_at","id");--> statement-breakpoint
CREATE INDEX "deliveries_subscription_status_idx" ON "webhooks"."deliveries" USING btree ("subscription_id","status","created_at");--> statement-breakpoint
CREATE INDEX "deliveries_unqueued_idx" ON "webhooks"."deliveries" USING btree ("created_at") WHERE queued_at IS NULL;--> statement-breakpoint
CREATE INDEX "delivery_attempts_delivery_idx" ON "webhooks"."delivery_attempts" USING btree ("delivery_id","number");--> statement-breakpoint
CREATE INDEX "subscriptions_owner_idx" ON "webhooks"."subscriptions" USING btree ("owner_client_id","created_at","id");--> statement-breakpoint
CREATE INDEX "subscriptions_event_types_idx" ON "webhooks"."subscriptions" USING gin ("event_types");