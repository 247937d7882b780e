import type { Permission } from "@svc/k8s";

/**
 * Exactly what the dispatcher's code (this operator and @svc/leader's LeaseElector) asks of the
 * API server, in its namespace. test/operator-rbac.test.ts checks it against the requests the
 * code makes and against the chart's Role.
 */
export const DISPATCHER_PERMISSIONS: readonly Permission[] = [
  // LeaseElector: read, create when missing, replace to claim, renew and release.
  { apiGroup: "coordination.k8s.io", resource: "leases", verbs: ["create", "get", "update"] },
  // ListWatch + reconciler: list/watch, read fresh, replace to add/remove the finalizer.
  {
    apiGroup: "integration.svc.io",
    resource: "webhooksubscriptions",
    verbs: ["get", "list", "update", "watch"],
  },
  { apiGroup: "integration.svc.io", resource: "webhooksubscriptions/status", verbs: ["update"] },
  // No request goes here: with the OwnerReferencesPermissionEnforcement admission plugin, setting
  // blockOwnerDeletion on the Secret's owner reference requires update on the owner's finalizers.
  {
    apiGroup: "integration.svc.io",
    resource: "webhooksubscriptions/finalizers",
    verbs: ["update"],
  },
  // The signing Secret: read to check ownership, create, replace the value on rotation.
  { apiGroup: "", resource: "secrets", verbs: ["create", "get", "update"] },
  // EventRecorder writes core/v1 Events.
  { apiGroup: "", resource: "events", verbs: ["create"] },
];
