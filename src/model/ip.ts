/**
 * IP addresses and CIDRs, the one home for them (allocation, discovery ranges, duplicate checks):
 * parsing and canonical text come from ipaddr.js; addresses are also held as bigint so that
 * ranges of any size (an IPv6 /64) are plain arithmetic.
 *
 * Parsing is strict where Kubernetes and Go are: an IPv4 address is a dotted quad without
 * leading zeros (`010.0.0.1` is refused, as Go's net.ParseIP refuses it), an IPv6 address has no
 * zone (`fe80::1%eth0` is not an address a manifest can hold).
 */
import type * as IpaddrJs from 'ipaddr.js';
import { lazy } from '../krm/index.js';

/** ipaddr.js, set up on the first address read or written: a run that meets none (hosts passed through) does not pay for it. */
const ipaddrLib = lazy(() => require('ipaddr.js') as typeof IpaddrJs, 'ipaddr.js', import.meta.url);

export type Family = 4 | 6;

export interface Ip {
  family: Family;
  n: bigint;
}

export interface Cidr {
  family: Family;
  /** the network address */
  base: bigint;
  /** number of addresses */
  size: bigint;
  prefix: number;
}

export const FAMILY_BITS: Record<Family, number> = { 4: 32, 6: 128 };

function toBigint(bytes: number[]): bigint {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  return n;
}

function toBytes(n: bigint, family: Family): number[] {
  const len = family === 4 ? 4 : 16;
  const out = new Array<number>(len);
  for (let i = len - 1; i >= 0; i--) {
    out[i] = Number(n & 255n);
    n >>= 8n;
  }
  return out;
}

/** An IPv4 or IPv6 address, or undefined when the text is not one. */
export function parseIp(text: string): Ip | undefined {
  const s = text.trim();
  const ipaddr = ipaddrLib();
  if (ipaddr.IPv4.isValidFourPartDecimal(s)) return { family: 4, n: toBigint(ipaddr.IPv4.parse(s).toByteArray()) };
  if (!s.includes(':') || s.includes('%') || !ipaddr.IPv6.isValid(s)) return undefined;
  return { family: 6, n: toBigint(ipaddr.IPv6.parse(s).toByteArray()) };
}

/** Canonical text: a dotted quad, or RFC 5952 (lowercase, the longest run of zero groups as `::`). */
export function formatIp(n: bigint, family: Family): string {
  const addr = ipaddrLib().fromByteArray(toBytes(n, family));
  return addr.kind() === 'ipv6' ? (addr as IpaddrJs.IPv6).toRFC5952String() : addr.toString();
}

export function isIpAddress(text: string): boolean {
  return parseIp(text) !== undefined;
}

/** The same address in canonical form (`FD00:10:0:0::11` -> `fd00:10::11`), or the text as it is. */
export function canonicalIp(text: string): string {
  const a = parseIp(text);
  return a ? formatIp(a.n, a.family) : text;
}

/**
 * `10.0.0.0/24`, `fd00::/64`. With `strict` (the default) a CIDR with host bits set
 * (`10.0.0.5/24`) is refused as ambiguous; without, it is taken as its network.
 */
export function parseCidr(text: string, opts: { strict?: boolean } = {}): Cidr | undefined {
  const m = /^([^/\s]+)\/(\d{1,3})$/.exec(text.trim());
  if (!m) return undefined;
  const ip = parseIp(m[1]!);
  const prefix = Number(m[2]);
  if (!ip || prefix > FAMILY_BITS[ip.family]) return undefined;
  const size = 1n << BigInt(FAMILY_BITS[ip.family] - prefix);
  const base = (ip.n / size) * size;
  if (base !== ip.n && opts.strict !== false) return undefined;
  return { family: ip.family, base, size, prefix };
}

export function cidrContains(cidr: Cidr, ip: Ip): boolean {
  return ip.family === cidr.family && ip.n >= cidr.base && ip.n < cidr.base + cidr.size;
}

export function formatCidr(cidr: Cidr): string {
  return `${formatIp(cidr.base, cidr.family)}/${cidr.prefix}`;
}

/** Prefix length of a netmask: `255.255.255.0`, `ffff:ffff:ffff:ffff::`, or a plain `64`. */
export function netmaskPrefix(mask: string): number | undefined {
  if (/^\d{1,3}$/.test(mask.trim())) return Number(mask.trim());
  const ip = parseIp(mask);
  if (!ip) return undefined;
  const bits = ip.n.toString(2).padStart(FAMILY_BITS[ip.family], '0');
  if (!/^1*0*$/.test(bits)) return undefined;
  return bits.indexOf('0') < 0 ? FAMILY_BITS[ip.family] : bits.indexOf('0');
}

/** `10.0.0.5`, `10.0.0.200-10.0.0.250`, `10.0.0.200,10.0.0.250` (ironic dhcpRange), or IPv6 alike. */
export function parseRange(text: string): { family: Family; from: bigint; to: bigint } | undefined {
  const parts = text.split(/\s*[-,]\s*/);
  if (parts.length === 1) {
    const a = parseIp(parts[0]!);
    return a ? { family: a.family, from: a.n, to: a.n } : undefined;
  }
  if (parts.length !== 2) return undefined;
  const a = parseIp(parts[0]!);
  const b = parseIp(parts[1]!);
  if (!a || !b || a.family !== b.family || b.n < a.n) return undefined;
  return { family: a.family, from: a.n, to: b.n };
}

/**
 * The host addresses of a CIDR in order: every address, less an IPv4 network's network and
 * broadcast addresses when it has four or more.
 */
export function* hostAddresses(cidr: Cidr): Generator<string> {
  const skipEnds = cidr.family === 4 && cidr.size >= 4n;
  for (let i = 0n; i < cidr.size; i++) {
    if (skipEnds && (i === 0n || i === cidr.size - 1n)) continue;
    yield formatIp(cidr.base + i, cidr.family);
  }
}
