import type { Permission } from "@svc/k8s";

/** Where the dispatcher's rights apply: its own namespace, and the signing Secrets' one. */
export type DispatcherPermissions = { own: Permission[]; secrets: Permission[] };

/**
 * Exactly what the dispatcher's code (this operator and @svc/leader's LeaseElector) asks of the
 * API server (docs/decisions/operator-rbac.md). `separateSecretNamespace`: the signing Secrets
 * live in a namespace of their own (OPERATOR_SECRET_NAMESPACE), where the finalizer deletes them;
 * otherwise they sit in the dispatcher's namespace and the garbage collector deletes them.
 * test/operator-rbac.test.ts checks it against the requests the code makes and the chart's Roles.
 */
export function dispatcherPermissions(options: {
  leaseName: string;
  separateSecretNamespace: boolean;
}): DispatcherPermissions {
  const own: Permission[] = [
    // LeaseElector: create when missing (Kubernetes cannot limit create by name) ...
    { apiGroup: "coordination.k8s.io", resource: "leases", verbs: ["create"] },
    // ... then read, and replace to claim, renew and release: that one Lease only.
    {
      apiGroup: "coordination.k8s.io",
      resource: "leases",
      verbs: ["get", "update"],
      resourceNames: [options.leaseName],
    },
    // ListWatch + reconciler: list/watch, read fresh, replace to add/remove the finalizer.
    {
      apiGroup: "integration.svc.io",
      resource: "webhooksubscriptions",
      verbs: ["get", "list", "update", "watch"],
    },
    { apiGroup: "integration.svc.io", resource: "webhooksubscriptions/status", verbs: ["update"] },
    // No request goes here: with the OwnerReferencesPermissionEnforcement admission plugin, setting
    // blockOwnerDeletion on the Secret's owner reference requires update on the owner's finalizers.
    ...(options.separateSecretNamespace
      ? []
      : [
          {
            apiGroup: "integration.svc.io",
            resource: "webhooksubscriptions/finalizers",
            verbs: ["update"],
          },
        ]),
    // EventRecorder writes core/v1 Events about the resources.
    { apiGroup: "", resource: "events", verbs: ["create"] },
  ];
  // The signing Secrets: watch (a deleted one comes back at once), read to check ownership,
  // create, replace the value on rotation; in their own namespace also delete (no owner GC).
  const secretVerbs = ["create", "get", "list", "update", "watch"];
  const secrets: Permission[] = [
    {
      apiGroup: "",
      resource: "secrets",
      verbs: options.separateSecretNamespace ? [...secretVerbs, "delete"].sort() : secretVerbs,
    },
  ];
  return options.separateSecretNamespace
    ? { own, secrets }
    : { own: [...own, ...secrets], secrets: [] };
}
