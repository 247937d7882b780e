import { render } from "preact";
import { prefetchFirstScreen, session } from "./api.ts";
import { App } from "./app.tsx";
import { parseRoute } from "./route.ts";
import "./styles.css";

// The first screen's reads start now, before the first render: the session, the subscriptions
// and, on the delivery log, its first page.
const sessionRead = session();
sessionRead.catch(() => undefined);
prefetchFirstScreen(parseRoute(location.hash).name === "deliveries");
render(<App session={sessionRead} />, document.getElementById("app")!);
