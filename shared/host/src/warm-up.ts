import type { WarmUpAccess } from "@svc/auth";
import type { LegacyDb } from "@svc/db";
import type { ReadApiWarmUpDeps } from "@svc/http";
import type { LegacySettings } from "./spec.ts";

/**
 * What a read API over the legacy database warms (@svc/http readApiWarmUp), from its host: every
 * legacy connection, auth's keys, the warm-up credential (`tokens.warmUpScopes`), and as many
 * reads at once as the legacy pool holds. Why: docs/decisions/cold-start-warm-up.md.
 */
export function legacyReadWarmUp(host: {
  config: LegacySettings;
  legacy: LegacyDb;
  keys: { reload(): Promise<void> };
  warmUpAccess: WarmUpAccess;
}): ReadApiWarmUpDeps {
  return {
    connect: [() => host.legacy.openConnections()],
    access: host.warmUpAccess,
    keys: host.keys,
    concurrency: host.config.LEGACY_POOL_MAX,
  };
}
