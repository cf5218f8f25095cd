import { isIP } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalIp, cidrContains, formatCidr, hostAddresses, netmaskPrefix, parseCidr, parseIp, parseRange } from './ip.js';

describe('IP addresses (ipaddr.js)', () => {
  it('reads what node:net reads, less IPv4 leading zeros and IPv6 zones', () => {
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6(), fc.ipV4Extended(), fc.string({ maxLength: 12 })), (s) => {
        const dotted = s.split(':').pop() ?? '';
        const leadingZero = dotted.includes('.') && /(^|\.)0\d/.test(dotted);
        const expected = isIP(s) !== 0 && !s.includes('%') && !leadingZero;
        expect(parseIp(s) !== undefined, s).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('gives one canonical text per IPv6 address, whatever the spelling', () => {
    expect(new Set(['fd00:10::11', 'fd00:10:0:0::11', 'FD00:10::11', 'fd00:0010:0000::0011'].map(canonicalIp))).toEqual(
      new Set(['fd00:10::11']),
    );
    fc.assert(
      fc.property(fc.ipV6(), (s) => {
        const c = canonicalIp(s);
        expect(canonicalIp(c)).toBe(c);
        expect(parseIp(c)!.n).toBe(parseIp(s)!.n);
      }),
    );
  });

  it('refuses a CIDR with host bits set unless told to take its network', () => {
    expect(parseCidr('10.0.0.5/24')).toBeUndefined();
    expect(formatCidr(parseCidr('10.0.0.5/24', { strict: false })!)).toBe('10.0.0.0/24');
    const c = parseCidr('fd00:10::/64')!;
    expect(cidrContains(c, parseIp('fd00:10::ffff')!)).toBe(true);
    expect(cidrContains(c, parseIp('fd00:11::1')!)).toBe(false);
    expect(cidrContains(c, parseIp('10.0.0.1')!)).toBe(false);
  });

  it('lists IPv4 hosts without network and broadcast, masks and ranges', () => {
    expect([...hostAddresses(parseCidr('10.0.0.0/30')!)]).toEqual(['10.0.0.1', '10.0.0.2']);
    expect([...hostAddresses(parseCidr('10.0.0.4/31')!)]).toEqual(['10.0.0.4', '10.0.0.5']);
    expect(netmaskPrefix('255.255.255.0')).toBe(24);
    expect(netmaskPrefix('255.0.255.0')).toBeUndefined();
    expect(netmaskPrefix('ffff:ffff:ffff:ffff::')).toBe(64);
    expect(parseRange('10.0.0.9-10.0.0.2')).toBeUndefined();
    expect(parseRange('10.0.0.2, 10.0.0.9')).toEqual({ family: 4, from: 0x0a000002n, to: 0x0a000009n });
  });
});
