/** Cases a review of the runtime found broken; each stays fixed. */
import { describe, expect, it } from 'vitest';
import { identity } from '../../test/identity/function.js';
import { resourceList } from '../../test/golden.js';
import { Context } from './context.js';
import { fastLoad } from './fast-yaml.js';
import { KubeObject } from './kube-object.js';
import { PARSE_OPTIONS, yamlLib } from './lazy.js';
import { runFunction } from './main.js';
import { readInput, writeOutput } from './resource-list.js';
import { indentItem } from './scan.js';

const Y = yamlLib();
const list = (...docs: string[]): string =>
  'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n' + docs.map((d) => indentItem(d, 0)).join('');
const cm = (name: string, rest = ''): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${rest}`;

describe('runtime regressions', () => {
  it('a block scalar ending in comment-like or blank lines keeps them, also when the next item goes', () => {
    for (const data of ['data:\n  script: |\n    echo hi\n    # done\n', 'data:\n  k: |+\n    x\n\n']) {
      const text = list(cm('a', data), cm('b'));
      const p = readInput(text);
      expect(p.items.map((i) => i.data)).toEqual((Y.parse(text, PARSE_OPTIONS) as { items: unknown[] }).items);
      const out = writeOutput(p, [p.items[0]!], []);
      expect((Y.parse(out, PARSE_OPTIONS) as { items: unknown[] }).items[0]).toEqual(Y.parse(cm('a', data), PARSE_OPTIONS));
    }
  });

  it('inserting a key next to a block scalar does not land inside it', () => {
    const o = KubeObject.fromListEntry(indentItem(cm('a', 'data:\n  script: |\n    echo hi\n    # done\n'), 0), 0);
    o.set('data.z', 'v');
    expect(Y.parse(o.body, PARSE_OPTIONS)).toMatchObject({ data: { script: 'echo hi\n# done\n', z: 'v' } });
    const n = KubeObject.fromListEntry(
      indentItem(cm('a', '  annotations:\n    note: |+\n      x\n\n').replace('name: a\n  annotations', 'name: a\n  annotations'), 0),
      0,
    );
    n.setAnnotation('b', 'v');
    expect(n.annotations).toEqual({ note: 'x\n\n', b: 'v' });
  });

  it('keys with escaped quotes are edited correctly', () => {
    for (const key of ["'it''s'", '"a\\"b"']) {
      const o = KubeObject.fromListEntry(indentItem(cm('a', `data:\n  ${key}: old\n`), 0), 0);
      const name = Object.keys(o.get('data') as object)[0]!;
      o.set(['data', name], 'new');
      expect(Y.parse(o.body, PARSE_OPTIONS)).toMatchObject({ data: { [name]: 'new' } });
    }
  });

  it('only space and tab are YAML white space; tabs in indentation go to yaml', () => {
    for (const t of ['a: x\u00a0\n', 'a: \u3000\n', 'a\u00a0: b\n', 'a: x\ufeff\n', 'a: |\n  x\n  \t\n  y\n', '\ufeffa: 1\n']) {
      const got = fastLoad(t);
      if (got !== undefined) expect(got, JSON.stringify(t)).toEqual(Y.parse(t, PARSE_OPTIONS));
    }
  });

  it('reconcile continues a file index and is idempotent for nameless items', () => {
    const want = (n: string[]): { data: Record<string, unknown>; path: string }[] =>
      n.map((name) => ({ data: { apiVersion: 'v1', kind: 'ConfigMap', metadata: name ? { name } : {} }, path: 'f.yaml' }));
    const c1 = new Context<unknown>([], {}, undefined);
    c1.reconcile('gen/x', want(['a']));
    const c2 = new Context<unknown>(
      c1.items.map((o) => KubeObject.fromListEntry(indentItem(o.body, 0), 0)),
      {},
      undefined,
    );
    c2.reconcile('gen/x', want(['a', 'b']));
    expect(c2.items.map((o) => o.annotations['config.kubernetes.io/index'])).toEqual(['0', '1']);
    const n1 = new Context<unknown>([], {}, undefined);
    n1.reconcile('gen/y', want(['', '']));
    const n2 = new Context<unknown>(
      n1.items.map((o) => KubeObject.fromListEntry(indentItem(o.body, 0), 0)),
      {},
      undefined,
    );
    n2.reconcile('gen/y', want(['', '']));
    expect(n2.items.map((o) => o.changed)).toEqual([false, false]);
  });

  it('setAnnotation on a null annotations or metadata', () => {
    for (const doc of [
      cm('a', '').replace('name: a\n', 'name: a\n  annotations: ~\n'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata: null\n',
    ]) {
      const o = KubeObject.fromListEntry(indentItem(doc, 0), 0);
      o.setAnnotation('k', 'v');
      expect(o.annotations.k).toBe('v');
    }
    const n = KubeObject.fromListEntry(indentItem(cm('a', '').replace('name: a\n', 'name: a\n  annotations:\n    x: 1\n'), 0), 0);
    n.setAnnotation('x', '1');
    expect(n.get('metadata.annotations.x')).toBe('1');
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
    expect(secret.output + secret.stderr).not.toContain('hunter2');
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

  it('the golden harness input builder still round-trips', async () => {
    const text = resourceList([cm('a')]);
    expect((await runFunction(identity, text)).output).toBe(text);
  });
});
