/** The contract's scopes. The sandbox has every one except crm-mirror:write. */
export const SCOPES = [
  "practices:read",
  "vacancies:read",
  "candidates:read",
  "applications:read",
  "applications:write",
  "recruitment-cases:read",
  "webhooks:read",
  "webhooks:write",
  "crm-mirror:write",
] as const;

export type Scope = (typeof SCOPES)[number];

export function scopesFor(environment: "production" | "sandbox"): ReadonlyArray<Scope> {
  return environment === "sandbox" ? SCOPES.filter((s) => s !== "crm-mirror:write") : SCOPES;
}
