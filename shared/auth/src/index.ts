export * from "./verifier.ts";
export { requireScope, callerOf } from "./require-scope.ts";
export { SCOPES, scopesFor, type Scope } from "./scopes.ts";
