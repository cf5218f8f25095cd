/** Object identity: one group, kind, namespace and name per scope; patches are not objects. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { itemsOf, ruleFindings } from '../../../test/analyse-yaml.js';

const cm = (name: string, ns?: string, apiVersion = 'v1') =>
  `apiVersion: ${apiVersion}\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${ns ? `  namespace: ${ns}\n` : ''}data:\n  a: b\n`;

describe('duplicate object identity', () => {
  it('names the second of two items with one identity; namespace and API group tell items apart', async () => {
    const yaml = [cm('a'), cm('a', 'x'), cm('a'), cm('a', undefined, 'example.com/v1')].join('---\n');
    const f = await ruleFindings('duplicate', yaml);
    expect(f.map((x) => x.message.split(';')[0])).toEqual(['ConfigMap/a is defined twice (first)']);
  });

  it('counts within one scope only (the CLI: one folder), and not for patches', async () => {
    const items = itemsOf([cm('a'), cm('a'), cm('b'), cm('b')].join('---\n'));
    const scopeOf = (o: (typeof items)[number]): string => (items.indexOf(o) < 2 ? 'one' : items.indexOf(o) === 2 ? 'two' : 'three');
    expect(await ruleFindings('duplicate', items, {}, { scopeOf })).toHaveLength(1);
    expect(await ruleFindings('duplicate', items, {}, { partial: new Set([items[1]!]) })).toHaveLength(1);
  });

  it('finds what keying every item by scope, group, kind, namespace and name finds (property)', async () => {
    // few names, namespaces, groups and scopes: identities collide often, in every way
    const item = fc.record({
      name: fc.constantFrom('a', 'b'),
      ns: fc.constantFrom(undefined, 'x'),
      apiVersion: fc.constantFrom('v1', 'example.com/v1'),
      scope: fc.constantFrom('one', 'two'),
      partial: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(item, { maxLength: 8 }), async (list) => {
        const items = itemsOf(list.map((i) => cm(i.name, i.ns, i.apiVersion)).join('---\n'));
        const scopeOf = (o: (typeof items)[number]): string => list[items.indexOf(o)]!.scope;
        const partial = new Set(items.filter((_, i) => list[i]!.partial));
        const expected: string[] = [];
        const first = new Map<string, number>();
        list.forEach((i, n) => {
          if (i.partial) return;
          const id = [i.scope, i.apiVersion, i.ns ?? '', i.name].join('|');
          if (first.has(id)) expected.push(`ConfigMap/${i.ns ? i.ns + '/' : ''}${i.name}`);
          else first.set(id, n);
        });
        const found = await ruleFindings('duplicate', items, {}, { scopeOf, partial });
        expect(found.map((f) => f.message.split(' is defined twice')[0])).toEqual(expected);
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 200) },
    );
  });
});
