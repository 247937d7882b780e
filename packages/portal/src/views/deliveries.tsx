// The delivery log, of one subscription or across the session's subscriptions: filters, live
// update (polled every second while the page is visible), each delivery's attempts, redelivery.
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import {
  DELIVERY_STATUSES,
  FIRST_PAGE,
  firstLogPageOnce,
  subscriptionsOnce,
  webhooks,
  type Delivery,
  type DeliveryDetail,
  type DeliveryStatus,
  type Session,
  type Subscription,
} from "../api.ts";
import { useEventTypes } from "../event-types.ts";
import { formatTime, localInputToInstant, sampleText } from "../format.ts";
import { ErrorNote, Filter, Filters, StatusBadge } from "./common.tsx";

/** How often the log asks for new deliveries and attempts (the target is 2 s). */
export const POLL_MS = 1_000;
const PAGE = FIRST_PAGE;
const MAX_PER_PAGE = 100;

interface Filters {
  status: DeliveryStatus | "";
  type: string;
  from: string;
  to: string;
}

/** The newest `limit` deliveries matching the filters (the API filters and pages them). */
async function newestDeliveries(
  subscriptionId: string | null,
  limit: number,
  filters: Filters,
): Promise<{ rows: Delivery[]; total: number }> {
  const perPage = Math.min(limit, MAX_PER_PAGE);
  const query = {
    perPage,
    status: filters.status || undefined,
    eventType: filters.type || undefined,
    createdSince: (filters.from && localInputToInstant(filters.from)) || undefined,
    createdBefore: (filters.to && localInputToInstant(filters.to)) || undefined,
  };
  const unfiltered =
    !query.status && !query.eventType && !query.createdSince && !query.createdBefore;
  const prefetched =
    subscriptionId === null && unfiltered && limit === FIRST_PAGE ? firstLogPageOnce() : null;
  const answers = await Promise.all(
    Array.from({ length: Math.ceil(limit / perPage) }, (_, i) =>
      i === 0 && prefetched
        ? prefetched
        : webhooks.deliveries(subscriptionId, { ...query, page: i + 1 }),
    ),
  );
  return {
    rows: answers.flatMap((a) => a.data).slice(0, limit),
    total: answers[0]?.pagination?.total ?? 0,
  };
}

function Attempts({ detail }: { detail: DeliveryDetail }) {
  if (detail.attempts.length === 0) return <p>No attempt yet.</p>;
  return (
    <table class="attempts">
      <caption>Attempts, oldest first</caption>
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">Round</th>
          <th scope="col">Time</th>
          <th scope="col">Duration</th>
          <th scope="col">Status code</th>
          <th scope="col">Outcome</th>
          <th scope="col">Error class</th>
          <th scope="col">Response (first bytes, as text)</th>
        </tr>
      </thead>
      <tbody>
        {detail.attempts.map((a) => (
          <tr key={a.number} data-testid="attempt">
            <td>{a.number}</td>
            <td>{a.round}</td>
            <td>{formatTime(a.attempted_at)}</td>
            <td>{a.duration_ms} ms</td>
            <td>{a.status_code ?? "–"}</td>
            <td>
              <StatusBadge status={a.outcome} />
            </td>
            <td>
              {a.error_class ?? "–"}
              {a.error_detail ? <span class="muted"> ({a.error_detail})</span> : null}
            </td>
            <td>
              {/* Text only: the subscriber's answer is never interpreted as markup. */}
              <pre class="sample" data-testid="response-sample">
                {sampleText(a.response_sample)}
              </pre>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function DeliveryPanel(props: {
  delivery: Delivery;
  session: Session;
  subscriptionEnabled: boolean;
  onChanged: () => void;
}) {
  const d = props.delivery;
  const [detail, setDetail] = useState<DeliveryDetail | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState("");
  const [busy, setBusy] = useState(false);
  // Read again whenever the log shows the delivery changed (a new attempt, a new round).
  useEffect(() => {
    webhooks
      .delivery(d.webhook_uuid, d.delivery_uuid)
      .then(({ data }) => setDetail(data))
      .catch(setError);
  }, [d.webhook_uuid, d.delivery_uuid, d.updated_at, d.attempt_count]);
  const redeliverable = (d.status === "failed" || d.status === "dead") && !props.session.read_only;
  return (
    <div class="panel">
      <dl class="facts">
        <div>
          <dt>Delivery</dt>
          <dd>
            <code>{d.delivery_uuid}</code>
          </dd>
        </div>
        <div>
          <dt>Event</dt>
          <dd>
            <code>{d.event_uuid}</code>
          </dd>
        </div>
        <div>
          <dt>Round</dt>
          <dd>{d.round}</dd>
        </div>
        <div>
          <dt>Failure reason</dt>
          <dd>{d.failure_reason ?? "–"}</dd>
        </div>
        <div>
          <dt>Next attempt</dt>
          <dd>{formatTime(d.next_attempt_at)}</dd>
        </div>
      </dl>
      {redeliverable && (
        <p>
          <button
            type="button"
            disabled={busy || !props.subscriptionEnabled}
            onClick={async () => {
              setBusy(true);
              setError(null);
              try {
                await webhooks.redeliver(d.webhook_uuid, d.delivery_uuid);
                setNotice("Redelivery queued: a new round of attempts starts now.");
                props.onChanged();
              } catch (err) {
                setError(err);
              } finally {
                setBusy(false);
              }
            }}
          >
            Redeliver
          </button>
        </p>
      )}
      <p role="status">{notice}</p>
      <ErrorNote error={error} />
      {detail ? <Attempts detail={detail} /> : !error && <p>Loading attempts…</p>}
    </div>
  );
}

export function DeliveryLog(props: { session: Session; subscription?: Subscription }) {
  const single = props.subscription;
  const [subs, setSubs] = useState<Subscription[] | null>(single ? [single] : null);
  const [filters, setFilters] = useState<Filters>({ status: "", type: "", from: "", to: "" });
  const [limit, setLimit] = useState(PAGE);
  const [rows, setRows] = useState<Delivery[] | null>(null);
  const [total, setTotal] = useState(0);
  const [error, setError] = useState<unknown>(null);
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const [updatedAt, setUpdatedAt] = useState<Date | null>(null);
  const inFlight = useRef(false);
  const shown = useRef(false);

  useEffect(() => {
    if (single) setSubs([single]);
    else subscriptionsOnce().then(setSubs).catch(setError);
  }, [single?.webhook_uuid, single?.enabled]);

  const refresh = useCallback(async () => {
    if (inFlight.current) return;
    inFlight.current = true;
    try {
      const found = await newestDeliveries(single?.webhook_uuid ?? null, limit, filters);
      setRows(found.rows);
      setTotal(found.total);
      setError(null);
      setUpdatedAt(new Date());
    } catch (err) {
      setError(err);
    } finally {
      inFlight.current = false;
    }
  }, [single?.webhook_uuid, limit, filters]);

  // Layout effects: the first read and the mark happen as the log mounts and as its rows are
  // put in the page, where plain effects would each wait for the next frame.
  useLayoutEffect(() => {
    void refresh();
    const timer = setInterval(() => {
      if (!document.hidden) void refresh();
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [refresh]);

  useLayoutEffect(() => {
    if (rows !== null && !shown.current) {
      shown.current = true;
      performance.mark("portal:delivery-log-shown");
    }
  }, [rows]);

  const set = (patch: Partial<Filters>) => setFilters((f) => ({ ...f, ...patch }));
  const visible = rows ?? [];
  const urlOf = new Map((subs ?? []).map((s) => [s.webhook_uuid, s]));
  // The type filter's choices are read once the log is shown, not before it.
  const types = useEventTypes(rows !== null);

  return (
    <section class="log" aria-label="Delivery log">
      <Filters label="Filter deliveries">
        <Filter
          id="filter-status"
          label="Status"
          value={filters.status}
          choices={DELIVERY_STATUSES}
          onChange={(status) => set({ status: status as DeliveryStatus | "" })}
        />
        <Filter
          id="filter-type"
          label="Event type"
          value={filters.type}
          choices={types.names}
          onChange={(type) => set({ type })}
        />
        <Filter
          id="filter-from"
          label="Created from"
          value={filters.from}
          onChange={(from) => set({ from })}
        />
        <Filter
          id="filter-to"
          label="Created before"
          value={filters.to}
          onChange={(to) => set({ to })}
        />
      </Filters>
      <ErrorNote error={error} />
      {rows === null ? (
        <p role="status">Loading deliveries…</p>
      ) : subs !== null && subs.length === 0 ? (
        <p>No subscriptions, so no deliveries.</p>
      ) : (
        <>
          <p class="muted" data-testid="log-summary">
            Showing the newest {rows.length} of {total} matching; updated{" "}
            {updatedAt ? updatedAt.toLocaleTimeString() : "–"}, live every {POLL_MS / 1000} s.
          </p>
          <table class="deliveries" data-testid="delivery-log">
            <caption>Deliveries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Event type</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last code</th>
                <th scope="col">Last attempt</th>
                {!single && <th scope="col">Endpoint</th>}
                <th scope="col">
                  <span class="visually-hidden">Details</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {visible.map((d) => {
                const expanded = open.has(d.delivery_uuid);
                const panelId = `delivery-${d.delivery_uuid}`;
                return [
                  <tr
                    key={d.delivery_uuid}
                    data-testid="delivery"
                    data-status={d.status}
                    data-event-type={d.event_type}
                  >
                    <td>{formatTime(d.created_at)}</td>
                    <td>
                      <code>{d.event_type}</code>
                    </td>
                    <td>
                      <StatusBadge status={d.status} />
                    </td>
                    <td>{d.attempt_count}</td>
                    <td>{d.last_status_code ?? "–"}</td>
                    <td>{formatTime(d.last_attempt_at)}</td>
                    {!single && (
                      <td class="wrap">{urlOf.get(d.webhook_uuid)?.url ?? d.webhook_uuid}</td>
                    )}
                    <td>
                      <button
                        type="button"
                        aria-expanded={expanded}
                        aria-controls={panelId}
                        onClick={() =>
                          setOpen((o) => {
                            const next = new Set(o);
                            if (expanded) next.delete(d.delivery_uuid);
                            else next.add(d.delivery_uuid);
                            return next;
                          })
                        }
                      >
                        {expanded ? "Hide" : "Attempts"}
                        <span class="visually-hidden">
                          {" "}
                          of the {d.event_type} delivery of {formatTime(d.created_at)}
                        </span>
                      </button>
                    </td>
                  </tr>,
                  expanded && (
                    <tr key={`${d.delivery_uuid}-detail`} id={panelId}>
                      <td colSpan={single ? 7 : 8}>
                        <DeliveryPanel
                          delivery={d}
                          session={props.session}
                          subscriptionEnabled={urlOf.get(d.webhook_uuid)?.enabled ?? true}
                          onChanged={() => void refresh()}
                        />
                      </td>
                    </tr>
                  ),
                ];
              })}
            </tbody>
          </table>
          {visible.length === 0 && <p>No delivery matches.</p>}
          {rows.length >= limit && (
            <button type="button" onClick={() => setLimit((n) => n + PAGE)}>
              Show older deliveries
            </button>
          )}
        </>
      )}
    </section>
  );
}
