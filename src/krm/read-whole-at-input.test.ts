import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readWholeAtInput } from './scan.js';

/** The check as one regex (what readWholeAtInput answered before its tests were split for speed). */
const REFERENCE = / {200}|(?:[[{][^[\]{}\n]{0,64}){32}|(?:- +){32}|(?:^|[\s[{,:-])\*[^\s,[\]{}]/;

describe('readWholeAtInput: which items are read whole at input (aliases, deep nesting)', () => {
  it('answers as the one-regex reference on texts made of the characters that matter', () => {
    const piece = fc.oneof(
      fc.constantFrom(' ', '- ', '-', '[', ']', '{', '}', '\n', 'a', ':', ',', '*x', '&x', '#'),
      fc.integer({ min: 1, max: 220 }).map((n) => ' '.repeat(n)),
      fc.integer({ min: 1, max: 40 }).map((n) => '- '.repeat(n)),
      fc.integer({ min: 1, max: 40 }).map((n) => '[a, '.repeat(n)),
      fc.integer({ min: 1, max: 40 }).map((n) => '{a: '.repeat(n)),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), (pieces) => {
        const text = pieces.join('');
        expect(readWholeAtInput(text)).toBe(REFERENCE.test(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('flags 200 spaces, 32 nested flow collections, 32 compact dashes and aliases; not a plain host', () => {
    expect(readWholeAtInput(`a:\n${' '.repeat(200)}b: 1\n`)).toBe(true);
    expect(readWholeAtInput(`a: ${'['.repeat(32)}\n`)).toBe(true);
    expect(readWholeAtInput(`a:\n${'- '.repeat(32)}x\n`)).toBe(true);
    expect(readWholeAtInput('a: *ref\n')).toBe(true);
    expect(readWholeAtInput('kind: BareMetalHost\nspec:\n  bmc:\n    address: redfish://10.0.0.1/x\n  list: [a, b]\n')).toBe(false);
  });
});
