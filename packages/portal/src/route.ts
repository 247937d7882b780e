// Hash routes: the page is one document under /portal/, so every screen is a fragment.
import { useEffect, useState } from "preact/hooks";

export type Route =
  | { name: "subscriptions" }
  | { name: "subscription"; id: string }
  | { name: "deliveries" }
  | { name: "catalogue" }
  | { name: "events" }
  | { name: "verify" };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  switch (parts[0]) {
    case "subscriptions":
      return parts[1] ? { name: "subscription", id: parts[1] } : { name: "subscriptions" };
    case "deliveries":
      return { name: "deliveries" };
    case "catalogue":
      return { name: "catalogue" };
    case "events":
      return { name: "events" };
    case "verify":
      return { name: "verify" };
    default:
      return { name: "deliveries" };
  }
}

export function href(route: Route): string {
  return route.name === "subscription"
    ? `#/subscriptions/${encodeURIComponent(route.id)}`
    : `#/${route.name}`;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", changed);
    return () => removeEventListener("hashchange", changed);
  }, []);
  return route;
}
