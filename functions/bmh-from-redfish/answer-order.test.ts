/** normalizeSystem and the host policy do not depend on the order the BMC answered in. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/golden.js';
import { normalizeSystem, type RawSystem } from '../../src/redfish/normalize.js';
import { chooseBootMac, chooseRootDisk } from '../../src/model/host-policy.js';

type Json = Record<string, unknown>;
const bmc = { address: 'https://h', systemPath: '/redfish/v1/Systems/1' };
const raw = (r: Partial<RawSystem>): RawSystem => ({
  path: bmc.systemPath,
  system: { Boot: {} },
  processors: [],
  ethernet: [],
  drives: [],
  simpleStorage: [],
  bootOptions: [],
  missing: [],
  ...r,
});
const EI = join(repoRoot, '../shared/fixtures/redfish/dmtf-public-rackmount1/redfish/v1/Systems/437XR1138R2/EthernetInterfaces');
const nic = (id: string) => JSON.parse(readFileSync(join(EI, id, 'index.json'), 'utf8')) as Json;

describe('NICs: physical or virtual from the interface itself, not from the order', () => {
  const ids = ['12446A3B0411', '12446A3B8890', 'ToManager', 'VLAN1'];
  const orders = [ids, ['VLAN1', '12446A3B0411', '12446A3B8890', 'ToManager'], [...ids].reverse()];
  it.each(orders.map((o) => [o.join(',')]))('DMTF rackmount, VLAN copy of the boot NIC in any position: %s', (order) => {
    const inv = normalizeSystem(raw({ ethernet: order.split(',').map(nic) }), bmc).inventory;
    expect(inv.nics.map((n) => `${n.id}:${n.type ?? 'physical'}:${n.mac}`)).toEqual([
      '12446A3B0411:physical:12:44:6a:3b:04:11',
      '12446A3B8890:virtual:aa:bb:cc:dd:ee:00',
      'ToManager:host-interface:aa:bb:cc:dd:ee:fe',
      'VLAN1:virtual:12:44:6a:3b:04:11',
    ]);
    expect(chooseBootMac(inv.nics).mac).toBe('12:44:6a:3b:04:11');
  });

  it('two physical NICs sharing a MAC: both stay physical, and the policy never chooses that MAC', () => {
    const eth = [
      { Id: 'NIC1', MACAddress: '52:54:00:00:00:01' },
      { Id: 'NIC2', MACAddress: '52:54:00:00:00:01' },
      { Id: 'NIC3', MACAddress: '52:54:00:00:00:03' },
    ];
    for (const order of [eth, [...eth].reverse()]) {
      const inv = normalizeSystem(raw({ ethernet: order }), bmc).inventory;
      expect(inv.nics.map((n) => n.type ?? 'physical')).toEqual(['physical', 'physical', 'physical']);
      expect(chooseBootMac(inv.nics)).toEqual({
        mac: '52:54:00:00:00:03',
        why: 'no network boot device is known; NIC NIC3 is the first enabled physical NIC',
        rule: 'first-physical',
      });
    }
  });

  it('host policy: a shared MAC is not chosen even as the first network boot device; a VLAN copy does not make it shared', () => {
    const shared = [
      { id: 'NIC1', mac: '52:54:00:00:00:01', pxe: true, bootPriority: 0 },
      { id: 'NIC2', mac: '52:54:00:00:00:01' },
      { id: 'NIC3', mac: '52:54:00:00:00:03', pxe: true, bootPriority: 1 },
    ];
    expect(chooseBootMac(shared).mac).toBe('52:54:00:00:00:03');
    expect(chooseBootMac([shared[0]!, shared[1]!]).mac).toBeUndefined();
    expect(chooseBootMac([shared[0]!, { ...shared[1]!, type: 'virtual' as const }]).mac).toBe('52:54:00:00:00:01');
  });
});

describe('disks: the same output whatever order the drives answered in', () => {
  const d = (ctl: string, serial: string, extra: Json = {}) => ({
    path: `/redfish/v1/Systems/1/Storage/${ctl}/Drives/0`,
    controllerProtocols: [],
    drive: { Id: '0', MediaType: 'SSD', CapacityBytes: 480e9, SerialNumber: serial, ...extra },
  });
  it('two controllers each with drive "0", answering in both orders: same disks, same root disk hint', () => {
    const a = normalizeSystem(raw({ drives: [d('RAID1', 'SER-A'), d('RAID2', 'SER-B')] }), bmc).inventory;
    const b = normalizeSystem(raw({ drives: [d('RAID2', 'SER-B'), d('RAID1', 'SER-A')] }), bmc).inventory;
    expect(b.disks).toEqual(a.disks);
    expect(a.disks.map((x) => x.serialNumber)).toEqual(['SER-A', 'SER-B']);
    expect(chooseRootDisk(b.disks, 20).hints).toEqual({ serialNumber: 'SER-A' });
    expect(chooseRootDisk(a.disks, 20).hints).toEqual({ serialNumber: 'SER-A' });
  });
  it('and the smaller disk still wins over the path order', () => {
    const drives = [d('RAID1', 'SER-A'), d('RAID2', 'SER-B', { CapacityBytes: 240e9 })];
    for (const order of [drives, [...drives].reverse()])
      expect(chooseRootDisk(normalizeSystem(raw({ drives: order }), bmc).inventory.disks, 20).hints).toEqual({ serialNumber: 'SER-B' });
  });
});
