import type { ComponentType } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { ApiError, configureApi, type Answer, type Session } from "./api.ts";
import { formatTime } from "./format.ts";
import { href, useRoute, type Route } from "./route.ts";
import { DeliveryLog } from "./views/deliveries.tsx";

// The delivery log (the first screen) is in the page's script; every other screen is a chunk of
// its own, loaded when it is first shown.
const loadSubscriptions = () =>
  import("./views/subscriptions.tsx").then((m) => m.SubscriptionsView);
const loadSubscription = () => import("./views/subscription.tsx").then((m) => m.SubscriptionView);
const loadCatalogue = () => import("./views/catalogue.tsx").then((m) => m.CatalogueView);
const loadEvents = () => import("./views/events.tsx").then((m) => m.EventsView);
const loadVerify = () => import("./views/verify.tsx").then((m) => m.VerifyView);

/** A screen from its chunk: a status line until the chunk has arrived. */
function Lazy<P extends object>(props: { load: () => Promise<ComponentType<P>>; props: P }) {
  const [View, setView] = useState<ComponentType<P> | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    props
      .load()
      .then((found) => live && setView(() => found))
      .catch((err: unknown) => live && setError(err));
    return () => {
      live = false;
    };
  }, [props.load]);
  if (View) return <View {...props.props} />;
  return (
    <p role={error ? "alert" : "status"}>
      {error ? "This screen could not be loaded. Reload the page." : "Loading…"}
    </p>
  );
}

const NAV: ReadonlyArray<{ route: Route; label: string }> = [
  { route: { name: "deliveries" }, label: "Delivery log" },
  { route: { name: "subscriptions" }, label: "Subscriptions" },
  { route: { name: "catalogue" }, label: "Event catalogue" },
  { route: { name: "events" }, label: "Events feed" },
  { route: { name: "verify" }, label: "Verify signatures" },
];

type State =
  { kind: "loading" } | { kind: "ready"; session: Session } | { kind: "ended"; error: ApiError };

/** The page that refuses: the link expired, was used already or was revoked. */
function Refused({ error }: { error: ApiError }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const ended = error.status === 401 || error.status === 403;
  return (
    <main id="main" class="refused">
      <h1 tabIndex={-1} ref={heading}>
        {ended ? "This portal session has ended" : "The portal cannot be shown"}
      </h1>
      <p>
        {ended
          ? "The link expired, was already used or was revoked. Ask the owner of the integration for a new link."
          : error.message}
      </p>
      <p class="muted">
        Error code: <code>{error.code}</code>
      </p>
    </main>
  );
}

/** The page, given the session's read (started before the first render, ./main.tsx). */
export function App(props: { session: Promise<Answer<Session>> }) {
  const [state, setState] = useState<State>({ kind: "loading" });
  const route = useRoute();

  // A layout effect: it runs as the page mounts, where a plain effect waits for the next frame.
  useLayoutEffect(() => {
    props.session
      .then(({ data }) => {
        configureApi({
          csrfToken: data.csrf_token,
          onSessionEnded: (error) => setState({ kind: "ended", error }),
        });
        setState({ kind: "ready", session: data });
      })
      .catch((error: unknown) =>
        setState({
          kind: "ended",
          error: error instanceof ApiError ? error : new ApiError(0, "UNKNOWN", String(error)),
        }),
      );
  }, []);

  useEffect(() => {
    const label = NAV.find((n) => n.route.name === route.name)?.label ?? "Subscription";
    document.title = `${label} · Webhooks portal`;
  }, [route]);

  if (state.kind === "loading")
    return (
      <main id="main">
        <p role="status">Loading the portal…</p>
      </main>
    );
  if (state.kind === "ended") return <Refused error={state.error} />;
  const { session } = state;
  const active = route.name === "subscription" ? "subscriptions" : route.name;

  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <p class="brand">Webhooks portal</p>
        <dl class="who">
          <div>
            <dt>Client</dt>
            <dd>
              <code>{session.client_id}</code>
            </dd>
          </div>
          <div>
            <dt>Environment</dt>
            <dd>{session.environment}</dd>
          </div>
          <div>
            <dt>Access</dt>
            <dd>{session.read_only ? "read-only" : "read and write"}</dd>
          </div>
          <div>
            <dt>Session ends</dt>
            <dd>{formatTime(session.expires_at)}</dd>
          </div>
        </dl>
        <nav aria-label="Portal">
          <ul>
            {NAV.map((item) => (
              <li key={item.route.name}>
                <a
                  href={href(item.route)}
                  aria-current={item.route.name === active ? "page" : undefined}
                >
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        {route.name === "subscriptions" && <Lazy load={loadSubscriptions} props={{ session }} />}
        {route.name === "subscription" && (
          <Lazy key={route.id} load={loadSubscription} props={{ session, id: route.id }} />
        )}
        {route.name === "deliveries" && (
          <>
            <h1>Delivery log</h1>
            <DeliveryLog session={session} />
          </>
        )}
        {route.name === "catalogue" && <Lazy load={loadCatalogue} props={{ session }} />}
        {route.name === "events" && <Lazy load={loadEvents} props={{}} />}
        {route.name === "verify" && <Lazy load={loadVerify} props={{ session }} />}
      </main>
    </>
  );
}
