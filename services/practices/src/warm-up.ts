/**
 * What a practices process warms before it reports ready: every legacy pool connection, auth's
 * signing keys, then a few hundred reads through its own API (@svc/http readApiWarmUp), including
 * the metadata. Why: docs/decisions/cold-start-warm-up.md.
 */
import { readApiWarmUp, type ReadApiWarmUpDeps } from "@svc/http";

export const practiceWarmUp = (
  deps: ReadApiWarmUpDeps,
): ((api: { origin: string; signal?: AbortSignal }) => Promise<void>) =>
  readApiWarmUp({
    ...deps,
    collection: "/v1/practices",
    idOf: (item) => String(item.practice_id),
    extra: ["/v1/meta/practices"],
  });
