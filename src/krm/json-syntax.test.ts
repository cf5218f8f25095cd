/**
 * jsonErrorAt agrees with JSON.parse on what is JSON (generated near-JSON texts: values cut,
 * characters dropped, swapped or inserted), and a JSON item that does not parse is named with
 * its position and never quoted: V8's own message quotes the text around the error.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonErrorAt } from './json-syntax.js';
import { readInput, runFunction } from './index.js';
import { identity } from '../../test/identity/function.js';

const parses = (t: string): boolean => {
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
};

describe('jsonErrorAt', () => {
  it('says JSON exactly when JSON.parse does, with an offset in the text otherwise (property)', () => {
    const mutated = fc
      .tuple(
        fc.jsonValue({ maxDepth: 4 }),
        fc.constantFrom(0, 2),
        fc.array(
          fc.tuple(fc.nat(), fc.constantFrom('drop', 'insert', 'cut'), fc.constantFrom(...`{}[],:"'\\ -.e0x1tfnu\u0001`.split(''))),
          { maxLength: 3 },
        ),
      )
      .map(([v, indent, edits]) => {
        let t = JSON.stringify(v, null, indent);
        for (const [at, how, ch] of edits) {
          const k = t.length === 0 ? 0 : at % (t.length + 1);
          t = how === 'drop' ? t.slice(0, k) + t.slice(k + 1) : how === 'insert' ? t.slice(0, k) + ch + t.slice(k) : t.slice(0, k);
        }
        return t;
      });
    fc.assert(
      fc.property(mutated, (t) => {
        const at = jsonErrorAt(t);
        if (parses(t)) expect(at, t).toBe(-1);
        else {
          expect(at, t).toBeGreaterThanOrEqual(0);
          expect(at, t).toBeLessThanOrEqual(t.length);
          // the text up to the error is a prefix JSON.parse cannot fault: it either parses or ends too soon
          expect(jsonErrorAt(t.slice(0, at)), t).not.toBeLessThan(-1);
        }
      }),
      { numRuns: 3000 },
    );
  });
});

describe('a JSON item that does not parse', () => {
  const list = (item: string): string => `{"apiVersion":"config.kubernetes.io/v1","kind":"ResourceList","items":[\n${item}\n]}\n`;
  it('is named by its position and what is wrong there, never by its text', async () => {
    for (const [item, kind] of [
      [`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"bmc"},"stringData":{"password":'S3cr3tPw9'}}`, 'a single quote'],
      [`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"bmc"},"stringData":{"password":Hunter2xyzJ1}}`, 'unexpected character'],
      [`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"bmc"},"stringData":{"password":"Hunter2\\q"}}`, 'a bad escape'],
    ] as const) {
      const r = await runFunction(identity, list(item));
      expect(r.exitCode).toBe(1);
      const m = r.results.map((x) => x.message).join('\n');
      expect(m).toMatch(new RegExp(`items\\[0\\] is not valid JSON at line \\d+, column \\d+(?: of the item)?: ${kind}`));
      expect(m + r.stderr).not.toMatch(/S3cr3t|Hunter2/);
    }
  });

  it('reads as before when it parses', () => {
    const [o] = readInput(list('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}')).items;
    expect(o!.readData().kind).toBe('ConfigMap');
  });
});
