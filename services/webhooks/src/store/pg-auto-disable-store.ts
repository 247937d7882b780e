import type pg from "pg";
import { guardPg } from "@svc/db";
import type { AutoDisabled, AutoDisableStore } from "../domain/ports.ts";

// At most $3 rows per statement, chosen SKIP LOCKED (a subscription the API or an attempt batch
// holds is checked next round); the outer conditions re-check what the inner read.
const DISABLE_FAILING = `
  UPDATE webhooks.subscriptions
  SET enabled = false, disabled_reason = 'endpoint_failing', disabled_at = $2, updated_at = $2
  WHERE id IN (
    SELECT id FROM webhooks.subscriptions
    WHERE enabled AND first_failure_at <= $1 AND (last_success_at IS NULL OR last_success_at <= $1)
    LIMIT $3 FOR UPDATE SKIP LOCKED)
  AND enabled AND first_failure_at <= $1 AND (last_success_at IS NULL OR last_success_at <= $1)
  RETURNING id, owner_client_id, first_failure_at, last_success_at`;

export class PgAutoDisableStore implements AutoDisableStore {
  readonly #pool: pg.Pool;
  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  disableFailing(cutoff: Date, now: Date, limit: number): Promise<AutoDisabled[]> {
    return guardPg(async () => {
      const { rows } = await this.#pool.query<{
        id: string;
        owner_client_id: string;
        first_failure_at: Date;
        last_success_at: Date | null;
      }>(DISABLE_FAILING, [cutoff, now, limit]);
      return rows.map((r) => ({
        id: r.id,
        ownerClientId: r.owner_client_id,
        firstFailureAt: r.first_failure_at,
        lastSuccessAt: r.last_success_at,
      }));
    });
  }
}
