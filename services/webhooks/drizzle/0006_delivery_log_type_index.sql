-- The delivery log filtered by event type, newest first (src/store/pg-delivery-store.ts): an index
-- range per subscription instead of a scan of its deliveries. Expand-only: a new index.
CREATE INDEX "deliveries_subscription_type_idx" ON "webhooks"."deliveries" USING btree ("subscription_id","event_type","created_at","id");