import { SCOPES, scopesFor } from "@svc/auth";

export type Environment = "production" | "sandbox";

/** A management request that breaks a client rule (unknown scope, CRM mirror rules, state). */
export class ClientRuleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ClientRuleError";
  }
}

/**
 * Scopes in the contract's order, without duplicates: stored lists and `scope` answers are stable.
 */
export function canonicalScopes(scopes: Iterable<string>): string[] {
  const wanted = new Set(scopes);
  return SCOPES.filter((s) => wanted.has(s));
}

/**
 * A client gets scopes of its environment only (the sandbox has no crm-mirror:write), and
 * crm-mirror:write only when it is the CRM mirror client, which exists in production only.
 */
export function assignableScopes(
  environment: Environment,
  scopes: ReadonlyArray<string>,
  isCrmMirror: boolean,
): string[] {
  const available = new Set<string>(scopesFor(environment));
  if (isCrmMirror && !available.has("crm-mirror:write"))
    throw new ClientRuleError(`the ${environment} environment has no CRM mirror client`);
  if (scopes.length === 0) throw new ClientRuleError("a client needs at least one scope");
  for (const scope of scopes) {
    if (!available.has(scope))
      throw new ClientRuleError(
        `scope '${scope}' does not exist in the ${environment} environment`,
      );
    if (scope === "crm-mirror:write" && !isCrmMirror)
      throw new ClientRuleError(
        "crm-mirror:write can only be given to the CRM mirror client (--crm-mirror)",
      );
  }
  return canonicalScopes(scopes);
}
