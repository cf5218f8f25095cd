/** What the crawl asks for: requests per System on every fixture tree, BootOptions read only up to the boot NIC, $expand only when advertised. */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { itemsStream, repoRoot, resourceList } from '../../test/golden.js';
import { runFunction } from '../../src/krm/index.js';
import { expandQuery, SystemCrawler } from '../../src/redfish/discover.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BudgetError, RedfishClient as Client, RedfishError, type RedfishClient } from '../../src/redfish/client.js';
import { startBmc, type BmcOptions, type SimBmc } from '../../src/redfish-sim/server.js';
import { definition } from './function.js';

const tree = (t: string) => join(repoRoot, '../shared/fixtures/redfish', t);
const ENV = { BMC_USERNAME: 'admin', BMC_PASSWORD: 'password' };
let open: SimBmc[] = [];
afterEach(async () => {
  await Promise.all(open.map((b) => b.close()));
  open = [];
});

async function bmc(t: string, opts: Partial<BmcOptions> = {}): Promise<SimBmc> {
  const b = await startBmc({ tree: tree(t), ...opts });
  open.push(b);
  return b;
}

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
  // plain crawl / with `expand: true`; before this crawl: Dell 26, Supermicro 41, HPE 80 (every BootOption read)
  const table: [string, number, number][] = [
    ['dmtf-public-rackmount1', 12, 5],
    ['dmtf-public-localstorage', 14, 9],
    ['dmtf-public-tower', 31, 23],
    ['dmtf-public-bladed', 5, 2], // 4 Systems behind one root: 20 and 8 requests in all
    ['libredfish-dell', 21, 10],
    ['libredfish-supermicro', 30, 14],
    ['libredfish-hpe', 51, 24],
  ];
  for (const [t, plain, expanded] of table) {
    it(`${t}: ${plain} plain, ${expanded} with $expand, same inventory`, async () => {
      const a = await bmc(t);
      const p = await discover(a);
      expect(p.perSystem).toBe(plain);
      // several Systems: the service root and Systems collection are not counted per System
      const [systems, shared] = t === 'dmtf-public-bladed' ? [4, 2] : [1, 0];
      expect(a.log).toHaveLength(plain * systems + shared);
      const b = await bmc(t);
      const e = await discover(b, { expand: true });
      expect(e.perSystem).toBe(expanded);
      expect(b.log).toHaveLength(expanded * systems + shared);
      expect(b.log.some((l) => l.includes('$expand=.($levels=1)'))).toBe(true);
      expect(e.inventory).toBe(p.inventory);
    });
  }
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
    expect(out).toContain('  - "BootOptions/Boot0019: HTTP 404:');
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
    const a = await bmc('libredfish-dell');
    const plain = await discover(a);
    const b = await bmc('libredfish-dell', { expand: false });
    const e = await discover(b, { expand: true });
    expect(e.inventory).toBe(plain.inventory);
    // Systems, Processors, BootOptions, EthernetInterfaces and Storage asked with $expand, then every member read as in the plain crawl
    expect(b.log.filter((l) => l.includes('$expand'))).toHaveLength(5);
    expect(b.log).toHaveLength(a.log.length);
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
    // then Processors, EthernetInterfaces and SimpleStorage, expanded
    expect(b.log).toHaveLength(5);
  });
});

describe('Limiter', () => {
  it('never lets more than n in, also when callers arrive while one leaves; everyone runs, in order', async () => {
    const { Limiter } = await import('../../src/redfish/client.js');
    const lim = new Limiter(3);
    let inside = 0;
    let peak = 0;
    const order: number[] = [];
    const task = (i: number) =>
      lim.run(async () => {
        inside++;
        peak = Math.max(peak, inside);
        order.push(i);
        await new Promise((r) => setTimeout(r, 1 + (i % 3)));
        inside--;
        // a newcomer arriving just as this one leaves must queue behind the waiters
        if (i < 20 && i % 4 === 0) void extra.push(task(100 + i));
        return i;
      });
    const extra: Promise<number>[] = [];
    const first = await Promise.all(Array.from({ length: 20 }, (_, i) => task(i)));
    await Promise.all(extra);
    expect(first).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(peak).toBe(3);
    expect(order.filter((i) => i < 20)).toEqual(Array.from({ length: 20 }, (_, i) => i)); // first come, first in
    expect(order).toHaveLength(25);
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
    const get = async (p: string) => {
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

describe('budgets: a BMC cannot make the crawl hold unbounded memory or run forever', () => {
  const EI = '/redfish/v1/Systems/1/EthernetInterfaces';
  let server: Server | undefined;
  afterEach(() => void server?.close());
  /** a collection whose pages never end, each with one expanded member of `pad` bytes */
  async function endless(pad: number): Promise<{ origin: string; pages: () => number }> {
    let pages = 0;
    server = createServer((req, res) => {
      pages++;
      const k = Number(/skip=(\d+)/.exec(req.url!)?.[1] ?? 0);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ Members: [{ '@odata.id': `${EI}/${k}`, Pad: 'x'.repeat(pad) }], 'Members@odata.nextLink': `${EI}?skip=${k + 1}` }),
      );
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, pages: () => pages };
  }

  it('members per collection: past maxMembers, one BudgetError naming the collection', async () => {
    const s = await endless(10);
    const c = new Client({ origin: s.origin, retries: 0 });
    const err = await new SystemCrawler(c, { maxMembers: 50 }).collectionLinks(EI, 'EthernetInterfaces').catch((e: unknown) => e);
    await c.close();
    expect(err).toBeInstanceOf(BudgetError);
    expect((err as Error).message).toBe('EthernetInterfaces: more than 50 members; the crawl of this BMC stopped');
    expect(s.pages()).toBe(51);
  });

  it('bytes per collection: 1 MiB pages stop at the 4 MiB cap (default 16 MiB), nothing recorded as missing', async () => {
    const s = await endless(1 << 20);
    const c = new Client({ origin: s.origin, retries: 0 });
    const crawler = new SystemCrawler(c, { maxCollectionBytes: 4 << 20 });
    const err = await crawler.collectionLinks(EI, 'EthernetInterfaces').catch((e: unknown) => e);
    await c.close();
    expect((err as Error).message).toBe('EthernetInterfaces: its pages take more than 4 MiB; the crawl of this BMC stopped');
    expect(s.pages()).toBe(4);
    expect(crawler.missing).toEqual([]);
  });

  it('bytes per BMC: past maxTotalBytes the crawl stops with one error naming the resource', async () => {
    const s = await endless(1 << 16);
    const c = new Client({ origin: s.origin, retries: 2, maxTotalBytes: 1 << 20 });
    const err = await new SystemCrawler(c).collectionLinks(EI, 'EthernetInterfaces').catch((e: unknown) => e);
    await c.close();
    expect((err as Error).message).toBe('EthernetInterfaces (next page): more than 1 MiB read from this BMC in all; the crawl stopped');
    expect(s.pages()).toBe(16); // 16 x 64 KiB and a bit: not retried
  });

  it('deadline per BMC: one error for that BMC, the others are written, the session logged out', async () => {
    const slow = await bmc('dmtf-public-rackmount1', { latencyMs: 150 });
    const fast = await bmc('dmtf-public-rackmount1');
    const cfg = JSON.stringify({
      apiVersion: 'baremetal-krm.dev/v1alpha1',
      kind: 'BMHFromRedfish',
      metadata: { name: 'd' },
      spec: {
        mode: 'discover',
        auth: 'session',
        bmcDeadlineSeconds: 1,
        requestsPerBmc: 1,
        bmcs: [
          { address: slow.url, name: 'slow' },
          { address: fast.url, name: 'fast' },
        ],
      },
    });
    const r = await runFunction(definition, resourceList([], cfg), ENV);
    expect(r.exitCode).toBe(1);
    const errors = r.results.filter((x) => x.severity === 'error').map((x) => x.message);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      new RegExp(`^bmcs\\[0\\] \\(slow, ${slow.url}\\): discovery failed: (.*: )?the 1 s deadline for this BMC passed; the crawl stopped$`),
    );
    expect(r.results.filter((x) => x.tags?.rule === 'discover/missing')).toEqual([]);
    expect([...itemsStream(r.output).matchAll(/^ {2}name: (.*)$/gm)].map((m) => m[1])).toEqual(['fast']);
    expect(slow.stats.created).toBe(1);
    expect(slow.sessions()).toBe(0);
  });
});
