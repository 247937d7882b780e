import type pg from "pg";
import { LeaderGroup } from "./leader-group.ts";
import { SoloElector, type LeaderElector } from "./leader.ts";
import type { Logger } from "@svc/logging";
import { PgAdvisoryLockElector } from "./pg-advisory-lock-elector.ts";

export type ElectionSettings = {
  LEADER_ELECTION: "pg" | "lease" | "solo";
  POD_NAME?: string | undefined;
  POD_NAMESPACE?: string | undefined;
  /** A kubeconfig file instead of the pod's ServiceAccount (outside a cluster). */
  KUBECONFIG?: string | undefined;
};

/**
 * The elector of the one replica that runs a process's leader-only work (change detection; the
 * dispatcher's retention and operator):
 * `pg` an advisory lock in our own PostgreSQL (works anywhere, the default), `lease` a Kubernetes
 * Lease (the service account needs get/create/update on leases), `solo` no election at all.
 * `name` says what is led; it must be a valid Lease name (lower-case, digits, dashes).
 */
export async function createLeaderElector(
  settings: ElectionSettings,
  deps: { pool: pg.Pool; logger: Logger; name: string },
): Promise<LeaderElector> {
  switch (settings.LEADER_ELECTION) {
    case "solo":
      return new SoloElector();
    case "lease": {
      // Loaded only here, the one mode that uses it: the Kubernetes client takes seconds to
      // import.
      const [{ loadKubeConfig }, { LeaseElector }] = await Promise.all([
        import("@svc/k8s"),
        import("./lease-elector.ts"),
      ]);
      if (!settings.POD_NAME || !settings.POD_NAMESPACE)
        throw new RangeError("LEADER_ELECTION=lease needs POD_NAME and POD_NAMESPACE");
      return new LeaseElector({
        kubeConfig: loadKubeConfig(settings.KUBECONFIG),
        namespace: settings.POD_NAMESPACE,
        name: deps.name,
        identity: settings.POD_NAME,
        logger: deps.logger,
      });
    }
    case "pg":
      return new PgAdvisoryLockElector({ pool: deps.pool, name: deps.name, logger: deps.logger });
  }
}

/** The process's one leader group, over the elector `settings` choose (see createLeaderElector). */
export async function createLeaderGroup(
  settings: ElectionSettings,
  deps: { pool: pg.Pool; logger: Logger; name: string },
): Promise<LeaderGroup> {
  return new LeaderGroup({
    elector: await createLeaderElector(settings, deps),
    logger: deps.logger,
  });
}
