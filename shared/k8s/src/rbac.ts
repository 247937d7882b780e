/**
 * One (apiGroup, resource, verbs) triple; "" is the core group, "x/y" a subresource. With
 * `resourceNames`, only those objects (for get, update, patch, delete: Kubernetes cannot limit
 * create, nor list and watch without a metadata.name field selector).
 */
export type Permission = {
  apiGroup: string;
  resource: string;
  verbs: string[];
  resourceNames?: string[];
};

/** A Role rule as written in rbac.authorization.k8s.io/v1. */
export type PolicyRule = {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
  resourceNames?: string[];
};

const has = (list: string[] | undefined, value: string) =>
  (list ?? []).some((v) => v === "*" || v === value);

/** Whether `rule` authorizes `verb` on every object `names` allows (undefined: any object). */
function grants(
  rule: PolicyRule,
  apiGroup: string,
  resource: string,
  verb: string,
  names: string[] | undefined,
): boolean {
  if (!has(rule.apiGroups, apiGroup) || !has(rule.resources, resource) || !has(rule.verbs, verb))
    return false;
  const limited = rule.resourceNames ?? [];
  if (limited.length === 0) return true;
  // A rule limited to names never authorizes a request that names no object.
  return names !== undefined && names.every((n) => limited.includes(n));
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
        (verb) =>
          !rules.some((rule) => grants(rule, p.apiGroup, p.resource, verb, p.resourceNames)),
      ),
    }))
    .filter((p) => p.verbs.length > 0);
}

/**
 * Every single grant as `group|resource|verb|names` (names sorted, `*` for any object), sorted
 * and without duplicates: two rule sets grant exactly the same when these lists are equal.
 */
export function grantList(rules: readonly (PolicyRule | Permission)[]): string[] {
  const out = new Set<string>();
  for (const rule of rules) {
    const permission = "apiGroup" in rule;
    const groups = permission ? [rule.apiGroup] : (rule.apiGroups ?? []);
    const resources = permission ? [rule.resource] : (rule.resources ?? []);
    const names = rule.resourceNames?.length ? [...rule.resourceNames].sort().join(",") : "*";
    for (const g of groups)
      for (const r of resources)
        for (const v of rule.verbs ?? []) out.add(`${g}|${r}|${v}|${names}`);
  }
  return [...out].sort();
}
