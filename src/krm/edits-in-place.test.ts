/** Edits keep the rest of an item's text right: block scalars, quoted keys, null parents, generated indexes. */
import { describe, expect, it } from 'vitest';
import { Context } from './context.js';
import { KrmError, KubeObject } from './kube-object.js';
import { PARSE_OPTIONS, yamlLib } from './lazy.js';
import { type FunctionDefinition, runFunction } from './main.js';
import { readInput, writeOutput } from './resource-list.js';
import { indentItem } from './scan.js';

const Y = yamlLib();
const list = (...docs: string[]): string =>
  'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n' + docs.map((d) => indentItem(d, 0)).join('');
const cm = (name: string, rest = ''): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${rest}`;

describe('edits in place', () => {
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

  it('a CRLF item is edited in place and keeps its CRLF; an item mixing LF and CRLF goes through yaml', () => {
    const body = cm('a', 'data:\n  k: "v"   # trailing\n  list: [a,   b]\n');
    const crlf = KubeObject.fromDocument(body.replace(/\n/g, '\r\n'));
    crlf.setAnnotation('x', 'y');
    const lf = KubeObject.fromDocument(body);
    lf.setAnnotation('x', 'y');
    expect(crlf.body).toBe(lf.body.replace(/\n/g, '\r\n')); // the same lines as the LF edit: spacing and flow style kept
    expect(crlf.body).toContain('k: "v"   # trailing\r\n  list: [a,   b]\r\n');
    const mixed = KubeObject.fromDocument(body.replace('\n', '\r\n'));
    mixed.setAnnotation('x', 'y');
    expect(Y.parse(mixed.body, PARSE_OPTIONS)).toMatchObject({ metadata: { annotations: { x: 'y' } }, data: { k: 'v', list: ['a', 'b'] } });
  });

  it('keys with escaped quotes are edited correctly', () => {
    for (const key of ["'it''s'", '"a\\"b"']) {
      const o = KubeObject.fromListEntry(indentItem(cm('a', `data:\n  ${key}: old\n`), 0), 0);
      const name = Object.keys(o.get('data') as object)[0]!;
      o.set(['data', name], 'new');
      expect(Y.parse(o.body, PARSE_OPTIONS)).toMatchObject({ data: { [name]: 'new' } });
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
});

describe('an item written anew is named, with why (one info result)', () => {
  /** A function that applies `edit` to every resource, then optionally fails. */
  const editing = (edit: (o: KubeObject) => void, fail = false): FunctionDefinition<unknown> => ({
    name: 'edit-test',
    configKind: 'EditTest',
    summary: 'edits',
    specSchema: {},
    validateSpec: Object.assign(() => true, { errors: null }),
    run(ctx) {
      for (const o of ctx.resources()) edit(o);
      if (fail) throw new KrmError('failed after editing');
    },
  });
  const withPath = (doc: string): string =>
    doc.replace(/name: (\w+)\n/, 'name: $1\n  annotations:\n    config.kubernetes.io/path: cm/$1.yaml\n');
  const rewrites = (r: { results: { message: string }[] }) => r.results.filter((x) => / written (anew|from its data)/.test(x.message));

  it('an edit patched in place says nothing; one through the yaml Document or from data says which item and why, once', async () => {
    const block = withPath(cm('block', 'data: # kept\n  k: v\n'));
    const flow = cm('flow', 'data: {k: v}\n').replace(
      'metadata:\n  name: flow\n',
      'metadata: {name: flow, annotations: {config.kubernetes.io/path: cm/flow.yaml}}\n',
    );
    const anchored = withPath(cm('anchored', 'data:\n  k: &v v\n  copy: *v\n'));
    const r = await runFunction(
      editing((o) => {
        o.setAnnotation('team', 'metal');
        o.set('data.k', 'w');
        o.setAnnotation('again', 'x'); // a second edit: still one result
      }),
      list(block, flow, anchored),
    );
    expect(r.exitCode).toBe(0);
    expect(rewrites(r)).toEqual([
      {
        message:
          'ConfigMap/flow: written anew by the YAML library (comments kept, layout normalised) to set metadata.annotations.team: metadata is written in flow style (or has an anchor, a tag, a scalar value)',
        severity: 'info',
        resourceRef: { apiVersion: 'v1', kind: 'ConfigMap', name: 'flow' },
        file: { path: 'cm/flow.yaml' },
        tags: { rule: 'input' },
      },
      expect.objectContaining({
        message:
          'ConfigMap/anchored: written anew by the YAML library (comments kept, layout normalised) to set data.k: its old value has an anchor',
        file: { path: 'cm/anchored.yaml' },
      }),
    ]);
    expect(r.output).toContain('  data: # kept\n    k: w\n'); // the block item: patched in place
    // a deletion, a structural edit, a list value: said too
    for (const [edit, why] of [
      [(o: KubeObject) => o.delete('data.k'), 'to delete data.k (a deletion is not made line by line)'],
      [(o: KubeObject) => o.edit((d) => d.setIn(['data', 'n'], 1)), 'for a structural edit'],
      [(o: KubeObject) => o.set('data.list', ['a']), 'to set data.list: its new value is a list'],
    ] as const) {
      const e = await runFunction(editing(edit), list(block));
      expect(rewrites(e).map((x) => x.message)).toEqual([
        `ConfigMap/block: written anew by the YAML library (comments kept, layout normalised) ${why}`,
      ]);
    }
  });

  it('nothing is said of new items, of generated items updated from their data, or of edits a failed run threw away', async () => {
    const generating: FunctionDefinition<unknown> = {
      ...editing(() => undefined),
      run(ctx) {
        ctx.reconcile('gen/x', [
          { data: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'g' }, data: { n: String(ctx.items.length) } } },
        ]);
      },
    };
    const first = await runFunction(generating, list(cm('a')));
    expect(rewrites(first)).toEqual([]);
    const again = await runFunction(generating, first.output); // two items in now: the generated one is updated from its data
    expect(readInput(again.output).items[1]!.get('data.n')).toBe('2');
    expect(rewrites(again)).toEqual([]);
    const failed = await runFunction(
      editing((o) => o.delete('metadata.name'), true),
      list(cm('a')),
    );
    expect(failed.exitCode).toBe(1);
    expect(rewrites(failed)).toEqual([]);
  });
});

describe('a comment after an edited value stays (kpt setters live in them: `image: x # kpt-set: ...`)', () => {
  // values of every one-line form, some holding `#` or quotes; comments after one blank or several
  const VALUES = ['1', 'plain', 'a#b', '"q # not a comment"', '"esc \\" # still not"', "'it''s # no'", "''", '""', '[a, b]', '{x: 1}', ''];
  const GAPS = [' ', '   ', '\t'];

  it('the line-wise edit keeps the comment and its blanks, for every value form; yaml reads the same comment', () => {
    for (const value of VALUES)
      for (const gap of GAPS) {
        const line = `${value === '' ? '' : ' '}${value}${gap}# kpt-set: v`;
        const o = KubeObject.fromDocument(cm('a', `data:\n  k:${line}\n  other: 2\n`));
        const comment = (Y.parseDocument(o.body, PARSE_OPTIONS).getIn(['data', 'k'], true) as { comment?: string } | undefined)?.comment;
        expect(comment, line).toBe(' kpt-set: v');
        o.set('data.k', 'new');
        expect(o.get('data.k')).toBe('new');
        expect((Y.parseDocument(o.body, PARSE_OPTIONS).getIn(['data', 'k'], true) as { comment?: string }).comment, line).toBe(
          ' kpt-set: v',
        );
        // line by line, blanks kept: all but a flow collection followed by a tab (the line reader
        // does not take that value: yaml edits it, with one blank before the comment)
        const flowThenTab = /^[[{]/.test(value) && gap === '\t';
        if (!flowThenTab) expect(o.body, line).toContain(`k: new${value === '' ? ' ' : gap}# kpt-set`);
      }
  });

  it('a key YAML 1.1 reads as a boolean (`on:`, `n:`, `yes:`) is not the string key of the same text', () => {
    for (const key of ['on', 'n', 'yes']) {
      const o = KubeObject.fromDocument(cm('a', `data:\n  ${key}: v # c\n`));
      const before = o.get('data') as Record<string, unknown>;
      o.set(['data', key], 'x');
      expect(o.get(['data', key]), key).toBe('x');
      // the other key is still there, as it was
      const after = Y.parse(o.body, PARSE_OPTIONS) as { data: Record<string, unknown> };
      for (const [k, v] of Object.entries(before)) expect(after.data[k], `${key}: ${k}`).toBe(v);
    }
  });

  it('an edit through yaml keeps it too (a scalar, an alias, or a flow collection replaced by a scalar)', () => {
    for (const rest of ['data:\n  k: [a, "#"] # note\n', 'data: &d\n  k: v # note\ncopy: *d\n', 'data:\n  j: &x v\n  k: *x # note\n']) {
      const o = KubeObject.fromDocument(cm('a', rest));
      o.set('data.k', 'new');
      expect(o.get('data.k')).toBe('new');
      expect(o.body).toContain('k: new # note');
    }
  });
});
