import { createSecureContext, rootCertificates } from "node:tls";
import type { LookupFunction } from "node:net";
import { Agent, request } from "undici";
import type {
  ResolvedAddress,
  TransportErrorClass,
  UrlGuard,
  WebhookHttpClient,
} from "../domain/ports.ts";
import { BlockedUrlError } from "../domain/url-policy.ts";
import { DELIVERY_CONTENT_TYPE } from "../domain/signing.ts";

export type GuardedClientOptions = {
  guard: UrlGuard;
  /** Bound on the whole attempt: DNS, connect, TLS, request, headers and the capped body. */
  timeoutMs: number;
  /** Response bytes read at most; the rest is discarded with the connection. */
  readCapBytes: number;
  /** Extra trusted CA in PEM (tests only, WEBHOOK_EXTRA_CA_FILE). */
  extraCa?: string | undefined;
  userAgent: string;
};

/**
 * Characters of the response body kept with an attempt: a short, capped sample
 * (docs/decisions/delivery-status-model.md).
 */
export const RESPONSE_SAMPLE_CHARS = 512;
const MAX_PINNED_HOSTS = 10_000;

/**
 * Vets the URL (and every address its host resolves to) before each request, then connects only
 * to a vetted address: the agent's `lookup` answers from the addresses just vetted instead of
 * asking DNS again, so a name cannot resolve public for the check and private for the connect.
 * TLS still verifies the certificate against the hostname (SNI and Host are the URL's host).
 * Redirects are never followed (undici follows none unless told to); a 3xx is just a status.
 */
export function createGuardedClient(options: GuardedClientOptions): WebhookHttpClient {
  const pins = new Map<string, ResolvedAddress[]>();
  const agent = new Agent({
    connect: {
      lookup: pinnedLookup(pins),
      timeout: options.timeoutMs,
      rejectUnauthorized: true,
      // Built once: passing `ca` per connection would parse the whole root store on every
      // handshake.
      ...(options.extraCa !== undefined && {
        secureContext: createSecureContext({ ca: [...rootCertificates, options.extraCa] }),
      }),
    },
    allowH2: false,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    keepAliveTimeout: 4_000,
  });
  return {
    async post(url, body, headers) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      // A timer cleared when the attempt ends, not AbortSignal.timeout: that one fires after
      // timeoutMs even for an attempt long answered, building an error with a stack each time
      // (docs/decisions/delivery-throughput.md).
      const abort = new AbortController();
      const timer = setTimeout(
        () =>
          abort.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError")),
        options.timeoutMs,
      );
      const signal = abort.signal;
      try {
        const target = await options.guard.vet(url);
        pin(pins, target.hostname, target.addresses);
        const res = await request(target.url, {
          method: "POST",
          body,
          headers: {
            ...headers,
            "content-type": DELIVERY_CONTENT_TYPE,
            "user-agent": options.userAgent,
          },
          dispatcher: agent,
          signal,
        });
        const sample = await readCapped(res.body, options.readCapBytes);
        return { kind: "response", statusCode: res.statusCode, durationMs: elapsed(), sample };
      } catch (err) {
        return {
          kind: "error",
          errorClass: classifyError(err, signal),
          message: describe(err),
          durationMs: elapsed(),
        };
      } finally {
        clearTimeout(timer);
      }
    },
    close: () => agent.close(),
  };
}

/**
 * The agent's name lookup: answers only from addresses the guard vetted for that host moments
 * before; a host nobody vetted fails the connection. (IP literals never reach a lookup.)
 */
function pinnedLookup(pins: Map<string, ResolvedAddress[]>): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    const pinned = pins.get(hostname);
    if (!pinned || pinned.length === 0) {
      const err = Object.assign(new Error(`no vetted address for ${hostname}`), {
        code: "ENOTVETTED",
      });
      return callback(err, "", 0);
    }
    // Happy eyeballs (autoSelectFamily) asks for every address; each of them was vetted.
    if (lookupOptions.all)
      return (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, pinned);
    const first = pinned[0]!;
    callback(null, first.address, first.family);
  };
}

function pin(
  pins: Map<string, ResolvedAddress[]>,
  hostname: string,
  addresses: ResolvedAddress[],
): void {
  // Any pinned entry is an answer that passed the guard moments ago; the newest one wins.
  pins.delete(hostname);
  pins.set(hostname, addresses);
  if (pins.size > MAX_PINNED_HOSTS) pins.delete(pins.keys().next().value!);
}

/** Reads at most `cap` bytes; a longer body is abandoned (and its connection closed). */
async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
  cap: number,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= cap) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks)
    .subarray(0, Math.min(cap, RESPONSE_SAMPLE_CHARS * 4))
    .toString("utf8")
    .slice(0, RESPONSE_SAMPLE_CHARS);
}

const TLS_CODES =
  /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|HOSTNAME_MISMATCH|ERR_OSSL_)/;

function classifyError(err: unknown, signal: AbortSignal): TransportErrorClass {
  if (err instanceof BlockedUrlError) return err.reason === "unresolvable" ? "dns" : "blocked_url";
  if (signal.aborted) return "timeout";
  const codes = causeChain(err)
    .map((e) => (e as { code?: unknown }).code)
    .filter((c): c is string => typeof c === "string");
  if (
    codes.some(
      (c) =>
        c === "UND_ERR_CONNECT_TIMEOUT" ||
        c === "UND_ERR_HEADERS_TIMEOUT" ||
        c === "UND_ERR_BODY_TIMEOUT" ||
        c === "ETIMEDOUT",
    )
  )
    return "timeout";
  if (codes.some((c) => TLS_CODES.test(c))) return "tls";
  if (codes.some((c) => c === "ENOTFOUND" || c === "EAI_AGAIN" || c === "ENOTVETTED")) return "dns";
  return "connection";
}

function causeChain(err: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = err; e && chain.length < 5; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

/** A short, secret-free description: error names and codes, never headers or bodies. */
function describe(err: unknown): string {
  return causeChain(err)
    .map((e) =>
      e instanceof Error
        ? `${e.name}${(e as { code?: string }).code ? ` ${(e as { code?: string }).code}` : ""}: ${e.message}`
        : String(e),
    )
    .join(" <- ")
    .slice(0, 300);
}
