// One subscription: its settings and actions, recovery, and its delivery log.
import { useEffect, useState } from "preact/hooks";
import { webhooks, type Session, type Subscription } from "../api.ts";
import { useEventTypes } from "../event-types.ts";
import { formatTime, instantToLocalInput, localInputToInstant } from "../format.ts";
import { href } from "../route.ts";
import { DeliveryLog } from "./deliveries.tsx";
import { ErrorNote, EventTypePicker, SecretPanel } from "./common.tsx";
import { subscriptionState } from "./subscriptions.tsx";

type Notice = { text: string } | null;

function EditTypes(props: { sub: Subscription; onSaved: (s: Subscription) => void }) {
  const types = useEventTypes().names;
  const [selected, setSelected] = useState<string[]>(props.sub.event_types);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      props.onSaved(
        (await webhooks.update(props.sub.webhook_uuid, { event_types: selected })).data,
      );
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card" onSubmit={submit} aria-labelledby="types-heading">
      <h2 id="types-heading">Event types</h2>
      <EventTypePicker
        legend="Deliver these event types"
        name="edit-types"
        types={types}
        selected={selected}
        onChange={setSelected}
      />
      <ErrorNote error={error} />
      <button type="submit" disabled={busy || selected.length === 0}>
        Save event types
      </button>
    </form>
  );
}

function Recover(props: { sub: Subscription; onNotice: (n: Notice) => void }) {
  const [since, setSince] = useState(() => instantToLocalInput(new Date(Date.now() - 3_600_000)));
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const instant = localInputToInstant(since);
    if (instant === null) {
      setError(new Error("Give the time the outage began."));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const { data } = await webhooks.recover(props.sub.webhook_uuid, instant);
      props.onNotice({
        text: `${data.queued} failed or dead ${data.queued === 1 ? "delivery" : "deliveries"} since ${formatTime(data.since)} queued again.`,
      });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card" onSubmit={submit} aria-labelledby="recover-heading">
      <h2 id="recover-heading">Recover after an outage</h2>
      <p class="muted">
        Every failed or dead delivery created since this time starts a new round of attempts.
      </p>
      <label for="recover-since">Failed since (your local time)</label>
      <input
        id="recover-since"
        type="datetime-local"
        required
        value={since}
        onInput={(e) => setSince(e.currentTarget.value)}
      />
      <ErrorNote error={error} />
      <button type="submit" disabled={busy || !props.sub.enabled}>
        Recover failed deliveries
      </button>
      {!props.sub.enabled && <p class="muted">Enable the subscription first.</p>}
    </form>
  );
}

export function SubscriptionView({ session, id }: { session: Session; id: string }) {
  const [sub, setSub] = useState<Subscription | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<Notice>(null);
  const [secret, setSecret] = useState<Subscription | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [deleted, setDeleted] = useState(false);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    webhooks
      .get(id)
      .then(({ data }) => setSub(data))
      .catch(setError);
  }, [id]);

  const act = async (what: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      await what();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  if (deleted)
    return (
      <>
        <h1>Subscription deleted</h1>
        <p role="status">The subscription and its delivery records were deleted.</p>
        <p>
          <a href={href({ name: "subscriptions" })}>Back to the subscriptions</a>
        </p>
      </>
    );
  if (sub === null)
    return (
      <>
        <h1>Subscription</h1>
        {error ? <ErrorNote error={error} /> : <p role="status">Loading…</p>}
      </>
    );
  const writable = !session.read_only;
  return (
    <>
      <p>
        <a href={href({ name: "subscriptions" })}>All subscriptions</a>
      </p>
      <h1>
        Subscription <code class="wrap">{sub.url}</code>
      </h1>
      <dl class="facts">
        <div>
          <dt>Id</dt>
          <dd>
            <code>{sub.webhook_uuid}</code>
          </dd>
        </div>
        <div>
          <dt>State</dt>
          <dd data-testid="state">{subscriptionState(sub)}</dd>
        </div>
        <div>
          <dt>Event types</dt>
          <dd>{sub.event_types.join(", ")}</dd>
        </div>
        <div>
          <dt>Secret rotated</dt>
          <dd>{formatTime(sub.secret_rotated_at)}</dd>
        </div>
        <div>
          <dt>Previous secret signs until</dt>
          <dd>{formatTime(sub.previous_secret_expires_at)}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{formatTime(sub.created_at)}</dd>
        </div>
      </dl>
      <ErrorNote error={error} />
      {notice && (
        <p class="notice" role="status">
          {notice.text}
        </p>
      )}
      {secret?.secret && (
        <SecretPanel
          secret={secret.secret}
          previousExpiresAt={secret.previous_secret_expires_at}
          onDismiss={() => setSecret(null)}
        />
      )}
      {writable ? (
        <div class="actions card" role="group" aria-label="Subscription actions">
          <button
            type="button"
            disabled={busy || !sub.enabled}
            onClick={() =>
              act(async () => {
                await webhooks.test(sub.webhook_uuid);
                setNotice({ text: "Test ping queued: it appears in the log below." });
              })
            }
          >
            Send test ping
          </button>
          <button
            type="button"
            disabled={busy}
            onClick={() =>
              act(async () => {
                const { data } = await webhooks.update(sub.webhook_uuid, { enabled: !sub.enabled });
                setSub(data);
                setNotice({
                  text: data.enabled ? "Subscription enabled." : "Subscription disabled.",
                });
              })
            }
          >
            {sub.enabled ? "Disable" : "Enable"}
          </button>
          <button
            type="button"
            disabled={busy}
            onClick={() =>
              act(async () => {
                const { data } = await webhooks.rotate(sub.webhook_uuid);
                setSecret(data);
                const { secret: _secret, ...rest } = data;
                setSub(rest);
              })
            }
          >
            Rotate secret
          </button>
          {confirmDelete ? (
            <span class="confirm">
              <span>Delete this subscription and its delivery records?</span>
              <button
                type="button"
                class="danger"
                disabled={busy}
                onClick={() =>
                  act(async () => {
                    await webhooks.remove(sub.webhook_uuid);
                    setDeleted(true);
                  })
                }
              >
                Yes, delete
              </button>
              <button type="button" onClick={() => setConfirmDelete(false)}>
                Keep it
              </button>
            </span>
          ) : (
            <button type="button" class="danger" onClick={() => setConfirmDelete(true)}>
              Delete…
            </button>
          )}
        </div>
      ) : (
        <p class="muted">This session is read-only: changes are not offered.</p>
      )}
      {writable && (
        <div class="columns">
          <EditTypes
            key={sub.updated_at}
            sub={sub}
            onSaved={(s) => {
              setSub(s);
              setNotice({ text: "Event types saved." });
            }}
          />
          <Recover sub={sub} onNotice={setNotice} />
        </div>
      )}
      <h2>Deliveries</h2>
      <DeliveryLog session={session} subscription={sub} />
    </>
  );
}
