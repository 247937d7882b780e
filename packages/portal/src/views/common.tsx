// Small pieces the screens share.
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { ApiError } from "../api.ts";
import { formatTime } from "../format.ts";

/** An error answer, its message and the fields it names; announced to screen readers. */
export function ErrorNote({ error }: { error: unknown }) {
  if (error === null || error === undefined) return null;
  const e = error instanceof ApiError ? error : new ApiError(0, "UNKNOWN", String(error));
  return (
    <div class="error" role="alert">
      <p>
        {e.message} <span class="muted">({e.code})</span>
      </p>
      {e.details.length > 0 && (
        <ul>
          {e.details.map((d, i) => (
            <li key={i}>
              {d.field ? <code>{d.field}</code> : null} {d.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A list's filters: a search landmark that never submits (each filter applies as it changes). */
export function Filters(props: { label: string; children: ComponentChildren }) {
  return (
    <form
      class="filters"
      role="search"
      aria-label={props.label}
      onSubmit={(e) => e.preventDefault()}
    >
      {props.children}
    </form>
  );
}

/**
 * One filter of a list: a choice of values (the first, "any", is the empty value) or, without
 * choices, a local date and time (`datetime-local`).
 */
export function Filter(props: {
  id: string;
  label: string;
  value: string;
  choices?: ReadonlyArray<string>;
  onChange: (value: string) => void;
}) {
  const change = (e: { currentTarget: { value: string } }) => props.onChange(e.currentTarget.value);
  return (
    <div>
      <label for={props.id}>{props.label}</label>
      {props.choices ? (
        <select id={props.id} value={props.value} onChange={change}>
          <option value="">any</option>
          {props.choices.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      ) : (
        <input id={props.id} type="datetime-local" value={props.value} onInput={change} />
      )}
    </div>
  );
}

/** Event types as a group of checkboxes. */
export function EventTypePicker(props: {
  legend: string;
  types: ReadonlyArray<string>;
  selected: ReadonlyArray<string>;
  onChange: (selected: string[]) => void;
  name: string;
}) {
  const toggle = (type: string, on: boolean) =>
    props.onChange(on ? [...props.selected, type] : props.selected.filter((t) => t !== type));
  return (
    <fieldset class="types">
      <legend>{props.legend}</legend>
      {props.types.length === 0 && <p role="status">Loading the event types…</p>}
      {props.types.map((type) => {
        const id = `${props.name}-${type.replace(/\W/g, "-")}`;
        return (
          <div class="check" key={type}>
            <input
              type="checkbox"
              id={id}
              name={props.name}
              value={type}
              checked={props.selected.includes(type)}
              onChange={(e) => toggle(type, e.currentTarget.checked)}
            />
            <label for={id}>
              <code>{type}</code>
            </label>
          </div>
        );
      })}
    </fieldset>
  );
}

/** A new signing secret: shown once, with how long the previous one keeps signing. */
export function SecretPanel(props: {
  secret: string;
  previousExpiresAt: string | null;
  onDismiss: () => void;
}) {
  const [copied, setCopied] = useState(false);
  return (
    <section class="secret" aria-labelledby="secret-heading">
      <h3 id="secret-heading">New signing secret</h3>
      <p>Copy it now: it is shown this once and cannot be read again.</p>
      <p>
        <code class="secret-value" data-testid="secret">
          {props.secret}
        </code>
      </p>
      {props.previousExpiresAt && (
        <p data-testid="rotation-window">
          The previous secret keeps signing too (a second signature) until{" "}
          <time dateTime={props.previousExpiresAt}>{formatTime(props.previousExpiresAt)}</time>:
          give your receiver the new secret before then.
        </p>
      )}
      <div class="actions">
        <button
          type="button"
          onClick={() =>
            void navigator.clipboard
              ?.writeText(props.secret)
              .then(() => setCopied(true))
              .catch(() => undefined)
          }
        >
          Copy secret
        </button>
        <button type="button" onClick={props.onDismiss}>
          I have stored it
        </button>
        <span role="status">{copied ? "Copied." : ""}</span>
      </div>
    </section>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status}`}>{status}</span>;
}
