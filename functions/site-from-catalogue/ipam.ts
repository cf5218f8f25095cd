/** IPv4 helpers and the stable allocator of host addresses. */
import { isIP } from 'node:net';

export function ipToInt(ip: string): number | undefined {
  if (isIP(ip) !== 4) return undefined;
  return ip.split('.').reduce((a, p) => a * 256 + Number(p), 0);
}

export function intToIp(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
}

export function isIpAddress(ip: string): boolean {
  return isIP(ip) !== 0;
}

export interface Cidr {
  base: number;
  size: number;
  prefix: number;
}

export function parseCidr(s: string): Cidr | undefined {
  const m = /^(\d+\.\d+\.\d+\.\d+)\/(\d{1,2})$/.exec(s);
  if (!m) return undefined;
  const ip = ipToInt(m[1]!);
  const prefix = Number(m[2]);
  if (ip === undefined || prefix > 32) return undefined;
  const size = 2 ** (32 - prefix);
  const base = Math.floor(ip / size) * size;
  if (base !== ip) return undefined; // host bits set: ambiguous, refuse
  return { base, size, prefix };
}

export function netmaskPrefix(mask: string): number | undefined {
  const n = ipToInt(mask);
  if (n === undefined) return undefined;
  const bits = n.toString(2).padStart(32, '0');
  if (!/^1*0*$/.test(bits)) return undefined;
  return bits.indexOf('0') < 0 ? 32 : bits.indexOf('0');
}

/** A pool for one network: free addresses are handed out lowest first. */
export class Pool {
  readonly used = new Map<number, string>(); // address -> host
  readonly skip = new Set<number>();
  constructor(
    readonly network: string,
    readonly first: number,
    readonly last: number,
  ) {}

  take(ip: string, host: string): string | undefined {
    const n = ipToInt(ip);
    if (n === undefined) return undefined;
    const other = this.used.get(n);
    if (other !== undefined && other !== host) return other;
    this.used.set(n, host);
    return undefined;
  }

  contains(ip: string): boolean {
    const n = ipToInt(ip);
    return n !== undefined && n >= this.first && n <= this.last && !this.skip.has(n);
  }

  next(host: string): string | undefined {
    for (let n = this.first; n <= this.last; n++) {
      if (this.skip.has(n) || this.used.has(n)) continue;
      this.used.set(n, host);
      return intToIp(n);
    }
    return undefined;
  }
}

/** `10.0.0.5` or `10.0.0.200-10.0.0.250` or `10.0.0.200,10.0.0.250` (ironic dhcpRange). */
export function parseRange(s: string): [number, number] | undefined {
  const parts = s.split(/\s*[-,]\s*/);
  if (parts.length === 1) {
    const n = ipToInt(parts[0]!.trim());
    return n === undefined ? undefined : [n, n];
  }
  if (parts.length !== 2) return undefined;
  const a = ipToInt(parts[0]!.trim());
  const b = ipToInt(parts[1]!.trim());
  if (a === undefined || b === undefined || b < a) return undefined;
  return [a, b];
}
