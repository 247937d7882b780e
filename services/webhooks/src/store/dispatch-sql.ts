/**
 * The dispatcher's statements (schema-qualified: they run as prepared statements on any pooled
 * connection). Arrays carry batches; every statement is one round trip and at most one commit.
 */
export const DISPATCH_SQL = {
  // The event row, the deliveries of enabled subscriptions that want its type (none twice: the
  // unique key), then every first-round delivery of the event still pending, new or from an
  // earlier try (one snapshot: the second SELECT does not see this statement's own inserts).
  // queued_at is set at once: the event is acked only after they are all published.
  fanOut: `
    WITH e AS (
      INSERT INTO webhooks.events (event_uuid, event_type, body, traceparent, tracestate, received_at)
      VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (event_uuid) DO NOTHING),
    ins AS (
      INSERT INTO webhooks.deliveries (id, subscription_id, event_uuid, event_type, status, next_attempt_at, queued_at, created_at, updated_at)
      SELECT gen_random_uuid(), s.id, $1, $2, 'pending', $6, $6, $6, $6
      FROM webhooks.subscriptions s
      WHERE s.enabled AND s.event_types @> ARRAY[$2::text]
      ON CONFLICT (event_uuid, subscription_id) DO NOTHING
      RETURNING id, subscription_id, round)
    SELECT id, subscription_id, round FROM ins
    UNION ALL
    SELECT id, subscription_id, round FROM webhooks.deliveries WHERE event_uuid = $1 AND round = 1 AND status = 'pending'`,

  markQueued: `
    UPDATE webhooks.deliveries AS d SET queued_at = $3
    FROM unnest($1::uuid[], $2::int[]) AS m(id, round)
    WHERE d.id = m.id AND d.round = m.round AND d.queued_at IS NULL`,

  loadForAttempts: `
    SELECT d.id, d.subscription_id, d.event_uuid, d.event_type, d.status, d.round, d.round_attempts, d.next_attempt_at, d.created_at,
           e.body, e.traceparent, e.tracestate,
           s.url, s.enabled, s.secret_sealed, s.previous_secret_sealed, s.previous_secret_expires_at
    FROM webhooks.deliveries d
    JOIN webhooks.events e ON e.event_uuid = d.event_uuid
    JOIN webhooks.subscriptions s ON s.id = d.subscription_id
    WHERE d.id = ANY($1::uuid[])`,

  // Each record applies only if the delivery is still where its worker saw it (same round, same
  // attempt count, pending); the attempt row is written for exactly those. Both or neither.
  // Subscription health for automatic disabling, in the same statement: a success clears the
  // failing streak (first_failure_at) and moves last_success_at, at most once a minute while
  // healthy; a failure starts a streak if none is running. A subscription row another statement
  // holds is skipped, never waited for (no lock queue on a busy subscription, no deadlock between
  // batches); a later attempt writes what was skipped.
  recordAttempts: `
    WITH input AS (
      SELECT * FROM unnest($1::uuid[], $2::int[], $3::int[], $4::timestamptz[], $5::int[], $6::int[], $7::text[], $8::text[],
                           $9::text[], $10::text[], $11::text[], $12::text[], $13::timestamptz[])
        AS i(delivery_id, round, expected, attempted_at, duration_ms, status_code, outcome, error_class,
             error_detail, response_sample, status, failure_reason, next_attempt_at)),
    u AS (
      UPDATE webhooks.deliveries d
      SET status = i.status, failure_reason = i.failure_reason, round_attempts = d.round_attempts + 1,
          attempt_count = d.attempt_count + 1, last_status_code = i.status_code, last_attempt_at = i.attempted_at,
          next_attempt_at = i.next_attempt_at, updated_at = i.attempted_at
      FROM input i
      WHERE d.id = i.delivery_id AND d.round = i.round AND d.round_attempts = i.expected AND d.status = 'pending'
      RETURNING d.id, d.attempt_count, d.round, d.subscription_id),
    outcomes AS (
      SELECT u.subscription_id, max(i.attempted_at) FILTER (WHERE i.outcome = 'succeeded') AS succeeded_at,
             min(i.attempted_at) FILTER (WHERE i.outcome <> 'succeeded') AS failed_at
      FROM u JOIN input i ON i.delivery_id = u.id GROUP BY u.subscription_id),
    changed AS (
      SELECT s.id, o.succeeded_at, o.failed_at
      FROM webhooks.subscriptions s JOIN outcomes o ON o.subscription_id = s.id
      WHERE CASE WHEN o.succeeded_at IS NULL THEN s.first_failure_at IS NULL
                 ELSE s.first_failure_at IS NOT NULL OR s.last_success_at IS NULL
                      OR s.last_success_at < o.succeeded_at - interval '1 minute' END
      FOR UPDATE OF s SKIP LOCKED),
    health AS (
      UPDATE webhooks.subscriptions s
      SET first_failure_at = CASE WHEN c.succeeded_at IS NULL THEN c.failed_at END,
          last_success_at = GREATEST(s.last_success_at, c.succeeded_at)
      FROM changed c WHERE s.id = c.id)
    INSERT INTO webhooks.delivery_attempts (delivery_id, number, round, attempted_at, duration_ms, status_code, outcome, error_class, error_detail, response_sample)
    SELECT u.id, u.attempt_count, u.round, i.attempted_at, i.duration_ms, i.status_code, i.outcome, i.error_class, i.error_detail, i.response_sample
    FROM u JOIN input i ON i.delivery_id = u.id
    RETURNING delivery_id`,

  closeAsDisabled: `
    UPDATE webhooks.deliveries SET status = 'failed', failure_reason = 'subscription_disabled', next_attempt_at = NULL, updated_at = $3
    WHERE id = $1 AND round = $2 AND status = 'pending'`,

  findUnqueued: `
    SELECT d.id, d.subscription_id, d.event_uuid, d.round, e.traceparent, e.tracestate
    FROM webhooks.deliveries d JOIN webhooks.events e ON e.event_uuid = d.event_uuid
    WHERE d.queued_at IS NULL AND d.status = 'pending' AND d.updated_at < $1
    ORDER BY d.created_at LIMIT $2`,
} as const;
