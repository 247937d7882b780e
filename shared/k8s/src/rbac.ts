/** One (apiGroup, resource, verbs) triple; "" is the core group, "x/y" a subresource. */
export type Permission = { apiGroup: string; resource: string; verbs: string[] };

/** A Role rule as written in rbac.authorization.k8s.io/v1 (resourceNames are not used here). */
export type PolicyRule = {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
  resourceNames?: string[];
};

function grants(rule: PolicyRule, apiGroup: string, resource: string, verb: string): boolean {
  // A rule limited to resourceNames is not enough for list, watch or create.
  if (rule.resourceNames && rule.resourceNames.length > 0) return false;
  const has = (list: string[] | undefined, value: string) =>
    (list ?? []).some((v) => v === "*" || v === value);
  return has(rule.apiGroups, apiGroup) && has(rule.resources, resource) && has(rule.verbs, verb);
}

/**
 * Permissions `required` that no rule grants, one entry per (group, resource) with the missing
 * verbs.
 */
export function missingPermissions(
  required: readonly Permission[],
  rules: readonly PolicyRule[],
): Permission[] {
  return required
    .map((p) => ({
      ...p,
      verbs: p.verbs.filter(
        (verb) => !rules.some((rule) => grants(rule, p.apiGroup, p.resource, verb)),
      ),
    }))
    .filter((p) => p.verbs.length > 0);
}

/** Verbs the rules grant on the required resources that the code never uses (least privilege). */
export function unusedGrants(
  required: readonly Permission[],
  rules: readonly PolicyRule[],
): Permission[] {
  const extra = new Map<string, Permission>();
  for (const rule of rules) {
    for (const apiGroup of rule.apiGroups ?? []) {
      for (const resource of rule.resources ?? []) {
        const needed =
          required.find((p) => p.apiGroup === apiGroup && p.resource === resource)?.verbs ?? [];
        const key = `${apiGroup}|${resource}`;
        const entry = extra.get(key) ?? { apiGroup, resource, verbs: [] };
        for (const verb of rule.verbs ?? [])
          if (!needed.includes(verb) && !entry.verbs.includes(verb)) entry.verbs.push(verb);
        extra.set(key, entry);
      }
    }
  }
  return [...extra.values()].filter((p) => p.verbs.length > 0);
}
