import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { runFunction } from '../../src/krm/index.js';
import { describeGolden, itemsStream, repoRoot, resourceList } from '../../test/golden.js';
import { splitStream } from '../../src/krm/scan.js';
import { definition } from './function.js';
import { canonicalIp, formatIp, parseIp } from './ipam.js';
import fc from 'fast-check';

const testdata = join(import.meta.dirname, 'testdata');
describeGolden(definition, testdata);

const fixtures = join(repoRoot, '../shared/fixtures');
const airship = join(fixtures, 'airship/airshipctl/manifests');

type Doc = Record<string, unknown>;
const LOCATION = /^(internal\.)?config\.kubernetes\.io\/(path|index)$/;

function docs(stream: string): Doc[] {
  return parseAllDocuments(stream, { version: '1.1' }).map((d) => d.toJS() as Doc).filter((d) => d && typeof d === 'object');
}
function fixture(rel: string): string {
  return readFileSync(join(airship, rel), 'utf8');
}
async function run(input: string[], spec?: string): Promise<{ items: string; docs: Doc[]; results: { severity: string; message: string; tags?: Record<string, string> }[]; exitCode: number }> {
  const config = spec === undefined ? undefined : `apiVersion: baremetal-krm.dev/v1alpha1\nkind: SiteFromCatalogue\nmetadata:\n  name: t\nspec:\n${spec.replace(/^/gm, '  ')}\n`;
  const r = await runFunction(definition, resourceList(input, config));
  const items = itemsStream(r.output);
  return { items, docs: docs(items), results: r.results, exitCode: r.exitCode };
}
function withoutLocation(d: Doc): Doc {
  const md = { ...(d.metadata as Doc) };
  const ann = Object.fromEntries(Object.entries((md.annotations as Record<string, string>) ?? {}).filter(([k]) => !LOCATION.test(k) && k !== 'baremetal-krm.dev/generated-by'));
  md.annotations = ann;
  return { ...d, metadata: md };
}
const testSiteCatalogues = [
  fixture('function/airshipctl-base-catalogues/networking.yaml'),
  fixture('type/gating/shared/catalogues/networking.yaml'),
  fixture('site/test-site/target/catalogues/shareable/networking.yaml'),
  fixture('site/test-site/target/catalogues/shareable/hosts.yaml'),
];
const generated = (ds: Doc[]) => ds.filter((d) => d.kind === 'BareMetalHost' || d.kind === 'Secret');

describe('output BareMetalHosts validate against the metal3 CRD', () => {
  const crd = parse(readFileSync(join(fixtures, 'schemas/metal3/metal3.io_baremetalhosts.yaml'), 'utf8'));
  const version = crd.spec.versions.find((v: { name: string }) => v.name === 'v1alpha1');
  const validate = new Ajv({ strict: false, allErrors: true }).compile(version.schema.openAPIV3Schema);
  const cases = ['test-site-all-hosts', 'test-site-several-lists', 'roles-and-emitted-credentials', 'inventory-hosts', 'allocate-addresses', 'allocate-ipv6', 'new-site', 'new-site-type-plan'];
  for (const c of cases) {
    it(c, () => {
      const bmhs = docs(readFileSync(join(testdata, c, 'expected.yaml'), 'utf8')).filter((d) => d.kind === 'BareMetalHost');
      expect(bmhs.length).toBeGreaterThan(0);
      for (const b of bmhs) {
        const ok = validate(b);
        expect(validate.errors ?? [], JSON.stringify((b.metadata as Doc).name)).toEqual([]);
        expect(ok).toBe(true);
      }
    });
  }
  it('a BMH with a bad MAC would be rejected by the schema (the check can fail)', () => {
    const b = docs(readFileSync(join(testdata, 'test-site-all-hosts', 'expected.yaml'), 'utf8')).find((d) => d.kind === 'BareMetalHost')!;
    expect(validate({ ...b, spec: { ...(b.spec as Doc), bootMode: 'bios' } })).toBe(false);
  });
});

describe('round trip', () => {
  it('distil(generate(c)) equals c without credentials (test-site)', async () => {
    const gen = await run(testSiteCatalogues);
    expect(gen.exitCode).toBe(0);
    const rendered = splitStream(gen.items).filter((d) => !/kind: VariableCatalogue/.test(d));
    const dist = await run(rendered, 'mode: distil');
    expect(dist.exitCode).toBe(0);
    const distilled = dist.docs.find((d) => (d.metadata as Doc).name === 'host-catalogue')!;
    const original = docs(fixture('site/test-site/target/catalogues/shareable/hosts.yaml'))[0]!;
    const m3 = (original.hosts as Doc).m3 as Record<string, Doc>;
    const normalised = Object.fromEntries(
      Object.entries(m3).map(([n, h]) => {
        const { bmcUsername: _u, bmcPassword: _p, ...rest } = h;
        return [n, rest];
      }),
    );
    expect((distilled.hosts as Doc).m3).toEqual(normalised);
    // no password ever reaches the distilled output
    expect(dist.items).not.toContain('r00tme');
  });

  it('generate(distil(s)) equals s (test-site, roles and an allocated address)', async () => {
    const cat = testSiteCatalogues.slice(0, 3).concat(
      fixture('site/test-site/target/catalogues/shareable/hosts.yaml').replace('        pxe-ipv4: 10.23.24.106\n', ''),
    );
    const spec = 'roles:\n  controlPlane: {count: 2}\n  workers: {}\nipam:\n  pxe-ipv4: {cidr: 10.23.24.0/24}';
    const s = await run(cat, spec);
    expect(s.exitCode).toBe(0);
    const sDocs = generated(s.docs);
    expect(sDocs.length).toBe(12);
    const rendered = splitStream(s.items).filter((d) => !/kind: VariableCatalogue/.test(d));
    const d = await run(rendered, 'mode: distil');
    expect(d.exitCode).toBe(0);
    const catalogue = splitStream(d.items).filter((x) => /kind: VariableCatalogue/.test(x));
    const again = await run([...testSiteCatalogues.slice(0, 3), ...catalogue], spec);
    expect(again.exitCode).toBe(0);
    expect(generated(again.docs).map(withoutLocation)).toEqual(sDocs.map(withoutLocation));
  });
});

describe('IP allocation is stable', () => {
  const host = (n: number, withPxe = false) =>
    `    node0${n}:\n      bootMode: UEFI\n      macAddress: 52:54:00:aa:00:0${n}\n      bmcAddress: redfish+https://10.0.0.${n}/redfish/v1/Systems/1\n      ipAddresses:\n        oam-ipv4: 10.23.25.1${n}\n` +
    (withPxe ? `        pxe-ipv4: 10.23.24.1${n}\n` : '');
  const catalogue = (hosts: string[]) =>
    `apiVersion: airshipit.org/v1alpha1\nkind: VariableCatalogue\nmetadata:\n  name: host-catalogue\nhosts:\n  m3:\n${hosts.join('')}`;
  const net = fixture('type/gating/shared/catalogues/networking.yaml');
  const spec = 'ipam:\n  pxe-ipv4: {cidr: 10.23.24.0/24, start: 10.23.24.10}';
  const byFile = (items: string) => {
    const out = new Map<string, string>();
    for (const d of splitStream(items)) {
      const m = /config\.kubernetes\.io\/path: (hosts\/\S+)/.exec(d);
      if (m) out.set(m[1]! + '#' + /^  name: (\S+)/m.exec(d)![1], d);
    }
    return out;
  };

  it('adding a host touches only that host; removing one touches only that one', async () => {
    const first = await run([net, catalogue([host(1), host(2, true), host(3)])], spec);
    expect(first.exitCode).toBe(0);
    const a = byFile(first.items);
    expect(a.get('hosts/node01.yaml#node01-network-data')).toContain('ip_address: 10.23.24.10\n');
    expect(a.get('hosts/node03.yaml#node03-network-data')).toContain('ip_address: 10.23.24.11\n');

    // add node00, which sorts first and has no address: the others keep theirs
    const grown = splitStream(first.items).map((d) => (d.includes('name: host-catalogue') ? catalogue([host(0), host(1), host(2, true), host(3)]) : d));
    const second = await run([...grown.filter((d) => !d.includes('name: host-catalogue')), catalogue([host(0), host(1), host(2, true), host(3)])], spec);
    expect(second.exitCode).toBe(0);
    const b = byFile(second.items);
    for (const [k, v] of a) expect(b.get(k), k).toBe(v);
    expect([...b.keys()].filter((k) => !a.has(k)).sort()).toEqual(['hosts/node00.yaml#node00', 'hosts/node00.yaml#node00-network-data']);
    // .12 is node02's (catalogue): node00 gets the next free one
    expect(b.get('hosts/node00.yaml#node00-network-data')).toContain('ip_address: 10.23.24.13\n');

    // remove node01 (holder of .10): only its items go, nobody is renumbered
    const third = await run([...splitStream(second.items).filter((d) => !d.includes('name: host-catalogue')), catalogue([host(0), host(2, true), host(3)])], spec);
    expect(third.exitCode).toBe(0);
    const c = byFile(third.items);
    for (const [k, v] of c) expect(v, k).toBe(b.get(k));
    expect([...b.keys()].filter((k) => !c.has(k)).sort()).toEqual(['hosts/node01.yaml#node01', 'hosts/node01.yaml#node01-network-data']);
  });

  it('never hands out the gateway, ironic or reserved addresses, nor duplicates', async () => {
    const base = fixture('function/airshipctl-base-catalogues/networking.yaml'); // ironic dhcpRange 10.23.25.200-250, provisioningIp .102
    const hosts = (n: number) =>
      Array.from({ length: n }, (_, i) => `    h${i}:\n      macAddress: 52:54:00:aa:01:0${i}\n      bmcAddress: ipmi://10.0.1.${i}\n      ipAddresses:\n        pxe-ipv4: 10.23.24.${i + 1}\n`);
    const spec = 'ipam:\n  oam-ipv4: {cidr: 10.23.25.0/24, start: 10.23.25.100, end: 10.23.25.104, reserved: [10.23.25.103]}';
    const r = await run([base, catalogue(hosts(3))], spec);
    expect(r.results.filter((x) => x.severity === 'error')).toEqual([]);
    const got = [...r.items.matchAll(/ip_address: (10\.23\.25\.\d+)/g)].map((m) => m[1]);
    // .102 is ironic.provisioningIp, .103 reserved
    expect(got).toEqual(['10.23.25.100', '10.23.25.101', '10.23.25.104']);
    const full = await run([base, catalogue(hosts(5))], spec);
    expect(full.exitCode).toBe(1);
    expect(full.results.filter((x) => x.severity === 'error').map((x) => x.tags?.rule)).toEqual(['ipam/range-full', 'ipam/range-full']);
    expect(full.items).not.toContain('kind: BareMetalHost');
  });
});

describe('IPv6 addresses', () => {
  it('formatIp writes RFC 5952 text, as the WHATWG URL parser does, and parseIp reads it back', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff })), { minLength: 8, maxLength: 8 }),
        (groups) => {
          const n = groups.reduce((a, g) => (a << 16n) + BigInt(g), 0n);
          const text = formatIp(n, 6);
          expect(text).toBe(new URL(`http://[${groups.map((g) => g.toString(16)).join(':')}]/`).hostname.slice(1, -1));
          expect(parseIp(text)).toEqual({ family: 6, n });
        },
      ),
    );
    expect(parseIp('::ffff:10.0.0.1')).toEqual({ family: 6, n: 0xffff0a000001n });
    expect(canonicalIp('FD00:23:25:0:0:0:0:10')).toBe('fd00:23:25::10');
  });

  it('a CIDR with host bits set, or of the wrong family for the network, is refused', async () => {
    const input = readFileSync(join(testdata, 'allocate-ipv6/input.yaml'), 'utf8');
    const bits = await run(splitStream(input), 'ipam:\n  oam-ipv6: {cidr: "fd00:23:25::1/64"}');
    expect(bits.results.filter((r) => r.severity === 'error').map((r) => r.tags?.rule)).toEqual(['ipam/bad-cidr']);
    const fam = await run(splitStream(input), 'ipam:\n  oam-ipv6: {cidr: 10.23.26.0/24}');
    expect(fam.results.filter((r) => r.severity === 'error').map((r) => r.message)).toEqual([
      'spec.ipam.oam-ipv6.cidr: 10.23.26.0/24 is IPv4 but network oam-ipv6 is type ipv6; give an IPv6 CIDR',
    ]);
    const reserved = await run(splitStream(input), 'ipam:\n  oam-ipv6: {cidr: "fd00:23:25::/64", reserved: [10.23.25.5]}');
    expect(reserved.results.filter((r) => r.severity === 'error').map((r) => r.tags?.rule)).toEqual(['ipam/bad-range']);
    const hostFam = await run(splitStream(input.replace('oam-ipv6: "fd00:23:25:0:0:0:0:10"', 'oam-ipv6: 10.23.25.9')), 'ipam:\n  oam-ipv6: {cidr: "fd00:23:25::/64"}');
    expect(hostFam.results.filter((r) => r.severity === 'error').map((r) => r.tags?.rule)).toEqual(['host/bad-ip']);
  });

  it('allocation in a /64 is stable: adding or removing a host touches only that host', async () => {
    const net = splitStream(readFileSync(join(testdata, 'allocate-ipv6/input.yaml'), 'utf8'))[0]!;
    const host = (n: number) =>
      `    node0${n}:\n      macAddress: 52:54:00:aa:00:0${n}\n      bmcAddress: redfish+https://10.23.1.${n}/redfish/v1/Systems/1\n      ipAddresses:\n        oam-ipv4: 10.23.25.10${n}\n`;
    const catalogue = (ns: number[]) => `apiVersion: airshipit.org/v1alpha1\nkind: VariableCatalogue\nmetadata:\n  name: host-catalogue\nhosts:\n  m3:\n${ns.map(host).join('')}`;
    const spec = 'ipam:\n  oam-ipv6: {cidr: "fd00:23:25::/64", start: "fd00:23:25::ffff:fffe"}';
    const v6 = (items: string) => Object.fromEntries([...items.matchAll(/name: (node\d+)-network-data[\s\S]*?ip_address: (fd00\S+)/g)].map((m) => [m[1], m[2]]));
    const others = (items: string) => splitStream(items).filter((d) => !d.includes('name: host-catalogue'));
    const a = await run([net, catalogue([2, 3])], spec);
    expect(v6(a.items)).toEqual({ node02: 'fd00:23:25::ffff:fffe', node03: 'fd00:23:25::ffff:ffff' });
    const b = await run([...others(a.items), catalogue([1, 2, 3])], spec);
    // node01 sorts first but the others keep theirs; the next free address crosses a 32-bit boundary
    expect(v6(b.items)).toEqual({ node01: 'fd00:23:25::1:0:0', node02: 'fd00:23:25::ffff:fffe', node03: 'fd00:23:25::ffff:ffff' });
    const c = await run([...others(b.items), catalogue([1, 3])], spec);
    expect(v6(c.items)).toEqual({ node01: 'fd00:23:25::1:0:0', node03: 'fd00:23:25::ffff:ffff' });
    for (const r of [a, b, c]) expect(r.exitCode).toBe(0);
  });
});
