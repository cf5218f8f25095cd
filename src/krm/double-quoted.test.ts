/**
 * Double-quoted strings as go-yaml (kubectl, kustomize, kpt) reads them where `yaml` reads them
 * otherwise: `\'` (go-yaml's escape for `'`), and the empty lines after an escaped line break
 * (each a line feed, as the YAML spec and go-yaml say; `yaml` folded the first into a space).
 * The decoder is checked against JSON (whose strings are double-quoted YAML) and against `yaml`
 * on the folding both read alike.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PARSE_OPTIONS, yamlLib } from './lazy.js';
import { readInput } from './resource-list.js';
import { decodeDoubleQuoted } from './yaml-read.js';

const Y = yamlLib();
const cm = (value: string): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: ${value}\n`;
const read = (value: string): unknown => (readInput(cm(value)).items[0]!.data.data as { k: unknown }).k;

describe('double-quoted strings read as go-yaml reads them', () => {
  it('what kpt and kubectl read (cases from a differential run against kpt 1.0.0-beta.56)', () => {
    expect(read(`"it\\'s"`)).toBe("it's");
    expect(read('"a\\\n\n  b"')).toBe('a\nb');
    expect(read('"a\\\n\n\n  b"')).toBe('a\n\nb');
    expect(read('"a\\\n  \n  b"')).toBe('a\nb');
    expect(read('"a\\\n  b"')).toBe('ab');
    expect(read('"\\U0001F600 \\x41"')).toBe('\u{1F600} A');
  });

  it('what kubectl refuses is an error at the string: \\/, a \\u surrogate (of a pair too)', () => {
    for (const [value, says] of [
      ['"a\\/b"', /at line 6, column 6: an escape go-yaml does not know \(\\\/\).*write \/ alone/],
      ['"\\ud800"', /at line 6, column 6: an escape of no Unicode character \(\\ud800/],
      ['"\\ud83d\\ude00"', /found invalid Unicode character escape code/],
    ] as const)
      expect(() => read(value), value).toThrow(says);
  });

  it('decodes any JSON string as JSON.parse does', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(decodeDoubleQuoted(JSON.stringify(s))).toBe(s);
      }),
      { numRuns: 300, seed: 20261203 },
    );
  });

  it('folds lines as yaml does where both agree (no escaped line break)', () => {
    const word = fc.constantFrom('a', 'bc', 'é', 'x#y', "it's", '\\t', '\\"');
    const line = fc.tuple(fc.constantFrom('', ' ', '\t '), fc.array(word, { maxLength: 3 }), fc.constantFrom('', ' ', ' \t'));
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 5 }), (lines) => {
        const raw = `"${lines.map(([lead, words, trail], i) => (i ? '    ' : '') + lead + words.join(' ') + trail).join('\n')}"`;
        const doc = `k: ${raw}\n`;
        expect(decodeDoubleQuoted(raw), JSON.stringify(raw)).toBe((Y.parse(doc, PARSE_OPTIONS) as { k: string }).k);
      }),
      { numRuns: 300, seed: 20261203 },
    );
  });
});
