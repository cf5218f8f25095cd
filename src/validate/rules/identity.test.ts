/** Object identity: one group, kind, namespace and name per scope; patches are not objects. */
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
});
