/** The stable allocator of host addresses (addresses themselves: src/model/ip.ts). */
import { type Family, formatIp, parseIp } from '../../src/model/ip.js';

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
