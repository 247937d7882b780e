import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * The subscription URL rules, applied when a subscription is created or changed and again before
 * every delivery attempt: https only, no credentials, no internal names or addresses. Which
 * addresses are public is decided here; resolving the host is the UrlGuard port's
 * (domain/ports.ts, implemented by outbound/url-guard.ts).
 */

export type BlockReason =
  | "malformed"
  | "not_https"
  | "credentials"
  | "forbidden_name"
  | "forbidden_address"
  | "unresolvable";

export class BlockedUrlError extends Error {
  readonly reason: BlockReason;
  constructor(reason: BlockReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "BlockedUrlError";
    this.reason = reason;
  }
}

export const MAX_URL_LENGTH = 2_048;

// Names that are internal by definition: single-label names (search-domain expansion reaches
// "metadata", "kubernetes", ...), special-use and private-use domains, cloud metadata names.
const FORBIDDEN_SUFFIXES = [
  ".localhost",
  ".local",
  ".localdomain",
  ".internal",
  ".intranet",
  ".corp",
  ".home.arpa",
  ".arpa",
  ".test",
  ".invalid",
  ".example",
  ".onion",
  ".alt",
];
const FORBIDDEN_NAMES = new Set([
  "metadata.google.internal",
  "metadata.goog",
  "metadata.azure.com",
  "instance-data",
  "instance-data.ec2.internal",
]);

// Public-looking addresses that are nonetheless cloud platform endpoints.
const METADATA_ADDRESSES = [
  "168.63.129.16",
  "100.100.100.200",
  "192.0.0.192",
  "169.254.169.254",
  "169.254.170.2",
  "fd00:ec2::254",
  "fd00:ec2::23",
].map((a) => ipaddr.parse(a).toNormalizedString());

/**
 * Whether a URL points at this machine's loopback interface: `localhost` (and `*.localhost`), an
 * address of 127.0.0.0/8 or ::1. Only a local stack (WEBHOOK_ALLOW_LOOPBACK) accepts such
 * subscriber URLs; their representation carries a warning.
 */
export function isLoopbackUrl(raw: string): boolean {
  const url = URL.parse(raw);
  if (!url) return false;
  const host = bareHost(url).replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  return ipaddr.isValid(host) && ipaddr.parse(host).range() === "loopback";
}

/**
 * Syntax and name rules only (no DNS): https, no userinfo, no internal names or literals. With
 * `allowLoopback` (the local stack), a loopback URL (isLoopbackUrl) passes with http or https; its
 * name's addresses are then checked to be loopback too.
 */
export function parseSubscriptionUrl(raw: string, allowLoopback: boolean): URL {
  // The URL parser silently drops tabs, newlines and edge spaces; a URL needing that is refused.
  if (raw.length > MAX_URL_LENGTH || hasControlOrSpace(raw))
    throw new BlockedUrlError("malformed", "url is not a valid absolute URL");
  let url: URL;
  try {
    url = new URL(raw);
  } catch (err) {
    throw new BlockedUrlError("malformed", "url is not a valid absolute URL", { cause: err });
  }
  const loopback = allowLoopback && isLoopbackUrl(raw);
  if (url.protocol !== "https:" && !(loopback && url.protocol === "http:"))
    throw new BlockedUrlError("not_https", "url must use https");
  if (url.username !== "" || url.password !== "")
    throw new BlockedUrlError("credentials", "url must not contain credentials (user@host)");
  const hostname = bareHost(url);
  if (isIP(hostname)) {
    const problem = addressProblem(hostname, allowLoopback);
    if (problem)
      throw new BlockedUrlError(
        "forbidden_address",
        `url host is not a publicly reachable address (${problem})`,
      );
    return url;
  }
  if (loopback) return url;
  const problem = nameProblem(hostname);
  if (problem)
    throw new BlockedUrlError("forbidden_name", `url host is not a public name (${problem})`);
  return url;
}

function hasControlOrSpace(raw: string): boolean {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c <= 0x20 || (c >= 0x7f && c <= 0x9f)) return true;
  }
  return false;
}

/**
 * The hostname without IPv6 brackets; the parser has already lower-cased and normalised IPv4
 * forms.
 */
export function bareHost(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}

function nameProblem(hostname: string): string | undefined {
  // "localhost." is "localhost": the trailing dot only marks the name as fully qualified.
  const name = hostname.replace(/\.$/, "");
  if (name === "localhost") return "localhost";
  if (name === "" || !name.includes(".")) return "single-label names are internal";
  if (FORBIDDEN_NAMES.has(name)) return "cloud metadata name";
  const suffix = FORBIDDEN_SUFFIXES.find((s) => name.endsWith(s));
  return suffix ? `${suffix} names are internal or reserved` : undefined;
}

/**
 * Why an address may not be contacted, or undefined when it is public. Allow-list: IPv4 must be
 * ipaddr.js "unicast" (not private, loopback, link-local, CGNAT, multicast, unspecified,
 * broadcast, reserved, documentation, benchmarking, ...); IPv6 must be global unicast (2000::/3)
 * and "unicast"; IPv6 forms that carry an IPv4 address are judged by that IPv4 address.
 */
export function addressProblem(address: string, allowLoopback = false): string | undefined {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(address);
  } catch {
    return "unparseable address";
  }
  if (METADATA_ADDRESSES.includes(ip.toNormalizedString())) return "cloud metadata address";
  if (ip.kind() === "ipv4") return ipv4Problem(ip as ipaddr.IPv4, allowLoopback);
  return ipv6Problem(ip as ipaddr.IPv6, allowLoopback);
}

function ipv4Problem(ip: ipaddr.IPv4, allowLoopback: boolean): string | undefined {
  const range = ip.range();
  if (range === "loopback" && allowLoopback) return undefined;
  return range === "unicast" ? undefined : range;
}

function ipv6Problem(ip: ipaddr.IPv6, allowLoopback: boolean): string | undefined {
  const range = ip.range();
  if (range === "loopback") return allowLoopback ? undefined : "loopback";
  const embedded = embeddedIPv4(ip);
  if (embedded === "refuse") return `${range} (translation prefix)`;
  if (embedded) {
    const problem = ipv4Problem(embedded, false);
    return problem ? `${problem} via ${range === "unicast" ? "ipv4Compatible" : range}` : undefined;
  }
  if (range !== "unicast") return range;
  // Outside 2000::/3 nothing is global unicast today (e.g. the IPv4-compatible ::/96).
  return ip.match(ipaddr.IPv6.parse("2000::"), 3) ? undefined : "not global unicast";
}

/**
 * The IPv4 address an IPv6 address stands for when a stack or a translator would reach it:
 * IPv4-mapped (::ffff:0:0/96), SIIT (::ffff:0:0:0/96), IPv4-compatible (::/96), NAT64 well-known
 * prefix (64:ff9b::/96), 6to4 (2002::/16). Local-use NAT64 (64:ff9b:1::/48, any embedding
 * length) and Teredo (client address obfuscated) are refused outright.
 */
function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4 | "refuse" | undefined {
  const p = ip.parts;
  const last32 = () => new ipaddr.IPv4([p[6]! >> 8, p[6]! & 0xff, p[7]! >> 8, p[7]! & 0xff]);
  switch (ip.range()) {
    case "ipv4Mapped":
    case "rfc6145":
      return last32();
    case "rfc6052":
      return p[0] === 0x64 && p[1] === 0xff9b && p.slice(2, 6).every((x) => x === 0)
        ? last32()
        : "refuse";
    case "6to4":
      return new ipaddr.IPv4([p[1]! >> 8, p[1]! & 0xff, p[2]! >> 8, p[2]! & 0xff]);
    case "teredo":
      return "refuse";
    default:
      return p.slice(0, 6).every((x) => x === 0) ? last32() : undefined;
  }
}
