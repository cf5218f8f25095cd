/** IPv4 and IPv6 helpers (addresses as bigint) and the stable allocator of host addresses. */
import { lazy } from '../../src/krm/index.js';

/** node:net pulls in Node's streams (~10 ms at start): loaded on the first address. */
const net = lazy(() => require('node:net') as typeof import('node:net'), 'node:net', import.meta.url);

export type Family = 4 | 6;
export interface Ip {
  family: Family;
  n: bigint;
}

const BITS: Record<Family, number> = { 4: 32, 6: 128 };

export function parseIp(s: string): Ip | undefined {
  const f = net().isIP(s);
  if (f === 4) return { family: 4, n: s.split('.').reduce((a, p) => a * 256n + BigInt(Number(p)), 0n) };
  if (f !== 6 || s.includes('%')) return undefined;
  let text = s.toLowerCase();
  // an embedded IPv4 tail (::ffff:10.0.0.1) becomes two groups
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const x = parseIp(v4[1]!)!.n;
    text = text.slice(0, -v4[1]!.length) + `${(x >> 16n).toString(16)}:${(x & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return { family: 6, n: groups.reduce((a, g) => (a << 16n) + BigInt(parseInt(g, 16)), 0n) };
}

/** Canonical text: dotted quad, or RFC 5952 (lowercase, longest run of zero groups as `::`). */
export function formatIp(n: bigint, family: Family): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((s) => ((n >> s) & 255n).toString()).join('.');
  const g = Array.from({ length: 8 }, (_, i) => (n >> BigInt(112 - 16 * i)) & 0xffffn);
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0n) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0n) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j;
  }
  const hex = g.map((x) => x.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

export function isIpAddress(ip: string): boolean {
  return parseIp(ip) !== undefined;
}

/** The same address in canonical form (IPv6 spellings differ), or the text as it is. */
export function canonicalIp(ip: string): string {
  const a = parseIp(ip);
  return a ? formatIp(a.n, a.family) : ip;
}

export interface Cidr {
  family: Family;
  base: bigint;
  size: bigint;
  prefix: number;
}

export function parseCidr(s: string): Cidr | undefined {
  const m = /^([^/\s]+)\/(\d{1,3})$/.exec(s);
  if (!m) return undefined;
  const ip = parseIp(m[1]!);
  const prefix = Number(m[2]);
  if (!ip || prefix > BITS[ip.family]) return undefined;
  const size = 1n << BigInt(BITS[ip.family] - prefix);
  const base = (ip.n / size) * size;
  if (base !== ip.n) return undefined; // host bits set: ambiguous, refuse
  return { family: ip.family, base, size, prefix };
}

/** Prefix length of a netmask: `255.255.255.0`, `ffff:ffff:ffff:ffff::`, or a plain `64`. */
export function netmaskPrefix(mask: string): number | undefined {
  if (/^\d{1,3}$/.test(mask)) return Number(mask);
  const ip = parseIp(mask);
  if (!ip) return undefined;
  const bits = ip.n.toString(2).padStart(BITS[ip.family], '0');
  if (!/^1*0*$/.test(bits)) return undefined;
  return bits.indexOf('0') < 0 ? BITS[ip.family] : bits.indexOf('0');
}

/**
 * A pool for one network: free addresses are handed out lowest first. Every `take` (addresses
 * already held) happens before the first `next`, so a cursor that only moves forward is enough:
 * allocating N hosts costs O(N + reserved ranges), whatever the size of the range (IPv6 /64).
 */
export class Pool {
  readonly used = new Map<bigint, string>(); // address -> host
  /** reserved [from, to] ranges, never handed out; `user`: from spec.ipam.<net>.reserved (else built in: gateways, ironic, endpoint) */
  readonly reserved: [bigint, bigint, boolean][] = [];
  #cursor: bigint;
  constructor(
    readonly network: string,
    readonly family: Family,
    readonly first: bigint,
    readonly last: bigint,
  ) {
    this.#cursor = first;
  }

  reserve(from: bigint, to: bigint, user = false): void {
    const a = from < this.first ? this.first : from;
    const b = to > this.last ? this.last : to;
    if (a <= b) this.reserved.push([a, b, user]);
  }

  #reservedEnd(n: bigint): bigint | undefined {
    let end: bigint | undefined;
    for (const [a, b] of this.reserved) if (n >= a && n <= b && (end === undefined || b > end)) end = b;
    return end;
  }

  /** Marks `ip` as `host`'s; returns the other host holding it, if any. */
  take(ip: string, host: string): string | undefined {
    const a = parseIp(ip);
    if (!a || a.family !== this.family) return undefined;
    const other = this.used.get(a.n);
    if (other !== undefined && other !== host) return other;
    this.used.set(a.n, host);
    return undefined;
  }

  /** Inside first..last (reserved or not): an address a host already holds there is kept. */
  inRange(ip: string): boolean {
    const a = parseIp(ip);
    return a !== undefined && a.family === this.family && a.n >= this.first && a.n <= this.last;
  }

  /** Whether `ip` is in a range reserved by spec.ipam.<net>.reserved. */
  userReserved(ip: string): boolean {
    const a = parseIp(ip);
    return a !== undefined && a.family === this.family && this.reserved.some(([x, y, user]) => user && a.n >= x && a.n <= y);
  }

  next(host: string): string | undefined {
    let n = this.#cursor;
    while (n <= this.last) {
      const end = this.#reservedEnd(n);
      if (end !== undefined) {
        n = end + 1n;
        continue;
      }
      if (this.used.has(n)) {
        n++;
        continue;
      }
      this.used.set(n, host);
      this.#cursor = n + 1n;
      return formatIp(n, this.family);
    }
    this.#cursor = n;
    return undefined;
  }

  describe(): string {
    return `${formatIp(this.first, this.family)}-${formatIp(this.last, this.family)}`;
  }
}

/** `10.0.0.5`, `10.0.0.200-10.0.0.250`, `10.0.0.200,10.0.0.250` (ironic dhcpRange), or IPv6 alike. */
export function parseRange(s: string): { family: Family; from: bigint; to: bigint } | undefined {
  const parts = s.split(/\s*[-,]\s*/);
  if (parts.length === 1) {
    const a = parseIp(parts[0]!.trim());
    return a ? { family: a.family, from: a.n, to: a.n } : undefined;
  }
  if (parts.length !== 2) return undefined;
  const a = parseIp(parts[0]!.trim());
  const b = parseIp(parts[1]!.trim());
  if (!a || !b || a.family !== b.family || b.n < a.n) return undefined;
  return { family: a.family, from: a.n, to: b.n };
}
