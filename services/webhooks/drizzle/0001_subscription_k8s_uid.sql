-- The managing WebhookSubscription's uid: unique, so a reconcile never creates a second subscription.
ALTER TABLE "webhooks"."subscriptions" ADD COLUMN "k8s_uid" text;--> statement-breakpoint
ALTER TABLE "webhooks"."subscriptions" ADD CONSTRAINT "subscriptions_k8s_uid_key" UNIQUE("k8s_uid");