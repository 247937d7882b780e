/**
 * The path parameters, paging and body errors the webhook operations share
 * (operations.ts, delivery-operations.ts).
 */
import { q } from "@svc/http";
import { uuidPathParams } from "@svc/openapi";

export const webhookPath = uuidPathParams({ webhook_uuid: "subscription" });
export const deliveryPath = uuidPathParams({
  webhook_uuid: "subscription",
  delivery_uuid: "delivery",
});
export const page = { page: q.page(), per_page: q.perPage() };
export const BODY_ERRORS = {
  413: ["PAYLOAD_TOO_LARGE"],
  415: ["UNSUPPORTED_MEDIA_TYPE"],
  422: ["VALIDATION_ERROR"],
} as const;
