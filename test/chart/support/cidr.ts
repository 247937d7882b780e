// Address ranges as integer intervals, to ask what a NetworkPolicy ipBlock (cidr minus except)
// admits.
import { isIPv4, isIPv6 } from "node:net";

export interface Range {
  family: 4 | 6;
  start: bigint;
  end: bigint;
}

function ipv4ToBigInt(address: string): bigint {
  return address.split(".").reduce((acc, octet) => (acc << 8n) | BigInt(Number(octet)), 0n);
}

function ipv6ToBigInt(address: string): bigint {
  const [head = "", tail] = address.split("::");
  const groups = (part: string | undefined) => (part ? part.split(":") : []);
  const left = groups(head);
  const right = groups(tail);
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  const all = [...left, ...Array<string>(missing).fill("0"), ...right];
  if (all.length !== 8) throw new Error(`not an IPv6 address: ${address}`);
  return all.reduce((acc, group) => (acc << 16n) | BigInt(parseInt(group, 16)), 0n);
}

export function parseAddress(address: string): { family: 4 | 6; value: bigint } {
  if (isIPv4(address)) return { family: 4, value: ipv4ToBigInt(address) };
  if (isIPv6(address)) return { family: 6, value: ipv6ToBigInt(address) };
  throw new Error(`not an IP address: ${address}`);
}

/** The interval a CIDR covers; throws when host bits are set (the API server refuses those). */
export function parseCidr(cidr: string): Range {
  const [address = "", prefixText = ""] = cidr.split("/");
  const { family, value } = parseAddress(address);
  const bits = family === 4 ? 32n : 128n;
  const prefix = BigInt(Number(prefixText));
  if (!/^[0-9]+$/.test(prefixText) || prefix > bits) throw new Error(`bad prefix: ${cidr}`);
  const size = 1n << (bits - prefix);
  if (value % size !== 0n) throw new Error(`host bits set: ${cidr}`);
  return { family, start: value, end: value + size - 1n };
}

export function prefixLength(cidr: string): number {
  return Number(cidr.split("/")[1]);
}

/** The parts of `ranges` outside `cut`. */
export function subtract(ranges: Range[], cut: Range): Range[] {
  return ranges.flatMap((r) => {
    if (r.family !== cut.family || cut.end < r.start || cut.start > r.end) return [r];
    const out: Range[] = [];
    if (cut.start > r.start) out.push({ ...r, end: cut.start - 1n });
    if (cut.end < r.end) out.push({ ...r, start: cut.end + 1n });
    return out;
  });
}

export function overlaps(a: Range, b: Range): boolean {
  return a.family === b.family && a.start <= b.end && b.start <= a.end;
}

export function contains(ranges: Range[], address: string): boolean {
  const { family, value } = parseAddress(address);
  return ranges.some((r) => r.family === family && r.start <= value && value <= r.end);
}

/** What one ipBlock admits: its cidr without its except ranges. */
export function admitted(block: { cidr: string; except?: string[] }): Range[] {
  return (block.except ?? []).reduce(
    (left, cut) => subtract(left, parseCidr(cut)),
    [parseCidr(block.cidr)],
  );
}

/** The NAT64 well-known-prefix form (64:ff9b::/96, RFC 6052) of an IPv4 range. */
export function nat64(ipv4Cidr: string): Range {
  const r = parseCidr(ipv4Cidr);
  if (r.family !== 4) throw new Error(`not IPv4: ${ipv4Cidr}`);
  const prefix = parseCidr("64:ff9b::/96").start;
  return { family: 6, start: prefix + r.start, end: prefix + r.end };
}

/** The 6to4 form (2002::/16, RFC 3056) of an IPv4 range. */
export function sixToFour(ipv4Cidr: string): Range {
  const r = parseCidr(ipv4Cidr);
  if (r.family !== 4) throw new Error(`not IPv4: ${ipv4Cidr}`);
  const prefix = parseCidr("2002::/16").start;
  return {
    family: 6,
    start: prefix + (r.start << 80n),
    end: prefix + (((r.end + 1n) << 80n) - 1n),
  };
}
