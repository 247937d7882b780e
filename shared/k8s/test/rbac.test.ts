import { describe, expect, it } from "vitest";
import { missingPermissions } from "../src/rbac.ts";
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
