/** Reading odd layouts: white space, JSON items, quoted header keys, flow functionConfig. */
import { describe, expect, it } from 'vitest';
import { identity } from '../../test/identity/function.js';
import { resourceList } from '../../test/golden.js';
import { fastLoad } from './fast-yaml.js';
import { PARSE_OPTIONS, yamlLib } from './lazy.js';
import { runFunction } from './main.js';
import { readInput } from './resource-list.js';
import { indentItem } from './scan.js';

const Y = yamlLib();
const list = (...docs: string[]): string =>
  'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n' + docs.map((d) => indentItem(d, 0)).join('');
const READ_ALL = 'apiVersion: baremetal-krm.dev/v1alpha1\nkind: Identity\nmetadata:\n  name: all\nspec:\n  readAll: true\n';
const cm = (name: string, rest = ''): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${rest}`;

describe('reading odd layouts', () => {
  it('only space and tab are YAML white space; tabs in indentation go to yaml', () => {
    for (const t of ['a: x\u00a0\n', 'a: \u3000\n', 'a\u00a0: b\n', 'a: x\ufeff\n', 'a: |\n  x\n  \t\n  y\n', '\ufeffa: 1\n']) {
      const got = fastLoad(t);
      if (got !== undefined) expect(got, JSON.stringify(t)).toEqual(Y.parse(t, PARSE_OPTIONS));
    }
  });

  it('JSON input: a non-mapping item is an error result; a parse error quotes no input', async () => {
    const bad = await runFunction(identity, JSON.stringify({ apiVersion: 'config.kubernetes.io/v1', kind: 'ResourceList', items: [null] }));
    expect(bad.exitCode).toBe(1);
    expect(bad.results[0]!.message).toContain('items[0] is not a mapping');
    const secret = await runFunction(
      identity,
      '{"kind": "ResourceList", "items": [{"kind": "Secret", "stringData": {"password": "hunter2-topsecret"}]}',
    );
    expect(secret.exitCode).toBe(1);
    // the input comes back as it was (nothing lost); no message quotes it
    expect(secret.output).toBe('{"kind": "ResourceList", "items": [{"kind": "Secret", "stringData": {"password": "hunter2-topsecret"}]}');
    expect(secret.results.map((r) => r.message).join('\n') + secret.stderr).not.toContain('hunter2');
  });

  it('quoted header keys and multi-line flow functionConfig are read', async () => {
    const p = readInput(
      list('"apiVersion": v1\n"kind": ConfigMap\nmetadata:\n  name: q\n', 'apiVersion: v1\nkind : Secret\nmetadata:\n  name: s\n'),
    );
    expect(p.items.map((i) => [i.kind, i.name])).toEqual([
      ['ConfigMap', 'q'],
      ['Secret', 's'],
    ]);
    const r = await runFunction(
      identity,
      list(cm('a')) + 'functionConfig: {apiVersion: v1, kind: ConfigMap,\n  metadata: {name: f}, data: {x.y/z: w}}\n',
    );
    expect(r.exitCode).toBe(0);
    expect(readInput(r.output).items[0]!.annotations['x.y/z']).toBe('w');
  });

  it('a !!binary value is its decoded text, as go-yaml gives it to kubectl (never a byte array walked as a mapping)', () => {
    const [o] = readInput(
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, labels: {x: &a lab, z: *a}}\ndata:\n  k: !!binary aGVsbG8=\n',
    ).items;
    expect(o!.data).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'b', labels: { x: 'lab', z: 'lab' } },
      data: { k: 'hello' },
    });
  });

  it('bare-CR line ends (old Mac), alone or mixed with LF and CRLF: `\\r---\\r` separates documents, every untouched byte kept', async () => {
    const oldMac = cm('a').replace(/\n/g, '\r') + '---\r' + cm('b', 'data:\r  k: v\r').replace(/\n/g, '\r');
    const mixed =
      '# head\r\n---\r' + cm('a').replace(/\n/g, '\r') + '--- # two\r\n' + cm('b') + '...\r---\r' + cm('c').replace(/\n/g, '\r\n');
    for (const text of [oldMac, mixed]) {
      const p = readInput(text);
      expect(p.format).toBe('stream');
      expect(p.items.map((o) => o.name)).toEqual(text === oldMac ? ['a', 'b'] : ['a', 'b', 'c']);
      const r = await runFunction(identity, text);
      expect(r.exitCode).toBe(0);
      expect(r.output).toBe(text);
    }
    // a ResourceList in old Mac line ends: split into its items too; an edit leaves the others' bytes
    const untouched =
      'apiVersion: v1\nkind: ConfigMap\nmetadata:  # local config: not annotated\n  name: a\n  annotations: {config.kubernetes.io/local-config: "true"}\ndata: [ "x",  "y" ]\n';
    const fnConfig = 'functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: f}\n  data: {k: v}\n';
    const rl = (list(untouched, cm('b')) + fnConfig).replace(/\n/g, '\r');
    const r = await runFunction(identity, rl);
    expect(r.exitCode).toBe(0);
    expect(
      r.output.startsWith(
        'apiVersion: config.kubernetes.io/v1\rkind: ResourceList\ritems:\r' + indentItem(untouched, 0).replace(/\n/g, '\r'),
      ),
    ).toBe(true);
    expect(readInput(r.output).items.map((o) => o.annotations.k)).toEqual([undefined, 'v']);
    expect(r.output).not.toContain('functionConfig');
  });

  it('the golden harness input builder still round-trips', async () => {
    const text = resourceList([cm('a')]);
    expect((await runFunction(identity, text)).output).toBe(text);
  });
});

describe('%TAG directives in a stream', () => {
  const tagged = (value: string) => `%TAG !e! tag:yaml.org,2002:\n---\n${cm('a', `data:\n  x: ${value}\n`)}`;
  it('a document is read with the directives before it, as the whole stream reads', () => {
    const [o] = readInput(`${cm('first')}---\n${tagged('!e!str 1')}`).items.slice(1);
    expect(o!.readData()).toEqual(Y.parse(tagged('!e!str 1'), PARSE_OPTIONS));
  });

  it('passes through, and a reading error in such a document keeps its line in the input', async () => {
    const r = await runFunction(identity, tagged('!e!str 1'));
    expect(r.exitCode).toBe(0);
    expect(r.output).toBe(tagged('!e!str 1'));
    const [bad] = readInput(`${tagged('!e!str 1')}  y: *nope\n`).items;
    expect(() => bad!.readData()).toThrow(/at line 9, column 6: an alias/);
  });
});

describe('what go-yaml refuses where the objects are applied', () => {
  it('a %YAML directive of another version than 1.1 is an input error naming the document; the stream comes back as it came', async () => {
    for (const version of ['1.2', '1.0', '2.0']) {
      const text = `${cm('first')}---\n%YAML ${version}\n---\n${cm('a')}`;
      const r = await runFunction(identity, text);
      expect(r.exitCode).toBe(1);
      expect(r.results.map((x) => x.message)).toEqual([
        `document 2 (line 8) is declared %YAML ${version}: kubectl, kustomize, kpt and Flux (go-yaml) read YAML 1.1 only and refuse it ("found incompatible YAML document"); remove the directive or write %YAML 1.1`,
      ]);
      expect(r.output).toBe(text);
    }
    const ok = `%YAML 1.1\n---\n${cm('a')}`;
    expect((await runFunction(identity, ok)).output).toBe(ok);
  });

  it('a line that starts with --- and goes on with text is an input error naming the line (kubectl: "invalid Yaml document separator")', async () => {
    for (const [text, line] of [
      [`--- ${cm('a')}`, 1],
      [`${cm('a')}--- |\n  text\n`, 5],
      [`${cm('a', 'data:\n  k: "a\n----b"\n')}`, 7],
    ] as const) {
      const r = await runFunction(identity, text);
      expect(r.exitCode, text).toBe(1);
      expect(r.results[0]!.message).toBe(
        `line ${line} starts with --- and goes on with text: kubectl reads --- at the start of a line as a document separator and refuses anything after it but a comment ("invalid Yaml document separator"); put what follows on the next line`,
      );
      expect(r.output).toBe(text);
    }
    const ok = `${cm('a')}--- # b\n${cm('b')}---\t\n${cm('c')}---# c, a separator to kubectl\n${cm('d')}`;
    expect((await runFunction(identity, ok)).output).toBe(ok);
    expect(readInput(ok).items.map((o) => o.name)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('a document after a document end (...) with no --- is an input error (kubectl and kpt drop it without a word)', async () => {
    const text = `${cm('a')}...\n${cm('b')}`;
    const r = await runFunction(identity, text);
    expect(r.exitCode).toBe(1);
    expect(r.results[0]!.message).toBe(
      'document 2 (line 6) follows a document end (...) with no --- before it: kubectl and kpt do not read it (they drop it without a word, or refuse the file); put --- before it',
    );
    expect(r.output).toBe(text);
    const ok = `${cm('a')}...\n---\n${cm('b')}...\n`;
    expect(readInput(ok).items.map((o) => o.name)).toEqual(['a', 'b']);
    // after a null document, or at the start, too
    for (const bare of [`null\n...\n${cm('a')}`, `...\n${cm('a')}`]) expect(() => readInput(bare), bare).toThrow(/follows a document end/);
  });

  it('a document that is only null (or ~) is skipped as kubectl and kpt skip it, and written back as it came', async () => {
    const text = `null\n---\n${cm('a')}---\n~ # rendered nothing\n---\nNULL\n`;
    expect(readInput(text).items.map((o) => o.name)).toEqual(['a']);
    const r = await runFunction(identity, text);
    expect(r.exitCode).toBe(0);
    expect(r.output).toBe(text);
    // a null with more after it is a document
    expect(readInput(`${cm('a')}---\nnull: x\n`).items).toHaveLength(2);
  });

  it('a mapping key that is a list or a mapping is an error at its line (kubectl: "invalid map key")', async () => {
    for (const [key, what] of [
      ['? [a, b]\n  : x', 'a list'],
      ['? {a: 1}\n  : x', 'a mapping'],
      ['[a, b]: x', 'a list'],
    ] as const) {
      const r = await runFunction(identity, resourceList([cm('a', `data:\n  ${key}\n`)], READ_ALL));
      expect(r.exitCode, key).toBe(1);
      expect(r.results[0]!.message).toMatch(
        new RegExp(`at line 6, column \\d+ of the item: a mapping key that is ${what}: Kubernetes objects are JSON`),
      );
    }
  });
});

describe('many items on one line, through the careful reader', () => {
  it('are found with searches that cover the text a bounded number of times (JSON from jq -c, after a comment line)', async () => {
    const list = JSON.stringify({
      apiVersion: 'config.kubernetes.io/v1',
      kind: 'ResourceList',
      items: Array.from({ length: 2000 }, (_, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `a${i}` } })),
    });
    const text = `# c\n${list}\n`;
    // characters every indexOf/lastIndexOf on strings of this size walked over while reading
    let walked = 0;
    const { indexOf, lastIndexOf } = String.prototype;
    const big = (s: string): boolean => s.length >= text.length / 2;
    String.prototype.indexOf = function (this: string, search: string, from = 0) {
      const at = indexOf.call(this, search, from);
      if (big(this)) walked += (at < 0 ? this.length : at) - Math.max(0, from);
      return at;
    };
    String.prototype.lastIndexOf = function (this: string, search: string, from = Infinity) {
      const at = lastIndexOf.call(this, search, from);
      if (big(this)) walked += Math.min(from, this.length) - Math.max(0, at);
      return at;
    };
    let r: Awaited<ReturnType<typeof runFunction>>;
    try {
      r = await runFunction(identity, text);
    } finally {
      String.prototype.indexOf = indexOf;
      String.prototype.lastIndexOf = lastIndexOf;
    }
    expect(r.exitCode).toBe(0);
    expect(r.output.startsWith(text)).toBe(true);
    // a search back to each item's line start walked ~n²/2 characters: 2000 items, ~150 MB here
    expect(walked).toBeLessThan(20 * text.length);
  });
});
