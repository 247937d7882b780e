import { isoWithOffset } from "@svc/events";
import type { PortalSession } from "../domain/model.ts";

const iso = (d: Date | null): string | null => (d === null ? null : isoWithOffset(d));

/** A portal session as the API shows it: never its link, token or cookie. */
export function presentPortalSession(s: PortalSession) {
  return {
    id: s.id,
    subscription_ids: s.subscriptionIds,
    read_only: s.readOnly,
    created_at: iso(s.createdAt),
    expires_at: iso(s.expiresAt),
    opened_at: iso(s.openedAt),
    revoked_at: iso(s.revokedAt),
    revoked_reason: s.revokedReason,
  };
}
