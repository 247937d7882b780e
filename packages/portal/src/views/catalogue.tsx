// The event catalogue of this environment, as the API lists it (GET /v1/webhooks/event-types).
import type { Session } from "../api.ts";
import { useEventTypes } from "../event-types.ts";
import { pretty } from "../format.ts";
import { ErrorNote } from "./common.tsx";

/** Text with `code` spans (the catalogue's texts are written in Markdown's backticks). */
export function Prose({ text }: { text: string }) {
  return (
    <>{text.split("`").map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : part))}</>
  );
}

export function CatalogueView({ session }: { session: Session }) {
  const { entries, error } = useEventTypes();
  const shown = entries ?? [];
  return (
    <>
      <h1>Event catalogue</h1>
      <p>
        The events this {session.environment} installation sends. Each delivery's body is the
        event's payload; <code>occurred_at</code> is the event's own time, whose meaning depends on
        the type.
      </p>
      <ErrorNote error={error} />
      {entries === null && !error && <p role="status">Loading the catalogue…</p>}
      <nav aria-label="Event types">
        <ul class="inline">
          {shown.map((e) => (
            <li key={e.event_type}>
              <a
                href={`#/catalogue`}
                data-target={`event-${e.event_type}`}
                onClick={(ev) => {
                  ev.preventDefault();
                  const target = document.getElementById(`event-${e.event_type}`);
                  target?.scrollIntoView();
                  target?.focus();
                }}
              >
                {e.event_type}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {shown.map((e) => (
        <section
          key={e.event_type}
          id={`event-${e.event_type}`}
          tabIndex={-1}
          class="card"
          aria-labelledby={`event-${e.event_type}-heading`}
        >
          <h2 id={`event-${e.event_type}-heading`}>
            <code>{e.event_type}</code>
          </h2>
          <dl class="facts stacked">
            <div>
              <dt>Description</dt>
              <dd>
                <Prose text={e.description} />
              </dd>
            </div>
            <div>
              <dt>
                What <code>occurred_at</code> means
              </dt>
              <dd>
                <Prose text={e.occurred_at} />
              </dd>
            </div>
            <div>
              <dt>Entity</dt>
              <dd>
                <code>{e.entity_type}</code>
              </dd>
            </div>
          </dl>
          <details>
            <summary>Example payload</summary>
            <pre tabIndex={0}>{pretty(e.example)}</pre>
          </details>
          <details>
            <summary>JSON Schema</summary>
            <pre tabIndex={0}>{pretty(e.schema)}</pre>
          </details>
        </section>
      ))}
    </>
  );
}
