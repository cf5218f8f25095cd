/**
 * A key written twice in one JSON object is one positioned input error, as in YAML: JSON.parse
 * keeps the last one silently, so a ResourceList with a second `items` lost its Secret before
 * any check, and an item with a second `kind` was checked as what kubectl never applies
 * (kubectl and kustomize refuse such input). Each case asserts the exact outcome: exit 1, one
 * message with the line and column of the second key (the key named only when it is a plain
 * name, never a value), and the input back with the result, not an emptied list.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { definition as intentValidate } from '../../functions/intent-validate/function.js';
import { KrmError, readInput, runFunction } from '../../src/krm/index.js';
import { runBundle } from '../golden.js';
import { identity } from '../identity/function.js';

const HEAD = '{"apiVersion":"config.kubernetes.io/v1","kind":"ResourceList",';
const SECRET = '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"a"},"stringData":{"password":"S3cr3tPw9"}}';
const TAIL = ' kustomize rejects it and kubectl keeps the last without a word; keep one';

const errors = (r: { results: { severity: string; message: string; tags?: Record<string, string> }[] }) =>
  r.results.filter((x) => x.severity === 'error');

/** The input as it came (less its closing brace), then the results: nothing lost. */
function expectInputKept(output: string, input: string): void {
  expect(output.startsWith(input.slice(0, -1))).toBe(true);
  expect(output).toContain('"results": [');
}

describe('duplicate keys in JSON input', () => {
  it("the ResourceList's own keys: a second items is one error at it, exit 1, the input back with the result (the Secret is not dropped)", async () => {
    const input = `${HEAD}"items":[${SECRET}],"items":[]}`;
    const r = await runFunction(intentValidate as never, input);
    expect(r.exitCode).toBe(1);
    expect(errors(r)).toHaveLength(1);
    expect(errors(r)[0]!.message).toBe(
      `input is not accepted JSON at line 1, column ${input.lastIndexOf('"items"') + 1}: duplicate key "items" (first at column ${input.indexOf('"items"') + 1}):${TAIL}`,
    );
    expect(errors(r)[0]!.tags?.rule).toBe('input');
    expectInputKept(r.output, input);
    const b = runBundle('intent-validate', input);
    expect(b.status).toBe(1);
    expect(b.stdout).toBe(r.output);
    expect(b.stderr).toContain('duplicate key "items"');
    expect(b.stderr).not.toMatch(/\n\s+at /);
    expect(b.stderr).not.toContain('S3cr3tPw9');
  });

  it('an item whose kind is written twice is not checked as the last kind: one error naming the item, exit 1', async () => {
    const item = `${SECRET.slice(0, -1)},"kind":"ConfigMap"}`;
    const input = `${HEAD}"items":[${item}]}`;
    const r = await runFunction(intentValidate as never, input);
    expect(r.exitCode).toBe(1);
    expect(errors(r)).toHaveLength(1);
    expect(errors(r)[0]!.message).toBe(
      `items[0] is not accepted JSON at line 1, column ${input.lastIndexOf('"kind"') + 1}: duplicate key "kind" (first at column ${input.indexOf('"kind":"Secret"') + 1}):${TAIL}`,
    );
    expect(r.results.map((x) => x.message).join('\n')).not.toContain('S3cr3tPw9');
    expectInputKept(r.output, input);
  });

  it('keys compare as JSON.parse decodes them: "\\u006bind" is kind', async () => {
    const input = `${HEAD}"items":[{"apiVersion":"v1","kind":"Secret","metadata":{"name":"a"},"\\u006bind":"ConfigMap"}]}`;
    const r = await runFunction(identity, input);
    expect(r.exitCode).toBe(1);
    expect(errors(r)[0]!.message).toMatch(
      /^items\[0\] is not accepted JSON at line 1, column \d+: duplicate key "kind" \(first at column \d+\)/,
    );
  });

  it('in the functionConfig, over several lines: line and column of the second key, first at its own line', async () => {
    const input = `${HEAD}\n"functionConfig": {"apiVersion": "baremetal-krm.dev/v1alpha1", "kind": "Identity",\n  "spec": {},\n  "spec": {"readAll": true}},\n"items": []}\n`;
    const r = await runFunction(identity, input);
    expect(r.exitCode).toBe(1);
    expect(errors(r)).toHaveLength(1);
    expect(errors(r)[0]!.message).toBe(
      `functionConfig is not accepted JSON at line 4, column 3: duplicate key "spec" (first at line 3, column 3):${TAIL}`,
    );
    expect(r.output).not.toContain('"functionConfig":'); // not echoed (it may hold credentials), as when the list reads
  });

  it('deep inside an item, a key that is not a plain name is not shown (it is input text)', async () => {
    const deep = '{"a":'.repeat(40) + '{"token=S3cr3t":1,"token=S3cr3t":2}' + '}'.repeat(40);
    const input = `${HEAD}"items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}},{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"y"},"data":${deep}}]}`;
    const r = await runFunction(identity, input);
    expect(r.exitCode).toBe(1);
    expect(errors(r)[0]!.message).toBe(
      `items[1] is not accepted JSON at line 1, column ${input.lastIndexOf('"token') + 1}: duplicate key (first at column ${input.indexOf('"token') + 1}):${TAIL}`,
    );
    expect(JSON.stringify(r.results)).not.toContain('S3cr3t');
  });

  it('a large object (looked up by map past 16 keys): 10,000 keys pass, one written twice among them is found', async () => {
    const data = (keys: string[]) => `{${keys.map((k, i) => `"${k}":"${i}"`).join(',')}}`;
    const names = Array.from({ length: 10_000 }, (_, i) => `k${i}`);
    const list = (d: string) => `${HEAD}"items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":${d}}]}`;
    const ok = list(data(names));
    expect((await runFunction(identity, ok)).output).toBe(ok);
    const twice = list(data([...names.slice(0, 9_000), 'k20', ...names.slice(9_000)]));
    const r = await runFunction(identity, twice);
    expect(errors(r)[0]!.message).toBe(
      `items[0] is not accepted JSON at line 1, column ${twice.lastIndexOf('"k20"') + 1}: duplicate key "k20" (first at column ${twice.indexOf('"k20"') + 1}):${TAIL}`,
    );
  });

  it('the same key in different objects, or as a value, is no duplicate', async () => {
    const input = `${HEAD}"items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"kind"},"data":{"kind":"kind","metadata":"x"}}]}`;
    const r = await runFunction(identity, input);
    expect(r.exitCode).toBe(0);
    expect(r.output).toBe(input);
  });
});

// ---------- property: the verdict and position equal a reference's ----------

/** A JSON value whose objects are lists of entries, so that a key can be written twice. */
type Value = number | string | Value[] | { entries: [spelling: string, value: Value][] };

const KEYS = ['a', 'b', 'kind', 'k\u00e9y', 'a"b', '__proto__'];

/** A key as JSON text: plain, every character escaped, or the first one only. */
const spelling = fc.tuple(fc.constantFrom(...KEYS), fc.constantFrom('plain', 'escaped', 'first')).map(([key, how]) => {
  if (how === 'plain') return JSON.stringify(key);
  const esc = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  const chars = [...key];
  return `"${chars.map((c, i) => (how === 'escaped' || i === 0 ? esc(c) : JSON.stringify(c).slice(1, -1))).join('')}"`;
});

const value: fc.Arbitrary<Value> = fc.letrec<{ v: Value }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.integer(),
    fc.constantFrom('kind', 'x'),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.array(fc.tuple(spelling, tie('v')), { maxLength: 4 }).map((entries) => ({ entries })),
  ),
})).v;

/** The value as compact JSON text; the offsets of keys written twice (the second) go to `dups`. */
function write(v: Value, at: number, dups: number[]): string {
  if (typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) {
    let out = '[';
    v.forEach((x, i) => {
      if (i > 0) out += ',';
      out += write(x, at + out.length, dups);
    });
    return out + ']';
  }
  let out = '{';
  const seen = new Set<string>();
  v.entries.forEach(([key, x], i) => {
    if (i > 0) out += ',';
    const decoded = JSON.parse(key) as string;
    if (seen.has(decoded)) dups.push(at + out.length);
    seen.add(decoded);
    out += key + ':';
    out += write(x, at + out.length, dups);
  });
  return out + '}';
}

describe('duplicate keys at any depth (property)', () => {
  it('an input is refused exactly when an object holds a key twice (as JSON.parse decodes keys), at the first such second key', () => {
    fc.assert(
      fc.property(value, fc.constantFrom('item', 'functionConfig', 'member'), (v, where) => {
        const dups: number[] = [];
        let text: string;
        if (where === 'item') {
          const head = `${HEAD}"items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":`;
          text = head + write(v, head.length, dups) + '}]}';
        } else if (where === 'functionConfig') {
          const head = `${HEAD}"functionConfig":{"kind":"X","spec":`;
          text = head + write(v, head.length, dups) + '},"items":[]}';
        } else {
          const head = `${HEAD}"other":`;
          text = head + write(v, head.length, dups) + ',"items":[]}';
        }
        let error: unknown;
        try {
          readInput(text);
        } catch (e) {
          error = e;
        }
        if (dups.length === 0) {
          expect(error).toBeUndefined();
          return;
        }
        expect(error).toBeInstanceOf(KrmError);
        const which = where === 'item' ? 'items\\[0\\]' : where === 'functionConfig' ? 'functionConfig' : 'input';
        expect((error as KrmError).message).toMatch(
          new RegExp(
            `^${which} is not accepted JSON at line 1, column ${Math.min(...dups) + 1}: duplicate key( "(a|b|kind)")? \\(first at column \\d+\\):`,
          ),
        );
      }),
      { numRuns: 400 },
    );
  });
});
