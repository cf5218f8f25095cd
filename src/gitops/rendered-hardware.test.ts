/**
 * A rendered folder validates on its own: hosts carry their discovered hardware (annotation
 * written by flatten), a profile that stayed behind as local-config is an info, real errors stay.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KubeObject } from '../krm/index.js';
import { analyse, hardwareDetails, hostHardware, type HostHardware } from '../validate/index.js';
import { repoRoot } from '../../test/golden.js';
import { flatten } from './flatten.js';

const site = join(repoRoot, 'examples/greenfield-site/site');
const read = (p: string): string => readFileSync(join(site, p), 'utf8');
const objects = (text: string): KubeObject[] =>
  text
    .split(/^---\n/m)
    .filter((d) => /^kind:/m.test(d))
    .map((d) => KubeObject.fromDocument(d));

/** The journey's r750-01 host and inventory, flattened as render does. */
function renderedHost(label = 'control-plane'): KubeObject {
  const bmh = read('hosts/r750-01.yaml')
    .split(/^---\n/m)[0]!
    .replace(/hardware-profile: \S+/, `hardware-profile: ${label}`);
  const r = flatten([
    { path: 'hosts/r750-01.yaml', text: bmh },
    { path: 'inventory/r750-01.yaml', text: read('inventory/r750-01.yaml') },
  ]);
  return KubeObject.fromDocument(r.files.get('hosts/baremetalhost_r750-01.yaml')!);
}

const findings = async (objs: KubeObject[]): Promise<string[]> =>
  (await analyse(objs)).findings
    .filter((f) => f.rule === 'hardware-profile' || f.message.includes('hardware profile'))
    .map((f) => `${f.severity} ${f.rule}: ${f.message}`);

describe('rendered hosts carry their hardware', () => {
  it('a profile left behind as local-config is an info, not a dangling reference; the hardware is still known', async () => {
    const host = renderedHost();
    const a = await analyse([host]);
    const f = a.findings.filter((x) => x.rule === 'hardware-profile' || x.message.includes('hardware profile'));
    expect(f.map((x) => x.severity)).toEqual(['info']);
    expect(f[0]!.message).toContain('asks for hardware profile control-plane, which is not in the input');
    expect(a.facts.hosts[0]!.hardware).toMatchObject({
      manufacturer: 'Dell Inc.',
      productName: 'PowerEdge R750',
      cpuCount: 72,
      ramMiB: 524288,
    });
  });

  it('real errors stay errors: a host without hardware asking for a missing profile, and a profile present but not met', async () => {
    const bare = KubeObject.fromDocument(read('hosts/r750-01.yaml').split(/^---\n/m)[0]!);
    expect((await findings([bare]))[0]).toMatch(
      /^error reference: .* asks for hardware profile control-plane, but no HardwareProfile or HardwareClassification/,
    );
    // the rendered host checked against a class it does not meet (storage-nvme wants 8 disks)
    const classes = objects(read('catalogues/hardware-profiles.yaml')).filter((o) => o.kind === 'HardwareClassification');
    const msgs = await findings([renderedHost('storage-nvme'), ...classes]);
    expect(
      msgs.some((m) => m.startsWith('error hardware-profile:') && m.includes('does not match HardwareClassification storage-nvme')),
    ).toBe(true);
    expect(await findings([renderedHost('control-plane'), ...classes])).toEqual([]);
  });

  it('hardwareDetails is read back by hostHardware as the same hardware (property)', () => {
    const opt = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(a, { nil: undefined });
    const hw: fc.Arbitrary<HostHardware> = fc.record({
      cpuCount: opt(fc.nat()),
      cpuArch: opt(fc.constantFrom('x86_64', 'aarch64')),
      cpuMHz: opt(fc.nat()),
      ramMiB: opt(fc.nat()),
      disks: fc.array(
        fc.record({
          name: fc.string({ minLength: 1 }),
          sizeBytes: opt(fc.nat()),
          rotational: opt(fc.boolean()),
          hctl: opt(fc.string({ minLength: 1 })),
          type: opt(fc.constantFrom('SSD', 'HDD', 'NVME')),
        }),
        { maxLength: 3 },
      ),
      nics: fc.array(
        fc.record({
          name: opt(fc.string({ minLength: 1 })),
          mac: opt(fc.string({ minLength: 1 })),
          vendor: opt(fc.stringMatching(/^[A-Za-z]{1,8}$/)),
          speedGbps: opt(fc.nat()),
        }),
        { maxLength: 3 },
      ),
      manufacturer: opt(fc.string({ minLength: 1 })),
      productName: opt(fc.string({ minLength: 1 })),
      biosVendor: opt(fc.string({ minLength: 1 })),
      biosVersion: opt(fc.string({ minLength: 1 })),
    });
    const defined = (o: object): unknown => JSON.parse(JSON.stringify(o));
    fc.assert(
      fc.property(hw, (h) => {
        expect(defined(hostHardware(JSON.parse(JSON.stringify(hardwareDetails(h))), 'metal3'))).toEqual(defined(h));
      }),
    );
  });
});
