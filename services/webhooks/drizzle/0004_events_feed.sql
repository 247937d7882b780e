-- The events feed (src/store/pg-event-feed-store.ts): the inserting transaction's id orders the feed.
-- Existing rows take 0 (a constant default: no table rewrite), then new rows get their own.
ALTER TABLE "webhooks"."events" ADD COLUMN "feed_xid" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "webhooks"."events" ALTER COLUMN "feed_xid" SET DEFAULT (pg_current_xact_id()::text)::bigint;--> statement-breakpoint
CREATE INDEX "events_feed_idx" ON "webhooks"."events" USING btree ("feed_xid","event_uuid");
