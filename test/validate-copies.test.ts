/**
 * What the analysis copies per item, counted (never timed or measured in bytes): an item's text
 * as a document (KubeObject.body: for a ResourceList entry a dedented copy of its bytes) is made
 * at most once per item for every rule, only for the few items a rule needs it for, and not kept
 * by the object; a label or annotation map whose values are all strings is the item's own.
 */
import { describe, expect, it } from 'vitest';
import { type KubeObject, readInput } from '../src/krm/index.js';
import { analyse } from '../src/validate/analyse.js';
import { fleetMix, fleetMixStream } from './fleet-mix.js';
import { resourceList } from './golden.js';

/** Counts the calls of each item's `body` getter. */
function countBodies(items: readonly KubeObject[]): Map<KubeObject, number> {
  const calls = new Map<KubeObject, number>();
  const getter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(items[0]), 'body')!.get!;
  for (const o of items)
    Object.defineProperty(o, 'body', {
      get() {
        calls.set(o, (calls.get(o) ?? 0) + 1);
        return getter.call(o);
      },
    });
  return calls;
}

const AMBIGUOUS_HOST = `apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: odd
  namespace: site
spec:
  online: yes
  bmc:
    address: redfish+https://10.9.9.9/redfish/v1/Systems/1
    credentialsName: odd-bmc
`;

describe('text copies made by the analysis', () => {
  it('a ResourceList of the fleet mix: no entry is made into a document when no rule needs it', async () => {
    const items = readInput(resourceList(fleetMix(400))).items;
    const calls = countBodies(items);
    const a = await analyse(items);
    expect(a.facts.hosts).toHaveLength(120); // the rules ran: every BareMetalHost of the mix is a host fact
    expect([...calls.values()].reduce((x, y) => x + y, 0)).toBe(0);
  });

  it('an entry that may hold an ambiguous scalar is made into a document once, for every rule that reads it', async () => {
    const items = readInput(resourceList([...fleetMix(50), AMBIGUOUS_HOST])).items;
    const calls = countBodies(items);
    const a = await analyse(items);
    expect(a.findings.some((f) => f.rule === 'yaml-ambiguous' && f.field === 'spec.online')).toBe(true);
    expect([...calls.entries()].map(([o, n]) => [o.name, n])).toEqual([['odd', 1]]);
  });

  it('a stream document is its own text: read as it came, whatever the rules ask', async () => {
    const items = readInput(fleetMixStream(200) + '---\n' + AMBIGUOUS_HOST).items;
    const calls = countBodies(items);
    await analyse(items);
    for (const [o, n] of calls) expect(n, o.name).toBeLessThanOrEqual(1);
  });

  it("an entry's document is made anew when asked, equal each time (not kept with the object)", () => {
    const [o] = readInput(resourceList([AMBIGUOUS_HOST])).items;
    expect(o!.body).toBe(AMBIGUOUS_HOST);
    expect(o!.body).toBe(o!.body);
    expect(o!.changed).toBe(false);
  });

  it("label and annotation maps of strings are the item's own; other values are read as strings, the same at each call", () => {
    const [own, odd] = readInput(
      resourceList([
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels:\n    role: worker\n',
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  labels:\n    rack: 7\n    spare: true\n  annotations:\n    weight: 1.5\n',
      ]),
    ).items;
    expect(own!.labels).toBe(own!.labels);
    expect(own!.labels).toEqual({ role: 'worker' });
    expect(odd!.labels).toEqual({ rack: '7', spare: 'true' });
    expect(odd!.labels).toEqual(odd!.labels);
    expect(odd!.annotations).toEqual({ weight: '1.5' });
  });
});
