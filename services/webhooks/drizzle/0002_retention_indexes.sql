-- Retention (src/retention): finished deliveries by when they finished, events by when they arrived.
CREATE INDEX "deliveries_finished_idx" ON "webhooks"."deliveries" USING btree ("updated_at") WHERE status <> 'pending';--> statement-breakpoint
CREATE INDEX "events_received_at_idx" ON "webhooks"."events" USING btree ("received_at","event_uuid");