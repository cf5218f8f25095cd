import { PARSE_OPTIONS } from './lazy.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { Context, GENERATED_BY } from './context.js';
import { KubeObject } from './kube-object.js';
import { needsEscapes } from './printable.js';
import { indentItem } from './scan.js';

const bmh = `# the first host
apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: node01 # keep me
  labels:
    role: worker
spec:
  online: false
  bmc:
    address: redfish://10.0.0.1/redfish/v1/Systems/1
  list:
  - a
`;
const item = (body: string): KubeObject => KubeObject.fromListEntry(indentItem(body, 0), 0);

describe('KubeObject', () => {
  it('reads the header without parsing the body', () => {
    const o = item(bmh);
    expect([o.apiVersion, o.kind, o.name, o.namespace, o.group]).toEqual([
      'metal3.io/v1alpha1',
      'BareMetalHost',
      'node01',
      undefined,
      'metal3.io',
    ]);
    expect(o.labels).toEqual({ role: 'worker' });
    expect(o.changed).toBe(false);
  });

  it('sets scalars line-wise, keeping comments and every other line', () => {
    const o = item(bmh);
    o.set('spec.online', true);
    o.setAnnotation('example.com/a', 'b c');
    o.setLabel('rack', 'r1');
    o.set(['spec', 'bmc', 'credentialsName'], 'node01-bmc-secret');
    expect(o.changed).toBe(true);
    expect(o.body).toBe(`# the first host
apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: node01 # keep me
  labels:
    role: worker
    rack: r1
  annotations:
    example.com/a: 'b c'
spec:
  online: true
  bmc:
    address: redfish://10.0.0.1/redfish/v1/Systems/1
    credentialsName: node01-bmc-secret
  list:
  - a
`);
    expect(o.get('spec.bmc.credentialsName')).toBe('node01-bmc-secret');
  });

  it('quotes values YAML 1.1 would read as something else', () => {
    const o = item(bmh);
    for (const v of ['yes', '0644', 'on', '1:20', "it's", '', 'null']) {
      o.setAnnotation('x', v);
      expect(o.annotations.x).toBe(v);
      expect((parse(o.body, PARSE_OPTIONS) as any).metadata.annotations.x).toBe(v);
    }
  });

  it('writes characters YAML does not allow, and those go-yaml reads as line breaks, as escapes, in every way an item is written', () => {
    const odd = ['nul\u0000', 'bell\u0007', 'del\u007f', 'c1\u0080\u009f', 'non\ufffe\uffff', 'nel\u0085', 'ls\u2028 x', 'ps\u2029'];
    const escaped = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n  k: "del\\x7F"\n';
    const edited = item(escaped); // edited through the yaml Document (flow metadata)
    const fresh = KubeObject.fromData({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'y' }, data: {} });
    for (const o of [edited, fresh])
      odd.forEach((v, i) => {
        o.setAnnotation(`a${i}`, v);
        o.set(['data', v], v);
      });
    const replaced = KubeObject.fromData({});
    replaced.replace(fresh.data);
    for (const o of [edited, fresh, replaced]) {
      expect(needsEscapes(o.body), o.body).toBe(false);
      const back = KubeObject.fromDocument(o.body);
      expect(odd.map((_, i) => back.annotations[`a${i}`])).toEqual(odd);
      expect(odd.map((v) => (back.data.data as Record<string, string>)[v])).toEqual(odd);
    }
    expect(KubeObject.fromDocument(edited.body).get('data.k')).toBe('del\u007f');
    const json = KubeObject.fromNode('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"j"}}', 'json');
    json.setAnnotation('a', 'del\u007f');
    json.setAnnotation('b', 'ls\u2028');
    expect(json.jsonText('')).toContain('"a": "del\\u007F"');
    expect(json.jsonText('')).toContain('"b": "ls\\u2028"');
  });

  it('falls back to the yaml Document for structure and flow style, keeping comments', () => {
    const o = item('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x} # flow\ndata:\n  a: "1"\n');
    o.setAnnotation('k', 'v');
    o.set('data.list', ['a', 'b']);
    expect(o.data).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x', annotations: { k: 'v' } },
      data: { a: '1', list: ['a', 'b'] },
    });
    expect(o.body).toContain('# flow');
    o.delete('data.a');
    expect(o.get('data.a')).toBeUndefined();
  });

  it('tells the line of a field', () => {
    const o = item(bmh);
    expect(o.lineOf('spec.bmc.address')).toBe(11);
    o.sourceLine = 20;
    expect(o.lineOf('metadata.name')).toBe(24);
  });
});

describe('Context.reconcile', () => {
  const desired = (online: boolean): { data: Record<string, unknown>; path: string }[] => [
    { data: { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'a' }, spec: { online } }, path: 'hosts/a.yaml' },
    { data: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'a-bmc' }, type: 'Opaque' }, path: 'hosts/a.yaml' },
  ];

  it('adds new items with path annotations, then leaves them byte-identical when unchanged', () => {
    const ctx = new Context([item(bmh)], {}, undefined);
    ctx.reconcile('gen/x', desired(false));
    expect(ctx.items.map((i) => i.name)).toEqual(['node01', 'a', 'a-bmc']);
    const a = ctx.items[1]!;
    expect(a.annotations).toMatchObject({
      'config.kubernetes.io/path': 'hosts/a.yaml',
      'config.kubernetes.io/index': '0',
      [GENERATED_BY]: 'gen/x',
    });
    expect(ctx.items[2]!.annotations['config.kubernetes.io/index']).toBe('1');

    // a second run on the output: nothing changes, not a byte
    const again = new Context(
      ctx.items.map((o) => item(o.body)),
      {},
      undefined,
    );
    const before = again.items.map((o) => o.original);
    again.reconcile('gen/x', desired(false));
    expect(again.items.map((o) => o.changed)).toEqual([false, false, false]);
    expect(again.items.map((o) => o.original)).toEqual(before);
  });

  it('updates in place, keeps the location, and removes what is no longer desired', () => {
    const ctx = new Context([item(bmh)], {}, undefined);
    ctx.reconcile('gen/x', desired(false));
    const next = new Context(
      ctx.items.map((o) => item(o.body)),
      {},
      undefined,
    );
    next.reconcile('gen/x', desired(true).slice(0, 1));
    expect(next.items.map((i) => i.name)).toEqual(['node01', 'a']);
    expect(next.items[1]!.get('spec.online')).toBe(true);
    expect(next.items[1]!.annotations['config.kubernetes.io/path']).toBe('hosts/a.yaml');
  });

  it('adopts an existing hand-written item with the same identity, with an info result', () => {
    const ctx = new Context([item(bmh)], {}, undefined);
    ctx.reconcile('gen/x', [
      { data: { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'node01' }, spec: { online: true } } },
    ]);
    expect(ctx.items).toHaveLength(1);
    expect(ctx.results.list[0]).toMatchObject({ severity: 'info' });
  });
});

describe('KubeObject.set (property)', () => {
  it('gives exactly the data a structural set would, whatever the layout', async () => {
    const fc = (await import('fast-check')).default;
    const { stringify } = await import('yaml');
    const keyArb = fc.constantFrom('a', 'b', 'spec', 'metadata', 'x.y/z', 'list', 'yes');
    const leaf = fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.boolean(), fc.constantFrom('0644', 'on', "it's", 'a: b', '#x'));
    const tree = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, leaf, tie('map'), fc.array(leaf, { maxLength: 3 })),
      map: fc.dictionary(keyArb, tie('node'), { maxKeys: 4 }),
    })).map;
    fc.assert(
      fc.property(
        tree,
        fc.array(keyArb, { minLength: 1, maxLength: 3 }),
        fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean()),
        fc.constantFrom(false, true),
        (data, path, value, indentSeq) => {
          const body = stringify({ apiVersion: 'v1', kind: 'X', ...data }, { version: '1.1', indentSeq });
          const o = item(body);
          const want = parse(body, PARSE_OPTIONS) as Record<string, any>;
          // what a structural set does: only along mappings
          let cur: any = want;
          for (const seg of path.slice(0, -1)) {
            if (cur[seg] === undefined || cur[seg] === null) cur[seg] = {};
            if (typeof cur[seg] !== 'object' || Array.isArray(cur[seg])) return; // not settable: skip
            cur = cur[seg];
          }
          cur[path[path.length - 1]!] = value;
          o.set(path, value);
          expect(parse(o.body, PARSE_OPTIONS)).toEqual(want);
          expect(o.get(path)).toEqual(value);
        },
      ),
      { numRuns: Number(process.env.FC_RUNS ?? 500) },
    );
  });
});

describe('Context.reconcile byPath', () => {
  it('keeps one copy per file when the same object is wanted in two files', () => {
    const host = { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'n1' }, spec: { online: false } };
    const want = (): { data: Record<string, unknown>; path: string }[] => [
      { data: structuredClone(host), path: 'ephemeral/hosts.yaml' },
      { data: structuredClone(host), path: 'target/hosts.yaml' },
    ];
    const ctx = new Context<unknown>([], {}, undefined);
    ctx.reconcile('gen/x', want(), { byPath: true });
    expect(ctx.items.map((o) => o.file()?.path)).toEqual(['ephemeral/hosts.yaml', 'target/hosts.yaml']);
    const again = new Context<unknown>(
      ctx.items.map((o) => item(o.body)),
      {},
      undefined,
    );
    again.reconcile('gen/x', want(), { byPath: true });
    expect(again.items.map((o) => o.changed)).toEqual([false, false]);
  });
});
