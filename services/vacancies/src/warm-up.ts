/**
 * What a vacancies process warms before it reports ready: every legacy pool connection, auth's
 * signing keys, then a few hundred reads through its own API (@svc/http readApiWarmUp), including
 * a filtered list and the metadata. Why: docs/decisions/cold-start-warm-up.md.
 */
import { readApiWarmUp, type ReadApiWarmUpDeps } from "@svc/http";

export const vacancyWarmUp = (
  deps: ReadApiWarmUpDeps,
): ((api: { origin: string; signal?: AbortSignal }) => Promise<void>) =>
  readApiWarmUp({
    ...deps,
    collection: "/v1/vacancies",
    idOf: (item) => String(item.uuid),
    extra: ["/v1/vacancies?per_page=20&published=true", "/v1/meta/vacancies"],
  });
