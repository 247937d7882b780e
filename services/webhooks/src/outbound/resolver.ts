import { lookup } from "node:dns/promises";
import type { ResolvedAddress } from "../domain/ports.ts";

/**
 * Name → addresses. Injected everywhere a hostname is resolved, so tests can make a name resolve
 * public at creation and private at delivery, or to a mix of both.
 */
export interface HostResolver {
  resolve(hostname: string): Promise<ResolvedAddress[]>;
}

/**
 * The operating system's resolver (getaddrinfo: /etc/hosts, then DNS), as a connection would
 * use. Every address it returns is vetted, and the connection goes to one of those: nothing
 * resolves the name a second time.
 */
export function systemResolver(): HostResolver {
  return {
    async resolve(hostname) {
      const answers = await lookup(hostname, { all: true, order: "verbatim" });
      return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
    },
  };
}
