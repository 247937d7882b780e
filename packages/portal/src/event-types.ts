// The environment's event types as the API lists them (GET /v1/webhooks/event-types).
import { useEffect, useState } from "preact/hooks";
import { eventTypesOnce, type EventTypeEntry } from "./api.ts";

export interface EventTypes {
  /** The catalogue; null until it has arrived. */
  entries: ReadonlyArray<EventTypeEntry> | null;
  /** Their names, empty until then. */
  names: ReadonlyArray<string>;
  error: unknown;
}

/** The catalogue, read once `wanted` is true (a screen asks once its own data is shown). */
export function useEventTypes(wanted = true): EventTypes {
  const [entries, setEntries] = useState<ReadonlyArray<EventTypeEntry> | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (!wanted || entries) return;
    let live = true;
    eventTypesOnce()
      .then((found) => live && setEntries(found))
      .catch((err: unknown) => live && setError(err));
    return () => {
      live = false;
    };
  }, [wanted]);
  return { entries, names: entries?.map((e) => e.event_type) ?? [], error };
}
