/** What the crawl asks for: requests per System on every fixture tree, `?only`, BootOptions read only up to the boot NIC, $expand only when advertised. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { itemsStream, repoRoot, resourceList } from '../../test/golden.js';
import { runFunction } from '../../src/krm/index.js';
import { expandQuery, SystemCrawler } from '../../src/redfish/discover.js';
import { RedfishError, type RedfishClient } from '../../src/redfish/client.js';
import type { BmcOptions, SimBmc } from '../../src/redfish-sim/server.js';
import { scenarioBmc } from '../../src/redfish-sim/scenarios.js';
import { mockupsDir } from '../../src/redfish-sim/mockups.js';
import { definition } from './function.js';
import { simulatedBmcs } from './test-support.js';

const tree = (t: string) => join(repoRoot, '../shared/fixtures/redfish', t);
const ENV = { BMC_USERNAME: 'admin', BMC_PASSWORD: 'password' };
const simulated = simulatedBmcs();
const bmc = (t: string, opts: Partial<BmcOptions> = {}): Promise<SimBmc> => simulated({ tree: tree(t), ...opts });

async function discover(b: SimBmc, extra: Record<string, unknown> = {}) {
  const cfg = JSON.stringify({
    apiVersion: 'baremetal-krm.dev/v1alpha1',
    kind: 'BMHFromRedfish',
    metadata: { name: 'd' },
    spec: { mode: 'discover', ...extra, bmcs: [{ address: b.url, name: 'n' }] },
  });
  const r = await runFunction(definition, resourceList([], cfg), ENV);
  expect(r.results.filter((x) => x.severity === 'error')).toEqual([]);
  const perSystem = /([\d.]+) Redfish requests per System/.exec(r.results.find((x) => x.tags?.rule === 'discover/summary')!.message)![1];
  return { r, perSystem: Number(perSystem), inventory: itemsStream(r.output).split(b.url).join('BMC') };
}

describe('requests per System (the simulator counts what it served)', () => {
  // plain crawl / with `expand: true`. Before the Manager and VirtualMedia were read (and before
  // `?only` and no service root): plain 12, 14, 31, 5, 21, 30, 51; expand 5, 9, 23, 2, 10, 14, 24.
  // Before BootOptions were read only up to the boot NIC: Dell 26, Supermicro 41, HPE 80.
  const table: [string, number, number][] = [
    ['dmtf-public-rackmount1', 11, 8],
    ['dmtf-public-localstorage', 13, 12],
    ['dmtf-public-tower', 31, 26],
    ['dmtf-public-bladed', 4, 3], // 4 Systems behind one root: 17 and 14 requests in all
    ['libredfish-dell', 20, 12],
    ['libredfish-supermicro', 30, 16],
    ['libredfish-hpe', 51, 27],
  ];
  for (const [t, plain, expanded] of table) {
    it(`${t}: ${plain} plain, ${expanded} with $expand, same inventory`, async () => {
      const a = await bmc(t);
      const p = await discover(a);
      expect(p.perSystem).toBe(plain);
      // several Systems: the Systems collection (and with expand the service root) are not counted per System
      const systems = t === 'dmtf-public-bladed' ? 4 : 1;
      expect(a.log).toHaveLength(plain * systems + (systems > 1 ? 1 : 0));
      expect(a.log).not.toContain('GET /redfish/v1');
      const b = await bmc(t);
      const e = await discover(b, { expand: true });
      expect(e.perSystem).toBe(expanded);
      expect(b.log).toHaveLength(expanded * systems + (systems > 1 ? 2 : 0));
      expect(b.log.some((l) => l.includes('$expand=.($levels=1)'))).toBe(true);
      expect(e.inventory).toBe(p.inventory);
    });
  }
});

describe('?only: a one-member collection answered by its member', () => {
  it('honoured (DMTF advertises OnlyMemberQuery): the Systems collection gives the System, SimpleStorage its one member', async () => {
    const b = await bmc('dmtf-public-rackmount1');
    await discover(b);
    expect(b.log.slice(0, 1)).toEqual(['GET /redfish/v1/Systems?only']);
    expect(b.log).not.toContain('GET /redfish/v1/Systems/437XR1138R2');
    expect(b.log).not.toContain('GET /redfish/v1/Systems/437XR1138R2/SimpleStorage/1');
  });
  it('ignored (Supermicro does not advertise it): the collections as they are, the same inventory as with it honoured', async () => {
    const honoured = await bmc('dmtf-public-rackmount1');
    const ignored = await bmc('dmtf-public-rackmount1', { onlyQuery: 'ignore' });
    const a = await discover(honoured);
    const b = await discover(ignored);
    expect(b.inventory).toBe(a.inventory);
    expect(ignored.log).toContain('GET /redfish/v1/Systems/437XR1138R2');
    expect(ignored.log).toHaveLength(honoured.log.length + 2);
  });
  it('refused with 400: asked once, then never again on that BMC; the same inventory', async () => {
    const honoured = await bmc('libredfish-dell');
    const refused = await bmc('libredfish-dell', { onlyQuery: 'refuse' });
    const a = await discover(honoured);
    const b = await discover(refused);
    expect(b.inventory).toBe(a.inventory);
    expect(refused.log.filter((l) => l.endsWith('?only'))).toEqual(['GET /redfish/v1/Systems?only']);
  });
});

describe('BootOptions: only up to the first network boot option in BootOrder that names its NIC', () => {
  const bootReads = (b: SimBmc) => b.log.filter((l) => /\/BootOptions\/[^/]+$/.test(l)).map((l) => l.split('/').pop());
  it('HPE: BootOrder[0] Boot002C is member 1 (read in member order until found), its MAC is in UefiDevicePath', async () => {
    const b = await bmc('libredfish-hpe');
    await discover(b);
    expect(bootReads(b)).toEqual(['1']);
  });
  it('Supermicro: member Boot0019 is read by its reference; MAC from the DisplayName', async () => {
    const b = await bmc('libredfish-supermicro');
    await discover(b);
    expect(bootReads(b)).toEqual(['Boot0019']);
  });
  it('Dell: Boot0000 "HTTP Device 1" names its NIC through the BIOS HttpDev1Interface', async () => {
    const b = await bmc('libredfish-dell');
    const d = await discover(b);
    expect(bootReads(b)).toEqual(['Boot0000']);
    expect(d.inventory).toContain('  - id: NIC.Slot.5-1\n    mac: b8:3f:d2:90:97:c4\n');
  });
  it('member ids `0019` for the reference `Boot0019`: read by its reference, not one by one in member order', async () => {
    const hex = await simulated(scenarioBmc('bootoption-hex-ids'));
    const base = await simulated({ tree: join(mockupsDir(), 'libredfish-supermicro') });
    const a = await discover(hex);
    const b = await discover(base);
    expect(bootReads(hex)).toEqual(['0019']);
    expect(hex.log).toHaveLength(base.log.length);
    expect(a.inventory).toBe(b.inventory);
  });
  it('when the first option cannot be read, the next one in BootOrder decides', async () => {
    const b = await bmc('libredfish-supermicro', { faults: [{ path: '/redfish/v1/Systems/1/BootOptions/Boot0019', kind: 'http-404' }] });
    const cfg = JSON.stringify({
      apiVersion: 'baremetal-krm.dev/v1alpha1',
      kind: 'BMHFromRedfish',
      metadata: { name: 'd' },
      spec: { mode: 'discover', retries: 0, bmcs: [{ address: b.url, name: 'n' }] },
    });
    const r = await runFunction(definition, resourceList([], cfg), ENV);
    expect(bootReads(b)).toEqual(['Boot0019', 'Boot001A']);
    const out = itemsStream(r.output);
    expect(out).toContain('  - id: "2"\n    mac: 94:6d:ae:91:09:c2\n    linkStatus: LinkDown\n    pxe: true\n    bootPriority: 1\n');
    expect(out).toContain('  - "BootOptions/Boot0019: HTTP 404 (Base.1.8.ResourceMissingAtURI)"\n');
  });
});

describe('$expand', () => {
  it('the query comes from what the service root advertises', () => {
    expect(expandQuery({})).toBeUndefined();
    expect(expandQuery({ ProtocolFeaturesSupported: { ExpandQuery: { NoLinks: false, ExpandAll: false, Levels: true } } })).toBeUndefined();
    expect(expandQuery({ ProtocolFeaturesSupported: { ExpandQuery: { NoLinks: true, Levels: true, MaxLevels: 1 } } })).toBe('.($levels=1)');
    expect(expandQuery({ ProtocolFeaturesSupported: { ExpandQuery: { NoLinks: true, Levels: false } } })).toBe('.');
    expect(expandQuery({ ProtocolFeaturesSupported: { ExpandQuery: { ExpandAll: true, Levels: true } } })).toBe('*($levels=1)');
  });
  it('a BMC that ignores $expand gets the plain crawl: same inventory, the members read one by one', async () => {
    const a = await bmc('libredfish-dell', { onlyQuery: 'ignore' });
    const plain = await discover(a);
    const b = await bmc('libredfish-dell', { expand: false });
    const e = await discover(b, { expand: true });
    expect(e.inventory).toBe(plain.inventory);
    // Systems, Processors, BootOptions, EthernetInterfaces, Storage, VirtualMedia and Memory asked with
    // $expand, then every member read as in the plain crawl (not the DIMMs: only a check, not worth 16 requests)
    expect(b.log.filter((l) => l.includes('$expand'))).toHaveLength(7);
    expect(b.log).toHaveLength(a.log.length + 2); // the service root, and the Memory collection
  });
  it('a System URL address with expand: the root is read once for its ProtocolFeaturesSupported', async () => {
    const b = await bmc('dmtf-public-rackmount1');
    const cfg = JSON.stringify({
      apiVersion: 'baremetal-krm.dev/v1alpha1',
      kind: 'BMHFromRedfish',
      metadata: { name: 'd' },
      spec: { mode: 'discover', expand: true, bmcs: [{ address: `${b.url}/redfish/v1/Systems/437XR1138R2`, name: 'n' }] },
    });
    await runFunction(definition, resourceList([], cfg), ENV);
    expect(b.log.slice(0, 2)).toEqual(['GET /redfish/v1', 'GET /redfish/v1/Systems/437XR1138R2']);
    // then Processors, EthernetInterfaces, SimpleStorage, VirtualMedia and Memory expanded, and the Manager (the System has a HostName)
    expect(b.log).toHaveLength(8);
  });
});

describe('BootOptions edge cases (a synthetic service)', () => {
  const sys = '/redfish/v1/Systems/Sys1';
  function fakeClient(members: Record<string, Record<string, unknown>>, bootOrder: string[]) {
    const reads: string[] = [];
    const docs: Record<string, Record<string, unknown>> = {
      [sys]: {
        Id: 'Sys1',
        Boot: { BootOrder: bootOrder, BootOptions: { '@odata.id': `${sys}/BootOptions` } },
        EthernetInterfaces: { '@odata.id': `${sys}/EthernetInterfaces` },
      },
      [`${sys}/BootOptions`]: { Members: Object.keys(members).map((id) => ({ '@odata.id': `${sys}/BootOptions/${id}` })) },
      [`${sys}/EthernetInterfaces`]: { Members: [] },
      ...Object.fromEntries(Object.entries(members).map(([id, d]) => [`${sys}/BootOptions/${id}`, d])),
    };
    const get = async (q: string) => {
      const p = q.split('?')[0]!;
      reads.push(p.split('/').pop()!);
      const d = docs[p];
      if (!d) throw new RedfishError('HTTP 404', 404, p);
      return d;
    };
    return {
      reads,
      client: { get, getSized: async (p: string) => ({ json: await get(p), bytes: 100 }) } as unknown as RedfishClient,
    };
  }
  const disk = (ref: string) => ({ BootOptionReference: ref, DisplayName: 'ubuntu', UefiDevicePath: 'HD(1,GPT,0,0x800,0x1000)' });
  const pxe = (ref: string, mac: string) => ({
    BootOptionReference: ref,
    DisplayName: 'UEFI PXE IPv4',
    UefiDevicePath: `PciRoot(0x0)/MAC(${mac},0x1)/IPv4(0.0.0.0)`,
  });

  it('members named by reference: an absent reference is skipped, nothing past the boot NIC is read', async () => {
    const f = fakeClient(
      { Boot0001: disk('Boot0001'), Boot0002: pxe('Boot0002', '0A0B0C0D0E0F'), Boot0003: pxe('Boot0003', '0A0B0C0D0E10') },
      ['Boot0007', 'Boot0001', 'Boot0002', 'Boot0003'],
    );
    const raw = await new SystemCrawler(f.client).crawl(sys);
    expect(f.reads.filter((r) => r.startsWith('Boot0'))).toEqual(['Boot0001', 'Boot0002']);
    expect(raw.bootOptions.map((o) => o.BootOptionReference)).toEqual(['Boot0001', 'Boot0002']);
  });
  it('members not named by reference: read in order until each reference is found', async () => {
    const f = fakeClient({ '1': disk('Boot0001'), '2': pxe('Boot0002', '0A0B0C0D0E0F'), '3': pxe('Boot0003', '0A0B0C0D0E10') }, [
      'Boot0002',
      'Boot0003',
    ]);
    const raw = await new SystemCrawler(f.client).crawl(sys);
    expect(f.reads.filter((r) => /^\d$/.test(r))).toEqual(['1', '2']);
    expect(raw.bootOptions.map((o) => o.BootOptionReference)).toEqual(['Boot0002']);
  });
  it('no network option that names its NIC: every option is read (in member order)', async () => {
    const f = fakeClient({ Boot0002: disk('Boot0002'), Boot0001: disk('Boot0001') }, ['Boot0001']);
    const raw = await new SystemCrawler(f.client).crawl(sys);
    expect(raw.bootOptions.map((o) => o.BootOptionReference)).toEqual(['Boot0002', 'Boot0001']);
  });
});
