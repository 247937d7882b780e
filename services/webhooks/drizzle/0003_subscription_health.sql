-- Subscription health (docs/decisions/auto-disable-failing-endpoints.md): why and since when a
-- subscription is disabled, and the failing streak the dispatcher keeps. Expand-only: new
-- nullable columns; subscriptions already disabled are marked as disabled on request.
ALTER TABLE "webhooks"."subscriptions" ADD COLUMN "disabled_reason" text;--> statement-breakpoint
ALTER TABLE "webhooks"."subscriptions" ADD COLUMN "disabled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhooks"."subscriptions" ADD COLUMN "first_failure_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhooks"."subscriptions" ADD COLUMN "last_success_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhooks"."subscriptions" ADD CONSTRAINT "subscriptions_disabled_reason_check" CHECK (disabled_reason IN ('requested', 'endpoint_failing'));--> statement-breakpoint
UPDATE "webhooks"."subscriptions" SET "disabled_reason" = 'requested', "disabled_at" = "updated_at" WHERE NOT "enabled";
