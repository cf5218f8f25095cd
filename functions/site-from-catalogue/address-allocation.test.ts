/** Address allocation: stable, family-aware, independent of which hosts a run writes, keeping what hosts hold. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitStream } from '../../src/krm/index.js';
import { canonicalIp, formatIp, parseIp } from '../../src/model/ip.js';
import { fixture, run, testdata } from './test-support.js';

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
      if (m) out.set(m[1]! + '#' + /^ {2}name: (\S+)/m.exec(d)![1], d);
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
    const grown = splitStream(first.items).map((d) =>
      d.includes('name: host-catalogue') ? catalogue([host(0), host(1), host(2, true), host(3)]) : d,
    );
    const second = await run(
      [...grown.filter((d) => !d.includes('name: host-catalogue')), catalogue([host(0), host(1), host(2, true), host(3)])],
      spec,
    );
    expect(second.exitCode).toBe(0);
    const b = byFile(second.items);
    for (const [k, v] of a) expect(b.get(k), k).toBe(v);
    expect([...b.keys()].filter((k) => !a.has(k)).sort()).toEqual(['hosts/node00.yaml#node00', 'hosts/node00.yaml#node00-network-data']);
    // .12 is node02's (catalogue): node00 gets the next free one
    expect(b.get('hosts/node00.yaml#node00-network-data')).toContain('ip_address: 10.23.24.13\n');

    // remove node01 (holder of .10): only its items go, nobody is renumbered
    const third = await run(
      [...splitStream(second.items).filter((d) => !d.includes('name: host-catalogue')), catalogue([host(0), host(2, true), host(3)])],
      spec,
    );
    expect(third.exitCode).toBe(0);
    const c = byFile(third.items);
    for (const [k, v] of c) expect(v, k).toBe(b.get(k));
    expect([...b.keys()].filter((k) => !c.has(k)).sort()).toEqual(['hosts/node01.yaml#node01', 'hosts/node01.yaml#node01-network-data']);
  });

  it('never hands out the gateway, ironic or reserved addresses, nor duplicates', async () => {
    const base = fixture('function/airshipctl-base-catalogues/networking.yaml'); // ironic dhcpRange 10.23.25.200-250, provisioningIp .102
    const hosts = (n: number) =>
      Array.from(
        { length: n },
        (_, i) =>
          `    h${i}:\n      bootMode: UEFI\n      macAddress: 52:54:00:aa:01:0${i}\n      bmcAddress: ipmi://10.0.1.${i}\n      ipAddresses:\n        pxe-ipv4: 10.23.24.${i + 1}\n`,
      );
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
      fc.property(fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff })), { minLength: 8, maxLength: 8 }), (groups) => {
        const n = groups.reduce((a, g) => (a << 16n) + BigInt(g), 0n);
        const text = formatIp(n, 6);
        expect(text).toBe(new URL(`http://[${groups.map((g) => g.toString(16)).join(':')}]/`).hostname.slice(1, -1));
        expect(parseIp(text)).toEqual({ family: 6, n });
      }),
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
    const hostFam = await run(
      splitStream(input.replace('oam-ipv6: "fd00:23:25:0:0:0:0:10"', 'oam-ipv6: 10.23.25.9')),
      'ipam:\n  oam-ipv6: {cidr: "fd00:23:25::/64"}',
    );
    expect(hostFam.results.filter((r) => r.severity === 'error').map((r) => r.tags?.rule)).toEqual(['host/bad-ip']);
  });

  it('allocation in a /64 is stable: adding or removing a host touches only that host', async () => {
    const net = splitStream(readFileSync(join(testdata, 'allocate-ipv6/input.yaml'), 'utf8'))[0]!;
    const host = (n: number) =>
      `    node0${n}:\n      bootMode: UEFI\n      macAddress: 52:54:00:aa:00:0${n}\n      bmcAddress: redfish+https://10.23.1.${n}/redfish/v1/Systems/1\n      ipAddresses:\n        oam-ipv4: 10.23.25.10${n}\n`;
    const catalogue = (ns: number[]) =>
      `apiVersion: airshipit.org/v1alpha1\nkind: VariableCatalogue\nmetadata:\n  name: host-catalogue\nhosts:\n  m3:\n${ns.map(host).join('')}`;
    const spec = 'ipam:\n  oam-ipv6: {cidr: "fd00:23:25::/64", start: "fd00:23:25::ffff:fffe"}';
    const v6 = (items: string) =>
      Object.fromEntries([...items.matchAll(/name: (node\d+)-network-data[\s\S]*?ip_address: (fd00\S+)/g)].map((m) => [m[1], m[2]]));
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

describe('allocation depends on the catalogue only', () => {
  const oamNet =
    'apiVersion: airshipit.org/v1alpha1\nkind: NetworkCatalogue\nmetadata:\n  name: networking\nspec:\n  commonHostNetworking:\n    links:\n    - {id: oam, name: oam, type: phy, mtu: "1500"}\n    networks:\n    - id: oam-ipv4\n      type: ipv4\n      link: oam\n      netmask: 255.255.255.0\n      routes:\n      - {network: 0.0.0.0, netmask: 0.0.0.0, gateway: 10.23.25.1}\n    services: []\n';
  const hostsAB =
    'apiVersion: airshipit.org/v1alpha1\nkind: VariableCatalogue\nmetadata:\n  name: host-catalogue\nhosts:\n  m3:\n' +
    '    b:\n      bootMode: UEFI\n      macAddress: 52:54:00:00:00:12\n      bmcAddress: redfish+http://10.0.0.1/redfish/v1/Systems/b\n' +
    '    a:\n      bootMode: UEFI\n      macAddress: 52:54:00:00:00:11\n      bmcAddress: redfish+http://10.0.0.1/redfish/v1/Systems/a\n';
  const list = (names: string[]) =>
    `apiVersion: airshipit.org/v1alpha1\nkind: VariableCatalogue\nmetadata:\n  name: host-generation-catalogue\nhosts:\n  m3:\n${names.map((n) => `  - ${n}\n`).join('')}`;
  const ipam = 'ipam:\n  oam-ipv4: {cidr: 10.23.25.0/24}';
  const ips = (items: string) =>
    Object.fromEntries([...items.matchAll(/name: (\S+)-network-data[\s\S]*?ip_address: (\S+)/g)].map((m) => [m[1], m[2]]));

  it('lists [a] and [b] in separate runs (two phases) give different addresses, the same as one run of both', async () => {
    const a = await run([oamNet, hostsAB, list(['a'])], ipam);
    const b = await run([oamNet, hostsAB, list(['b'])], ipam);
    const both = await run([oamNet, hostsAB, list(['b', 'a'])], ipam);
    for (const r of [a, b, both]) expect(r.exitCode).toBe(0);
    expect(ips(a.items)).toEqual({ a: '10.23.25.2' });
    expect(ips(b.items)).toEqual({ b: '10.23.25.3' });
    expect(ips(both.items)).toEqual({ a: '10.23.25.2', b: '10.23.25.3' });
    // only the written host is reported as allocated
    expect(b.results.filter((r) => r.tags?.rule === 'ipam/allocated').map((r) => r.message)).toEqual([
      'host b: allocated 10.23.25.3 on network oam-ipv4 (recorded in b-network-data; copy it into the catalogue to pin it)',
    ]);
  });

  it('a new site: a host has the same address in host-inventory/ and in its phase folder', async () => {
    const hosts = hostsAB.replace(
      'hosts:\n  m3:\n',
      'hosts:\n  m3:\n    c:\n      bootMode: UEFI\n      macAddress: 52:54:00:00:00:13\n      bmcAddress: redfish+http://10.0.0.1/redfish/v1/Systems/c\n',
    );
    const spec = `${ipam}\nsite:\n  name: s\n  type: ../type/t\n  phases:\n  - {path: target/controlplane, hosts: controlPlane}\n  - {path: target/workers, hosts: [c]}`;
    const r = await run([oamNet, hosts], spec);
    expect(r.exitCode).toBe(0);
    const byPath = new Map<string, string>();
    for (const d of splitStream(r.items)) {
      const p = /config\.kubernetes\.io\/path: (\S+)/.exec(d)?.[1];
      const ip = /ip_address: (\S+)/.exec(d)?.[1];
      if (p && ip) byPath.set(p, ip);
    }
    expect(Object.fromEntries(byPath)).toEqual({
      'host-inventory/hosts/a.yaml': '10.23.25.2',
      'host-inventory/hosts/b.yaml': '10.23.25.3',
      'host-inventory/hosts/c.yaml': '10.23.25.4',
      'target/controlplane/hosts/a.yaml': '10.23.25.2',
      'target/workers/hosts/c.yaml': '10.23.25.4',
    });
  });
});

describe('addresses a host already holds are kept', () => {
  const base = fixture('function/airshipctl-base-catalogues/networking.yaml'); // controlPlaneEndpoint and provisioningIp 10.23.25.102, dhcpRange .200-.250
  const cat = (names: string[]) =>
    `apiVersion: airshipit.org/v1alpha1\nkind: VariableCatalogue\nmetadata:\n  name: host-catalogue\nhosts:\n  m3:\n${names
      .map(
        (n, i) =>
          `    ${n}:\n      bootMode: UEFI\n      macAddress: 52:54:00:00:01:0${i}\n      bmcAddress: ipmi://10.0.1.${i}\n      ipAddresses:\n        pxe-ipv4: 10.23.24.${i + 10}\n`,
      )
      .join('')}`;
  const recorded = (host: string, oam: string) =>
    `apiVersion: v1\nkind: Secret\nmetadata:\n  name: ${host}-network-data\n  namespace: target-infra\nstringData:\n  networkData: |\n    networks:\n    - id: oam-ipv4\n      ip_address: ${oam}\ntype: Opaque\n`;
  const spec = 'ipam:\n  oam-ipv4: {cidr: 10.23.25.0/24, start: 10.23.25.100, end: 10.23.25.110}';
  const oam = (items: string) =>
    Object.fromEntries([...items.matchAll(/name: (\S+)-network-data[\s\S]*?oam-ipv4[\s\S]*?ip_address: (\S+)/g)].map((m) => [m[1], m[2]]));

  it('a recorded address equal to the control-plane endpoint / ironic provisioningIp stays (airshipctl sets them to a host address)', async () => {
    const r = await run([base, cat(['node01', 'node02']), recorded('node01', '10.23.25.102')], spec);
    expect(r.results.filter((x) => x.severity !== 'info')).toEqual([]);
    expect(oam(r.items)).toEqual({ node01: '10.23.25.102', node02: '10.23.25.100' });
    // the reserved list still stops a new allocation
    const fresh = await run([base, cat(['node01', 'node02', 'node03', 'node04'])], spec);
    expect(Object.values(oam(fresh.items))).toEqual(['10.23.25.100', '10.23.25.101', '10.23.25.103', '10.23.25.104']);
  });

  it('a recorded address in spec.ipam reserved stays, with a warning', async () => {
    const r = await run([base, cat(['node01']), recorded('node01', '10.23.25.105')], `${spec.replace('}', ', reserved: [10.23.25.105]}')}`);
    expect(oam(r.items)).toEqual({ node01: '10.23.25.105' });
    expect(r.results.filter((x) => x.severity === 'warning').map((x) => x.tags?.rule)).toEqual(['ipam/kept-reserved']);
  });

  it('two hosts holding the same recorded address is an error naming both', async () => {
    const r = await run([base, cat(['node01', 'node02']), recorded('node01', '10.23.25.104'), recorded('node02', '10.23.25.104')], spec);
    expect(r.exitCode).toBe(1);
    expect(r.results.filter((x) => x.severity === 'error').map((x) => x.message)).toEqual([
      "host node02: address 10.23.25.104 on network oam-ipv4 (recorded in Secret node02-network-data) is also host node01's address; pin one of them with ipAddresses.oam-ipv4 in the catalogue, or delete the address from node02-network-data to allocate a new one",
    ]);
  });
});

describe('host names', () => {
  it('a catalogue host whose name is no DNS-1123 name is one error with a fix, and writes nothing of it', async () => {
    const net = fixture('type/gating/shared/catalogues/networking.yaml');
    for (const [name, fix] of [
      ['../../evil', 'evil'],
      ['a/b', 'a-b'],
      ['NODE01', 'node01'],
      ['node 02', 'node-02'],
    ]) {
      const cat = `apiVersion: airshipit.org/v1alpha1\nkind: VariableCatalogue\nmetadata:\n  name: host-catalogue\nhosts:\n  m3:\n    "${name}":\n      bootMode: UEFI\n      macAddress: 52:54:00:aa:00:01\n      bmcAddress: redfish+https://10.0.0.1/redfish/v1/Systems/1\n      ipAddresses:\n        oam-ipv4: 10.23.25.11\n`;
      const r = await run([net, cat], 'ipam:\n  pxe-ipv4: {cidr: 10.23.24.0/24, start: 10.23.24.10}');
      expect(r.exitCode, name).toBe(1);
      const errors = r.results.filter((x) => x.severity === 'error');
      expect(errors.map((e) => e.tags?.rule)).toEqual(['catalogue/bad-host-name']);
      expect(errors[0]!.message).toContain(`try "${fix}"`);
      expect(r.items).not.toContain('kind: BareMetalHost');
    }
  });

  it('a hand-written BareMetalHost of a host it generates is said (two objects of one identity), once', async () => {
    const net = fixture('type/gating/shared/catalogues/networking.yaml');
    const cat =
      'apiVersion: airshipit.org/v1alpha1\nkind: VariableCatalogue\nmetadata:\n  name: host-catalogue\nhosts:\n  m3:\n    node01:\n      bootMode: UEFI\n      macAddress: 52:54:00:aa:00:01\n      bmcAddress: redfish+https://10.0.0.1/redfish/v1/Systems/1\n      ipAddresses:\n        oam-ipv4: 10.23.25.11\n';
    const hand =
      'apiVersion: metal3.io/v1alpha1\nkind: BareMetalHost\nmetadata:\n  name: node01\n  namespace: target-infra\n  annotations:\n    config.kubernetes.io/path: hand/node01.yaml\nspec:\n  online: true\n';
    const spec = 'ipam:\n  pxe-ipv4: {cidr: 10.23.24.0/24, start: 10.23.24.10}';
    const r = await run([net, cat, hand], spec);
    const said = r.results.filter((x) => x.message.includes('two objects of one identity'));
    expect(said).toHaveLength(1);
    expect(said[0]!.severity).toBe('warning');
    expect(said[0]!.message).toMatch(
      /^BareMetalHost\/target-infra\/node01 is written by hand in hand\/node01\.yaml, and site-from-catalogue\S* generates it in hosts\/node01\.yaml too/,
    );
    // without the hand-written copy: nothing said
    expect((await run([net, cat], spec)).results.some((x) => x.message.includes('two objects of one identity'))).toBe(false);
  });
});
