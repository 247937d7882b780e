// The client's events feed: every event published, oldest first, followed by its cursor.
import { useEffect, useState } from "preact/hooks";
import { events, type FeedEvent } from "../api.ts";
import { useEventTypes } from "../event-types.ts";
import { formatTime, pretty } from "../format.ts";
import { ErrorNote, Filter, Filters } from "./common.tsx";

export function EventsView() {
  const [type, setType] = useState("");
  const [items, setItems] = useState<FeedEvent[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [hasMore, setHasMore] = useState(false);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const load = async (next: string | null, replace: boolean) => {
    setError(null);
    try {
      const answer = await events.list({
        perPage: 50,
        ...(next ? { cursor: next } : type ? { type } : {}),
      });
      setItems((old) => (replace ? answer.data : [...old, ...answer.data]));
      setCursor(answer.pagination?.next_cursor ?? null);
      setHasMore(answer.pagination?.has_more ?? false);
    } catch (err) {
      setError(err);
    } finally {
      setLoaded(true);
    }
  };
  useEffect(() => void load(null, true), [type]);
  // The feed has every type but the test ping, which goes to one subscription only.
  const types = useEventTypes().names.filter((t) => t !== "system.ping");
  return (
    <>
      <h1>Events feed</h1>
      <p>
        Every event published in the last days, whether or not a subscription wanted it, oldest
        first: the place to catch up after an outage.
      </p>
      <Filters label="Filter events">
        <Filter
          id="events-type"
          label="Event type"
          value={type}
          choices={types}
          onChange={setType}
        />
      </Filters>
      <ErrorNote error={error} />
      {!loaded ? (
        <p role="status">Loading events…</p>
      ) : items.length === 0 && !error ? (
        <p>No events.</p>
      ) : (
        <ol class="feed">
          {items.map((e) => (
            <li key={e.event_uuid} class="card">
              <p>
                <code>{e.event_type}</code> · {formatTime(e.created_at)} ·{" "}
                <code class="muted">{e.event_uuid}</code>
              </p>
              <details>
                <summary>Payload</summary>
                <pre tabIndex={0}>{pretty(e.payload)}</pre>
              </details>
            </li>
          ))}
        </ol>
      )}
      {cursor && (
        <button type="button" onClick={() => void load(cursor, false)}>
          {hasMore ? "Load newer events" : "Check for new events"}
        </button>
      )}
    </>
  );
}
