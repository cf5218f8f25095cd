/**
 * Edits of items that share nodes through YAML anchors and aliases, and of items whose parents
 * on an edit's path are not mappings: never an internal error, the edit is what the data shows,
 * the rest of the item means what it meant, and a run that fails leaves its input as it came.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { headerProblems } from './header.js';
import { KrmError, KubeObject } from './kube-object.js';
import { PARSE_OPTIONS, yamlLib } from './lazy.js';
import { type FunctionDefinition, runFunction } from './main.js';
import { readInput } from './resource-list.js';
import { indentItem } from './scan.js';

const Y = yamlLib();
const parse = (text: string): unknown => Y.parse(text, PARSE_OPTIONS);
const item = (body: string): KubeObject => KubeObject.fromListEntry(indentItem(body, 0), 0);
const list = (...docs: string[]): string =>
  'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n' + docs.map((d) => indentItem(d, 0)).join('');
const cm = (meta: string, rest = ''): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n${meta}${rest}`;

type Edit = { op: 'set'; path: string[]; value: string } | { op: 'delete'; path: string[] };

function apply(o: KubeObject, e: Edit): void {
  if (e.op === 'set') o.set(e.path, e.value);
  else o.delete(e.path);
}

/** A function that applies edits to the item named `c` (the others are left alone). */
function editing(edits: Edit[], after?: (o: KubeObject) => void): FunctionDefinition<unknown> {
  const validateSpec = Object.assign(() => true, { errors: null });
  return {
    name: 'edit-test',
    configKind: 'EditTest',
    summary: 'applies edits',
    specSchema: {},
    validateSpec,
    run(ctx) {
      for (const o of ctx.items)
        if (o.name === 'c') {
          for (const e of edits) apply(o, e);
          after?.(o);
        }
    },
  };
}

describe('editing an item with anchors and aliases', () => {
  it('replacing an anchored value resolves its aliases: the item still writes and means the same elsewhere', () => {
    for (const meta of ['  labels: {a: &env lab, tier: *env}\n', '  labels:\n    a: &env lab\n    tier: *env\n']) {
      const o = item(cm(meta));
      o.setLabel('a', 'prod');
      expect(parse(o.body)).toMatchObject({ metadata: { labels: { a: 'prod', tier: 'lab' } } });
      expect(o.body).not.toContain('*env');
    }
  });

  it('an edit inside an anchored mapping leaves what aliases it as it was', () => {
    const o = item(cm('  labels: &l\n    app: x\n', 'spec:\n  selector: *l\n'));
    o.setLabel('tier', 'web');
    expect(parse(o.body)).toMatchObject({ metadata: { labels: { app: 'x', tier: 'web' } }, spec: { selector: { app: 'x' } } });
    expect((parse(o.body) as { spec: { selector: object } }).spec.selector).toEqual({ app: 'x' });
  });

  it('an alias on the path is resolved before the edit descends into it (its other entries kept)', () => {
    const o = item(cm('  annotations: &a {x: yv, z: w}\n  labels: *a\n'));
    o.setLabel('x', 'new');
    expect(parse(o.body)).toMatchObject({ metadata: { annotations: { x: 'yv', z: 'w' }, labels: { x: 'new', z: 'w' } } });
  });

  it('deleting an anchored entry resolves its aliases', () => {
    const o = item(cm('  annotations: {x: &anc yy}\n  labels: {l: *anc}\n'));
    o.deleteAnnotation('x');
    expect(parse(o.body)).toMatchObject({ metadata: { annotations: {}, labels: { l: 'yy' } } });
  });

  it('edit(fn) that removes an anchor still writes: its aliases become copies', () => {
    const o = item(cm('  annotations:\n    x: &anc\n      deep: yy\n  labels: {l: *anc}\n'));
    o.edit((doc) => doc.setIn(['metadata', 'annotations', 'x'], 'z'));
    expect(parse(o.body)).toMatchObject({ metadata: { annotations: { x: 'z' }, labels: { l: { deep: 'yy' } } } });
  });

  it('a parent that is not a mapping is an input error naming the item, the field and the fix', () => {
    const cases: [string, string][] = [
      ['  labels: [oops]\n', 'metadata.labels is a sequence, a mapping is needed'],
      ['  labels:\n  - oops\n', 'metadata.labels is a sequence, a mapping is needed'],
      ['  labels: text\n', 'metadata.labels is a string, a mapping is needed'],
      ['  labels: 3\n', 'metadata.labels is a number, a mapping is needed'],
    ];
    for (const [meta, said] of cases) {
      const o = item(cm(meta));
      let caught: unknown;
      try {
        o.setLabel('a', 'b');
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(KrmError);
      expect((caught as Error).message).toContain(`ConfigMap/c: ${said} to set metadata.labels.a: write metadata.labels as`);
      expect(o.changed).toBe(false);
    }
  });

  it('a run that fails after editing an item writes its input as it came (nothing half-written)', async () => {
    const input = list(cm('', 'data: {k: v}\n').replace('name: c', 'name: c'), cm('  labels: [bad]\n').replace('name: c', 'name: c'));
    const r = await runFunction(editing([{ op: 'set', path: ['metadata', 'labels', 'a'], value: 'b' }]), input);
    expect(r.exitCode).toBe(1);
    expect(r.output.startsWith(input.slice(0, input.indexOf('functionConfig')))).toBe(true);
    // the wrong labels are said when the input is read (header.ts), and again by the edit that cannot go through them
    expect(r.results.map((x) => `${x.tags?.rule} ${x.field?.path}`)).toEqual(['input metadata.labels', 'input undefined']);
    expect(r.results[1]!.message).toContain('metadata.labels is a sequence, a mapping is needed');
  });

  it('an alias inside the value its own anchor names is an input error at its line, as go-yaml says; never a stack overflow', async () => {
    // YAML: `&p` comes before the value it names, so `*p` inside is that value (which would contain itself), not an earlier `&p`
    for (const meta of ['  annotations: &p\n    x: y\n    self: *p\n', '  labels: &p a\n  annotations: &p\n    *p : v\n  other: *p\n']) {
      const r = await runFunction(editing([{ op: 'set', path: ['metadata', 'annotations', 'z'], value: 'v' }]), list(cm(meta)));
      expect(r.exitCode).toBe(1);
      expect(r.results.map((x) => x.message)).toEqual([
        expect.stringMatching(
          /^items\[0\] is not valid YAML at line \d+, column \d+ of the item: an alias stands inside the value its anchor names \(a value that contains itself\)/,
        ),
      ]);
    }
  });

  it('an exception while writing the output leaves the input items as they came, with an internal error', async () => {
    const input = list(cm('', 'data: {k: v}\n'));
    // an alias to an anchor that does not exist: the item cannot be written
    const broken = (o: KubeObject): void => o.edit((doc) => doc.setIn(['data', 'k'], new Y.Alias('nowhere')));
    const r = await runFunction(editing([], broken), input);
    expect(r.exitCode).toBe(1);
    expect(r.output.startsWith(input)).toBe(true);
    expect(r.results.map((x) => x.tags?.rule)).toEqual(['internal']);
  });
});

/** Generated items: labels, annotations and spec in block or flow style, values anchored and aliased, parents of every kind. */
interface Entry {
  key: string;
  value: 'plain' | 'anchor' | 'alias' | 'anchoredMap' | 'aliasMap';
}
interface Section {
  kind: 'map' | 'flow' | 'seq' | 'scalar' | 'null' | 'absent' | 'alias' | 'anchoredMap';
  entries: Entry[];
}
const KEYS = ['a', 'b', 'tier'];
const entryArb = fc.record({
  key: fc.constantFrom(...KEYS),
  value: fc.constantFrom<Entry['value']>('plain', 'anchor', 'alias', 'anchoredMap', 'aliasMap'),
});
const sectionArb = fc.record({
  kind: fc.constantFrom<Section['kind']>('map', 'map', 'flow', 'flow', 'anchoredMap', 'seq', 'scalar', 'null', 'absent', 'alias'),
  entries: fc.uniqueArray(entryArb, { selector: (e) => e.key, maxLength: 3 }),
});

/** The text of one item, anchors always before their aliases. */
function itemText(sections: Section[]): string {
  const scalars: string[] = [];
  const maps: string[] = [];
  let n = 0;
  const value = (e: Entry, flow: boolean): string => {
    const name = `x${n++}`;
    switch (e.value) {
      case 'anchor':
        scalars.push(name);
        return `&${name} v${n}`;
      case 'alias':
        return scalars.length ? `*${scalars[n % scalars.length]}` : `v${n}`;
      case 'anchoredMap':
        maps.push(name);
        return flow ? `&${name} {inner: w${n}}` : `&${name} {inner: w${n}, more: m}`;
      case 'aliasMap':
        return maps.length ? `*${maps[n % maps.length]}` : `{inner: u${n}}`;
      default:
        return `v${n}`;
    }
  };
  const section = (name: string, s: Section, indent: string): string => {
    const head = `${indent}${name}:`;
    switch (s.kind) {
      case 'absent':
        return '';
      case 'null':
        return `${head}\n`;
      case 'scalar':
        return `${head} text\n`;
      case 'seq':
        return `${head}\n${indent}- oops\n`;
      case 'alias':
        return maps.length ? `${head} *${maps[0]}\n` : `${head} {}\n`;
      case 'flow':
        return `${head} {${s.entries.map((e) => `${e.key}: ${value(e, true)}`).join(', ')}}\n`;
      default: {
        if (s.entries.length === 0) return `${head} {}\n`;
        const anchor = s.kind === 'anchoredMap' ? `s${n++}` : '';
        const body = s.entries.map((e) => `${indent}  ${e.key}: ${value(e, false)}\n`).join('');
        if (anchor) maps.push(anchor); // after its entries: an alias inside its own anchor is recursive
        return `${head}${anchor ? ` &${anchor}` : ''}\n${body}`;
      }
    }
  };
  const [labels, annotations, spec] = sections as [Section, Section, Section];
  return cm(section('annotations', annotations, '  ') + section('labels', labels, '  '), section('spec', spec, ''));
}

const editArb: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({
    op: fc.constant('set' as const),
    path: fc.oneof(
      fc.constantFrom(...KEYS).map((k) => ['metadata', 'labels', k]),
      fc.constantFrom(...KEYS).map((k) => ['metadata', 'annotations', k]),
      fc.constantFrom(...KEYS).map((k) => ['spec', k]),
      fc.constantFrom(...KEYS).map((k) => ['spec', k, 'inner']),
    ),
    value: fc.constantFrom('z', 'yes', '0644', 'a b', '', 'v1'),
  }),
  fc.record({
    op: fc.constant('delete' as const),
    path: fc.oneof(
      fc.constantFrom(...KEYS).map((k) => ['metadata', 'labels', k]),
      fc.constantFrom(...KEYS).map((k) => ['spec', k]),
      fc.constant<string[]>(['spec']),
    ),
  }),
);

/** The data an edit means (undefined: an input error is expected, a parent is not a mapping). */
function expected(data: unknown, e: Edit): unknown {
  const copy = JSON.parse(JSON.stringify(data)) as Record<string, unknown>; // aliases read as shared objects: unshared
  let v: Record<string, unknown> = copy;
  for (const seg of e.path.slice(0, -1)) {
    const next = v[seg];
    if (next === undefined || next === null) {
      if (e.op === 'delete') return copy;
      v[seg] = {};
    } else if (typeof next !== 'object' || Array.isArray(next)) return e.op === 'delete' ? copy : undefined;
    v = v[seg] as Record<string, unknown>;
  }
  const last = e.path[e.path.length - 1]!;
  if (e.op === 'set') v[last] = e.value;
  else delete v[last];
  return copy;
}

/** Whether every line of `before` but those holding an edited key (`key:` at its start) is in `after`, in order. */
function keptLines(before: string, after: string, edits: Edit[]): boolean {
  const keys = edits.map((e) => `${e.path[e.path.length - 1]}:`);
  const now = after.split('\n');
  let at = 0;
  for (const line of before.split('\n')) {
    if (keys.some((k) => line.trimStart().replace(/^- /, '').startsWith(k))) continue;
    while (at < now.length && now[at] !== line) at++;
    if (at === now.length) return false;
    at++;
  }
  return true;
}

describe('edits on generated items with anchors, aliases, flow style and parents of every kind (property)', () => {
  it('never fail but with an input error; the output parses, shows the edits, untouched items keep their bytes, an item written anew is named', async () => {
    const other = cm('').replace('name: c', 'name: other # keep\n  labels: {a: &k b, c: *k}');
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(sectionArb, sectionArb, sectionArb),
        fc.array(editArb, { minLength: 1, maxLength: 3 }),
        async (sections, edits) => {
          const text = itemText(sections);
          const input = list(other, text, other);
          let want: unknown = (parse(input) as { items: unknown[] }).items[1];
          for (const e of edits) want = want === undefined ? undefined : expected(want, e);
          const r = await runFunction(editing(edits), input);
          expect(r.results.filter((x) => x.tags?.rule === 'internal')).toEqual([]);
          // labels or annotations that are not mappings are said when the input is read (header.ts), once each
          const header = headerProblems(readInput(input).items[1]!.data);
          const said = r.results.filter((x) => header.some((p) => x.field?.path === p.field && x.message.endsWith(p.message)));
          expect(said.length).toBe(header.length);
          // an item written anew is named once (below)
          const rewritten = r.results.filter((x) => / written (anew|from its data)/.test(x.message));
          const results = r.results.filter((x) => !said.includes(x) && !rewritten.includes(x));
          const out = readInput(r.output);
          const before = readInput(input);
          expect(out.items[0]!.original).toBe(before.items[0]!.original);
          expect(out.items[2]!.original).toBe(before.items[2]!.original);
          const items = (parse(r.output) as { items: unknown[] }).items;
          if (want === undefined) {
            // a parent that is not a mapping: an input error, and the item as it came
            expect(r.exitCode).toBe(1);
            expect(results.map((x) => x.tags?.rule)).toEqual(['input']);
            expect(results[0]!.message).toMatch(/is a (sequence|string), a mapping is needed/);
            expect(out.items[1]!.original).toBe(before.items[1]!.original);
          } else {
            expect(r.exitCode).toBe(header.length > 0 ? 1 : 0);
            expect(results).toEqual([]);
            expect(items[1]).toEqual(want);
            // written anew: one info result names the item and why; else its other lines are kept, in order
            expect(rewritten.length).toBeLessThanOrEqual(1);
            if (rewritten.length) expect([rewritten[0]!.severity, rewritten[0]!.resourceRef?.name]).toEqual(['info', 'c']);
            else expect(keptLines(before.items[1]!.original!, out.items[1]!.original!, edits)).toBe(true);
          }
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300), seed: Number(process.env.FUZZ_SEED ?? 7), endOnFailure: true },
    );
  }, 120_000);
});
