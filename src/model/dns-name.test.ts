import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isDnsLabel, isDnsSubdomain, toDnsLabel, toDnsSubdomain } from './dns-name.js';

describe('DNS-1123 names', () => {
  it('makes a valid label or subdomain of any text, deterministically', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (s) => {
        const label = toDnsLabel(s);
        if (label !== '') expect(isDnsLabel(label), label).toBe(true);
        const sub = toDnsSubdomain(s);
        if (sub !== '') expect(isDnsSubdomain(sub), sub).toBe(true);
        const short = toDnsSubdomain(s, { max: 63 });
        if (short !== '') expect(short.length).toBeLessThanOrEqual(63);
        expect(toDnsLabel(s)).toBe(label);
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps dots in subdomains, hashes what it must cut, falls back when nothing is left', () => {
    expect(toDnsSubdomain('Node01.Lab_Example.')).toBe('node01.lab-example');
    expect(toDnsLabel('phasePlan-capi_init')).toBe('phaseplan-capi-init');
    expect(toDnsLabel('__', { fallback: 'x' })).toBe('x');
    const a = toDnsLabel(`p-${'a'.repeat(100)}`);
    expect(a).toHaveLength(63);
    expect(a).not.toBe(toDnsLabel(`p-${'a'.repeat(101)}`));
    expect(isDnsLabel('a.b')).toBe(false);
    expect(isDnsSubdomain('a..b')).toBe(false);
  });
});
