import { describe, expect, it } from "vitest";
import { grantList, missingPermissions } from "../src/rbac.ts";
import type { PolicyRule } from "../src/rbac.ts";

describe("missingPermissions", () => {
  it("names the missing verbs and honours wildcards", () => {
    const rules: PolicyRule[] = [
      { apiGroups: [""], resources: ["secrets"], verbs: ["get"] },
      { apiGroups: ["coordination.k8s.io"], resources: ["*"], verbs: ["*"] },
    ];
    expect(
      missingPermissions(
        [
          { apiGroup: "", resource: "secrets", verbs: ["get", "create"] },
          { apiGroup: "coordination.k8s.io", resource: "leases", verbs: ["update"] },
        ],
        rules,
      ),
    ).toEqual([{ apiGroup: "", resource: "secrets", verbs: ["create"] }]);
  });

  it("does not count rules restricted to resourceNames", () => {
    const rules: PolicyRule[] = [
      { apiGroups: [""], resources: ["secrets"], resourceNames: ["x"], verbs: ["get"] },
    ];
    expect(
      missingPermissions([{ apiGroup: "", resource: "secrets", verbs: ["get"] }], rules),
    ).toHaveLength(1);
  });
});

describe("resourceNames", () => {
  const lease: PolicyRule = {
    apiGroups: ["coordination.k8s.io"],
    resources: ["leases"],
    resourceNames: ["webhooks-dispatcher"],
    verbs: ["get", "update"],
  };

  it("grant only the objects they name", () => {
    const need = (names?: string[]) => [
      {
        apiGroup: "coordination.k8s.io",
        resource: "leases",
        verbs: ["get"],
        ...(names && { resourceNames: names }),
      },
    ];
    expect(missingPermissions(need(["webhooks-dispatcher"]), [lease])).toEqual([]);
    expect(missingPermissions(need(["other"]), [lease])).toHaveLength(1);
    expect(missingPermissions(need(), [lease])).toHaveLength(1);
  });

  it("make a different grant list than the same rule without names", () => {
    const { resourceNames: _names, ...anyLease } = lease;
    expect(grantList([lease])).toEqual([
      "coordination.k8s.io|leases|get|webhooks-dispatcher",
      "coordination.k8s.io|leases|update|webhooks-dispatcher",
    ]);
    expect(grantList([anyLease])).not.toEqual(grantList([lease]));
    expect(
      grantList([
        {
          apiGroup: "coordination.k8s.io",
          resource: "leases",
          verbs: ["update", "get"],
          resourceNames: ["webhooks-dispatcher"],
        },
      ]),
    ).toEqual(grantList([lease]));
  });
});
