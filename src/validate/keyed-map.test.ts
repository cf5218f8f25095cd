import { describe, expect, it } from 'vitest';
import { intern } from '../krm/index.js';
import { KeyedMap } from './context.js';

describe('KeyedMap (the analysis index keyed by kind, namespace and name)', () => {
  it('finds what was set under the same parts, and nothing under parts that would join to the same text', () => {
    const m = new KeyedMap<number>();
    m.set(['Secret', 'a|b', 'c'], 1);
    m.set(['Secret', 'a', 'b|c'], 2);
    m.set(['Secret', '', 'c'], 3);
    expect(m.get(['Secret', 'a|b', 'c'])).toBe(1);
    expect(m.get(['Secret', 'a', 'b|c'])).toBe(2);
    expect(m.get(['Secret', '', 'c'])).toBe(3);
    expect(m.has(['Secret', 'x', 'c'])).toBe(false);
    expect(m.has(['ConfigMap', '', 'c'])).toBe(false);
    expect(m.size).toBe(3);
    m.set(['Secret', '', 'c'], 4);
    expect(m.size).toBe(3);
    expect(m.get(['Secret', '', 'c'])).toBe(4);
  });
});

describe('intern', () => {
  it('returns an equal string, the same one every time for a word already held', () => {
    const a = intern(['Bare', 'MetalHost'].join(''));
    expect(a).toBe('BareMetalHost');
    expect(intern('BareMetalHost')).toBe(a);
    const long = 'x'.repeat(100);
    expect(intern(long)).toBe(long);
  });
});
