import fc from 'fast-check';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { PARSE_OPTIONS } from './lazy.js';
import { describe, expect, it } from 'vitest';
import { identity } from '../../test/identity/function.js';
import { repoRoot, resourceList } from '../../test/golden.js';
import { runFunction } from './main.js';
import { KubeObject } from './kube-object.js';
import { readInput, writeOutput } from './resource-list.js';
import { indentItem, scanList, splitStream } from './scan.js';

const annotateConfig = (k: string, v: string): string =>
  `apiVersion: baremetal-krm.dev/v1alpha1\nkind: Identity\nspec:\n  annotate:\n    ${k}: '${v}'\n`;

function walk(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (/\.ya?ml$/.test(e)) out.push(p);
  }
  return out;
}

/** YAML documents of every shape: comments, anchors, flow, block scalars, odd scalars. */
const docText = fc
  .record({
    name: fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/),
    data: fc.dictionary(
      fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_.-]{0,8}$/),
      fc.oneof(
        fc.string(),
        fc.constantFrom('yes', '0644', '1_000', '2001-12-14', 'multi\nline\n', "it's", '#', 'a: b', '', '~', '12345678901234567890'),
        fc.integer(),
        fc.boolean(),
        fc.array(fc.oneof(fc.string({ maxLength: 5 }), fc.integer()), { maxLength: 3 }),
      ),
      { maxKeys: 6 },
    ),
    style: fc.constantFrom('compact', 'indented', 'flow-data', 'js-yaml', 'literal', 'anchors', 'comments'),
  })
  .map(({ name, data, style }) => {
    const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data };
    switch (style) {
      case 'indented':
        return stringify(obj, { version: '1.1', indentSeq: true });
      case 'flow-data':
        return stringify({ ...obj, data: {} }, PARSE_OPTIONS).replace('data: {}', 'data: ' + JSON.stringify(data));
      case 'js-yaml':
        return dump(obj, { lineWidth: -1 });
      case 'literal':
        return stringify(obj, { version: '1.1', blockQuote: 'literal' });
      case 'anchors':
        return stringify(obj, PARSE_OPTIONS).replace(/^metadata:\n {2}name: (.*)$/m, 'metadata:\n  name: &n $1\n  labels:\n    copy: *n');
      case 'comments':
        return '# head\n' + stringify(obj, { version: '1.1', indentSeq: false }).replace(/\n(\S)/g, '\n# between\n$1') + '# tail\n';
      default:
        return stringify(obj, { version: '1.1', indentSeq: false });
    }
  })
  // a document that only stands at column 0 (a quoted scalar continued there) is no list entry
  .filter((d) => parseAllDocuments(indentItem(d, 2)).every((x) => x.errors.length === 0));

describe('ResourceList pass-through', () => {
  it('writes back what kpt fn render sends, byte for byte (but the functionConfig, which is not echoed)', async () => {
    const input = readFileSync(join(import.meta.dirname, 'testdata/kpt-render-input.yaml'), 'utf8');
    const r = await runFunction(identity, input);
    expect(r.exitCode).toBe(0);
    expect(input).toContain('\nfunctionConfig:\n');
    expect(r.output).toBe(input.slice(0, input.indexOf('functionConfig:\n')));
    expect(scanList(input)).toBeDefined(); // the fast path, not the fallback
  });

  it('is byte-identical for any items when nothing changes (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(docText, { maxLength: 6 }), fc.constantFrom(0, 2), async (docs, seqIndent) => {
        let input = 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n';
        input += docs.length ? 'items:\n' + docs.map((d) => indentItem(d, seqIndent)).join('') : 'items: []\n';
        const r = await runFunction(identity, input + 'functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\n');
        expect(r.output).toBe(input);
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 300) },
    );
  });

  it('edits one annotation and keeps the rest of every item (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(docText, { minLength: 1, maxLength: 5 }), async (docs) => {
        const input = resourceList(docs, annotateConfig('example.com/owner', 'team a'));
        const r = await runFunction(identity, input);
        expect(r.exitCode).toBe(0);
        const out = parse(r.output, PARSE_OPTIONS) as { items: Record<string, any>[] };
        const before = docs.map((d) => parse(d, PARSE_OPTIONS) as Record<string, any>);
        expect(out.items.length).toBe(before.length);
        out.items.forEach((item, i) => {
          const want = structuredClone(before[i]!);
          want.metadata.annotations = { ...(want.metadata.annotations ?? {}), 'example.com/owner': 'team a' };
          expect(item).toEqual(want);
        });
        // comments survive the edit
        for (const d of docs) for (const c of d.match(/# \w+/g) ?? []) expect(r.output).toContain(c);
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 200) },
    );
  });

  it('keeps aliases that cross items working, byte for byte while nothing before them changes', async () => {
    const input =
      'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: &n a\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: *n\n';
    expect(scanList(input)).toBeDefined(); // split by lines: the alias is resolved within the list when read
    const r = await runFunction(identity, input);
    expect(r.exitCode).toBe(0);
    expect(r.output).toBe(input);
    expect(readInput(input).items.map((i) => i.name)).toEqual(['a', 'a']);
  });

  it('accepts a plain YAML stream and JSON', async () => {
    const stream = 'apiVersion: v1\nkind: A\nmetadata:\n  name: x # keep\n---\napiVersion: v1\nkind: B\nmetadata:\n  name: y\n';
    expect((await runFunction(identity, stream)).output).toBe(stream);
    const json = JSON.stringify({
      apiVersion: 'config.kubernetes.io/v1',
      kind: 'ResourceList',
      items: [{ apiVersion: 'v1', kind: 'A', metadata: { name: 'x' } }],
    });
    const out = JSON.parse((await runFunction(identity, json)).output);
    expect(out.items).toEqual([{ apiVersion: 'v1', kind: 'A', metadata: { name: 'x' } }]);
  });

  it('a JSON ResourceList whose items change keeps its envelope byte for byte: members, spacing, order, the array around the items', async () => {
    const local =
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","annotations":{"config.kubernetes.io/local-config":"true"}}}';
    const changed = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"}}';
    const head = '{\n    "apiVersion" : "config.kubernetes.io/v1",   "kind": "ResourceList",\n    "items": [ ';
    const tail = ' ],\n    "x-extra": {"keep":   [1,  2.50], "n": 12345678901234567890123}\n}\n';
    const config = ',\n    "functionConfig": {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"f"},"data":{"k":"v"}}';
    const input = head + local + ',\n               ' + changed + tail.replace(' ],', ` ]${config},`);
    const r = await runFunction(identity, input);
    expect(r.exitCode).toBe(0);
    // the local-config item, its separator, the array's brackets and every other member as they came; the edited item at its column
    const edited = [
      '{',
      '"apiVersion": "v1",',
      '"kind": "ConfigMap",',
      '"metadata": {',
      '  "name": "b",',
      '  "annotations": {',
      '    "k": "v"',
      '  }',
      '}',
      '}',
    ];
    const itemLines = edited.slice(1, -1).map((l) => `                 ${l}`);
    const results = r.output.slice(r.output.indexOf(',\n  "results"'), r.output.lastIndexOf('\n}'));
    expect(r.output.replace(results, '')).toBe(
      `${head}${local},\n               ${edited[0]}\n${itemLines.join('\n')}\n               }${tail}`,
    );
    // the edited item is written anew (JSON is not patched line by line): an info result says so
    expect(r.results.map((x) => x.message)).toEqual([
      'ConfigMap/b: written anew as JSON from its data (its layout is not kept) to set metadata.annotations.k: JSON items are not patched line by line',
    ]);
    // items added to a list that had none, and results: inserted, nothing else moved
    const empty = '{"kind": "ResourceList", "apiVersion": "config.kubernetes.io/v1", "items": [], "x": 1}';
    const p = readInput(empty);
    const added = KubeObject.fromData({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' } });
    expect(writeOutput(p, [added], [{ message: 'm', severity: 'info' }])).toBe(
      `{"kind": "ResourceList", "apiVersion": "config.kubernetes.io/v1", "items": [${added.jsonText('')}], "x": 1,\n  "results": [\n    {\n      "message": "m",\n      "severity": "info"\n    }\n  ]\n}`,
    );
  });

  it('passes every airshipctl fixture through unchanged, and edits it losslessly', async () => {
    const files = walk(join(repoRoot, '../shared/fixtures/airship'));
    expect(files.length).toBeGreaterThan(100);
    const docs: string[] = [];
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      if (parseAllDocuments(text).some((d) => d.errors.length > 0)) continue;
      for (const d of splitStream(text)) {
        const v = parse(d, PARSE_OPTIONS);
        if (v && typeof v === 'object' && !Array.isArray(v) && 'kind' in v) docs.push(d);
      }
    }
    expect(docs.length).toBeGreaterThan(300);
    const input = resourceList(docs);
    expect(scanList(input)).toBeDefined();
    const same = await runFunction(identity, input);
    expect(same.output).toBe(input);
    const edited = await runFunction(identity, resourceList(docs, annotateConfig('a.b/c', 'd')));
    const items = readInput(edited.output).items;
    expect(items.length).toBe(docs.length);
    items.forEach((o, i) => {
      const want = parse(docs[i]!, PARSE_OPTIONS) as Record<string, any>;
      want.metadata = { ...(want.metadata ?? {}), annotations: { ...(want.metadata?.annotations ?? {}), 'a.b/c': 'd' } };
      expect(o.data).toEqual(want);
    });
  });
});

describe('bad input', () => {
  it('malformed YAML: one error naming the line, exit 1', async () => {
    const r = await runFunction(identity, 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- a: [1, 2\n  b: 3\n');
    expect(r.exitCode).toBe(1);
    expect(r.results).toHaveLength(1);
    expect(r.results[0]!.message).toMatch(/items\[0\] is not valid YAML at line \d+, column \d+/);
    expect(r.stderr).toContain('error:');
  });

  it('a ResourceList without items', async () => {
    const r = await runFunction(identity, 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n');
    expect(r.exitCode).toBe(1);
    expect(r.results[0]!.message).toContain('no `items`');
  });

  it('an unknown functionConfig kind or a wrong field type: error naming it, items unchanged', async () => {
    const items = ['apiVersion: v1\nkind: A\nmetadata:\n  name: x\n'];
    const wrongKind = await runFunction(identity, resourceList(items, 'apiVersion: baremetal-krm.dev/v1alpha1\nkind: Nope\n'));
    expect(wrongKind.exitCode).toBe(1);
    expect(wrongKind.results[0]!.message).toContain('expected apiVersion baremetal-krm.dev/v1alpha1, kind Identity');
    expect(wrongKind.output).toContain(indentItem(items[0]!, 0));
    const wrongType = await runFunction(
      identity,
      resourceList(items, 'apiVersion: baremetal-krm.dev/v1alpha1\nkind: Identity\nspec:\n  readAll: 3\n'),
    );
    expect(wrongType.exitCode).toBe(1);
    expect(wrongType.results[0]).toMatchObject({ severity: 'error', field: { path: 'spec.readAll' } });
    expect(wrongType.results[0]!.message).toContain('spec.readAll: must be boolean');
    const unknownField = await runFunction(
      identity,
      resourceList(items, 'apiVersion: baremetal-krm.dev/v1alpha1\nkind: Identity\nspec:\n  readal: true\n'),
    );
    expect(unknownField.results[0]!.message).toContain('unknown field "readal"');
  });
});

describe('report-only', () => {
  it('turns error results into warnings and exits 0', async () => {
    const cfg =
      'apiVersion: baremetal-krm.dev/v1alpha1\nkind: Identity\nmetadata:\n  annotations:\n    baremetal-krm.dev/report-only: "true"\nspec:\n  readAll: true\n';
    const r = await runFunction(identity, resourceList(['apiVersion: v1\nkind: A\nmetadata:\n  name: x\nbad: [1, 2]]\n'], cfg));
    expect(r.results.map((x) => x.severity)).toEqual(['warning']);
    expect(r.exitCode).toBe(0);
    // the exit code says nothing, so stderr says that nothing was written
    expect(r.stderr).toContain(
      'report-only: 1 error(s) reported as warnings; wrote nothing: the output items are the input items, unchanged',
    );
  });

  it('says what it wrote when the run succeeds', async () => {
    const cfg =
      'apiVersion: baremetal-krm.dev/v1alpha1\nkind: Identity\nmetadata:\n  annotations:\n    baremetal-krm.dev/report-only: "true"\n';
    const r = await runFunction(identity, resourceList(['apiVersion: v1\nkind: A\nmetadata:\n  name: x\n'], cfg));
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('report-only: 0 error(s) reported as warnings; wrote nothing: the output items are the input items, unchanged\n');
  });
});
