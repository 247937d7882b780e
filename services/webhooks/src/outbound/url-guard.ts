import { isIP } from "node:net";
import type { ResolvedAddress, UrlGuard } from "../domain/ports.ts";
import {
  addressProblem,
  bareHost,
  BlockedUrlError,
  parseSubscriptionUrl,
} from "../domain/url-policy.ts";
import type { HostResolver } from "./resolver.ts";

export type UrlGuardOptions = {
  resolver: HostResolver;
  dnsTimeoutMs: number;
  /** The local stack only (WEBHOOK_ALLOW_LOOPBACK; config.ts refuses it elsewhere): localhost, 127/8, ::1. */
  allowLoopback?: boolean;
};

/**
 * The domain's UrlGuard port: the subscription URL rules (domain/url-policy.ts), then the host's
 * resolution, where EVERY address must be public. One forbidden answer among public ones rejects
 * the URL (the connection could land on either).
 */
export function createUrlGuard(options: UrlGuardOptions): UrlGuard {
  const allowLoopback = options.allowLoopback === true;
  const parse = (raw: string): URL => parseSubscriptionUrl(raw, allowLoopback);
  return {
    parse,
    async vet(raw) {
      const url = parse(raw);
      const hostname = bareHost(url);
      const addresses = isIP(hostname)
        ? [{ address: hostname, family: isIP(hostname) as 4 | 6 }]
        : await resolveAll(options, hostname);
      for (const { address } of addresses) {
        const problem = addressProblem(address, allowLoopback);
        if (problem)
          throw new BlockedUrlError(
            "forbidden_address",
            `url host resolves to an address that is not publicly reachable (${problem})`,
          );
      }
      return { url, hostname, addresses };
    },
  };
}

async function resolveAll(options: UrlGuardOptions, hostname: string): Promise<ResolvedAddress[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`DNS lookup timed out after ${options.dnsTimeoutMs} ms`)),
      options.dnsTimeoutMs,
    );
  });
  try {
    const addresses = await Promise.race([options.resolver.resolve(hostname), timeout]);
    if (addresses.length === 0) throw new Error("no addresses");
    return addresses;
  } catch (err) {
    throw new BlockedUrlError("unresolvable", "url host does not resolve", { cause: err });
  } finally {
    clearTimeout(timer);
  }
}
