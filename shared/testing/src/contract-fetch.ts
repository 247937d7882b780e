/**
 * The contract check of every test process (vitest setup file): wraps globalThis.fetch so every
 * response from a loopback server is checked against the document (contract.ts). The validator
 * (ajv over the whole document) loads on the first such response, so a test that fetches nothing
 * pays nothing for it.
 */
import type { ContractValidator } from "./contract.ts";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);
const INSTALLED = Symbol.for("svc.contract.fetch");

export interface ContractValidation {
  /**
   * Waits (bounded) for the checks of responses already received, then returns and forgets the
   * violations.
   */
  takeViolations(): Promise<string[]>;
  /**
   * Returns and forgets what was checked, by `METHOD /template status` (`* /v1/… status` for
   * envelope-only checks).
   */
  takeCoverage(): Record<string, number>;
}

type Installed = typeof fetch & { [INSTALLED]?: ContractValidation };

function requestOf(
  input: Parameters<typeof fetch>[0],
  init: Parameters<typeof fetch>[1],
): { url: URL; method: string } {
  const url = new URL(input instanceof Request ? input.url : String(input));
  const method = init?.method ?? (input instanceof Request ? input.method : "GET");
  return { url, method: method.toUpperCase() };
}

async function sharedValidator(): Promise<ContractValidator> {
  return (await import("./contract.ts")).contractValidator();
}

/**
 * Wraps globalThis.fetch: every response from a loopback server is checked in the background
 * (the caller gets the response untouched) and violations are kept until `takeViolations`.
 * Idempotent per process.
 */
export function installFetchContractValidation(
  validator: () => Promise<ContractValidator> = sharedValidator,
): ContractValidation {
  const current = globalThis.fetch as Installed;
  const existing = current[INSTALLED];
  if (existing) return existing;
  const original = current;
  const pending = new Set<Promise<void>>();
  let violations: string[] = [];
  /** Loading starts with the first loopback request; coverage is empty until it is loaded. */
  let loading: Promise<ContractValidator> | undefined;
  let loaded: ContractValidator | undefined;
  const ready = () => (loading ??= validator().then((v) => (loaded = v)));

  const check = async (request: { url: URL; method: string }, response: Response) => {
    const body = await response.text();
    const problems = (await ready()).problems({
      method: request.method,
      path: `${request.url.pathname}${request.url.search}`,
      status: response.status,
      headers: response.headers,
      body,
    });
    if (problems && problems.length > 0)
      violations.push(`contract violation (shared/openapi/openapi.json):\n${problems.join("\n")}`);
  };

  const wrapped = (async (
    input: Parameters<typeof fetch>[0],
    init?: Parameters<typeof fetch>[1],
  ) => {
    let request: { url: URL; method: string } | undefined;
    try {
      request = requestOf(input, init);
    } catch {
      return original(input, init);
    }
    if (!LOOPBACK.has(request.url.hostname) || !request.url.protocol.startsWith("http"))
      return original(input, init);
    void ready().catch(() => undefined);
    const response = await original(input, init);
    // A body the caller abandons (an aborted or cut stream) cannot be checked; that is not a
    // violation.
    const task = check(request, response.clone()).catch(() => undefined);
    pending.add(task);
    void task.finally(() => pending.delete(task));
    return response;
  }) as Installed;

  const validation: ContractValidation = {
    async takeViolations() {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...pending]),
        new Promise((resolve) => (timer = setTimeout(resolve, 5_000))),
      ]);
      clearTimeout(timer);
      const taken = violations;
      violations = [];
      return taken;
    },
    takeCoverage() {
      const taken = Object.fromEntries(loaded?.checked ?? []);
      loaded?.checked.clear();
      return taken;
    },
  };
  wrapped[INSTALLED] = validation;
  globalThis.fetch = wrapped;
  return validation;
}
