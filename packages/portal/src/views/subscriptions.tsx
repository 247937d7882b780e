// The client's subscriptions: the list and the form that creates one.
import { useEffect, useState } from "preact/hooks";
import { allSubscriptions, webhooks, type Session, type Subscription } from "../api.ts";
import { useEventTypes } from "../event-types.ts";
import { formatTime } from "../format.ts";
import { href } from "../route.ts";
import { ErrorNote, EventTypePicker, SecretPanel } from "./common.tsx";

export function subscriptionState(s: Subscription): string {
  if (s.enabled) return "enabled";
  return s.disabled_reason === "endpoint_failing" ? "disabled: endpoint failing" : "disabled";
}

function CreateForm(props: { onCreated: (s: Subscription) => void }) {
  const types = useEventTypes().names;
  const [url, setUrl] = useState("");
  const [selected, setSelected] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { data } = await webhooks.create(url.trim(), selected);
      setUrl("");
      setSelected([]);
      props.onCreated(data);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card" onSubmit={submit} aria-labelledby="create-heading">
      <h2 id="create-heading">New subscription</h2>
      <p class="muted">
        The endpoint must be public https (no localhost or private addresses); redirects are not
        followed.
      </p>
      <label for="create-url">Endpoint URL</label>
      <input
        id="create-url"
        name="url"
        type="url"
        required
        placeholder="https://hooks.example.com/svc-webhooks"
        value={url}
        onInput={(e) => setUrl(e.currentTarget.value)}
      />
      <EventTypePicker
        legend="Event types"
        name="create-types"
        types={types}
        selected={selected}
        onChange={setSelected}
      />
      <ErrorNote error={error} />
      <button type="submit" disabled={busy || selected.length === 0}>
        {busy ? "Creating…" : "Create subscription"}
      </button>
    </form>
  );
}

export function SubscriptionsView({ session }: { session: Session }) {
  const [list, setList] = useState<Subscription[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [created, setCreated] = useState<Subscription | null>(null);
  const load = () =>
    allSubscriptions()
      .then((all) => {
        setList(all);
        setError(null);
      })
      .catch(setError);
  useEffect(() => void load(), []);

  return (
    <>
      <h1>Subscriptions</h1>
      <ErrorNote error={error} />
      {created?.secret && (
        <div>
          <p role="status">
            Subscription created for <code>{created.url}</code>.{" "}
            <a href={href({ name: "subscription", id: created.webhook_uuid })}>Open it</a>
          </p>
          <SecretPanel
            secret={created.secret}
            previousExpiresAt={null}
            onDismiss={() => setCreated(null)}
          />
        </div>
      )}
      {list === null ? (
        <p role="status">Loading subscriptions…</p>
      ) : list.length === 0 ? (
        <p>No subscriptions yet.</p>
      ) : (
        <table>
          <caption>Your subscriptions, oldest first</caption>
          <thead>
            <tr>
              <th scope="col">Endpoint</th>
              <th scope="col">Event types</th>
              <th scope="col">State</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {list.map((s) => (
              <tr key={s.webhook_uuid}>
                <td>
                  <a href={href({ name: "subscription", id: s.webhook_uuid })}>{s.url}</a>
                </td>
                <td>{s.event_types.join(", ")}</td>
                <td>{subscriptionState(s)}</td>
                <td>{formatTime(s.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {session.read_only ? (
        <p class="muted">This session is read-only: subscriptions cannot be created here.</p>
      ) : session.subscription_ids !== null ? (
        <p class="muted">This session is limited to some subscriptions: it cannot create more.</p>
      ) : (
        <CreateForm
          onCreated={(s) => {
            setCreated(s);
            void load();
          }}
        />
      )}
    </>
  );
}
