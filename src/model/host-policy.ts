/**
 * Which NIC a host boots from and which disk it installs to, decided from a HardwareInventory
 * (src/model/hardware-inventory.ts). One policy for every generator: bmh-from-redfish writes it
 * into BareMetalHosts, site-from-catalogue into hosts made from inventories.
 */
import type { InventoryDisk, InventoryNic } from './hardware-inventory.js';

/** Orders "NIC.Slot.2" before "NIC.Slot.10": digit runs compare as numbers. */
export function naturalCompare(a: string, b: string): number {
  const ra = a.split(/(\d+)/);
  const rb = b.split(/(\d+)/);
  for (let i = 0; i < Math.min(ra.length, rb.length); i++) {
    const x = ra[i]!;
    const y = rb[i]!;
    if (x === y) continue;
    if (i % 2 === 1) {
      const d = Number(x) - Number(y);
      if (d !== 0) return d;
    }
    return x < y ? -1 : 1;
  }
  return ra.length - rb.length;
}

const GiB = 2 ** 30;

export interface BootMacChoice {
  mac?: string;
  why: string;
  /** which rule chose: the first network boot device, the fallback (first enabled physical NIC), or none */
  rule: 'network-boot' | 'first-physical' | 'none';
}

/** The boot MAC policy (see README): BootOptions / BIOS network boot NIC first, else the first enabled physical NIC. */
export function chooseBootMac(nics: InventoryNic[]): BootMacChoice {
  const count = new Map<string, number>();
  for (const n of nics) count.set(n.mac, (count.get(n.mac) ?? 0) + 1);
  const physical = nics
    // unicast only: a multicast address (low bit of the first octet set) is no NIC's own MAC
    .filter((n) => !n.type && /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/.test(n.mac) && (parseInt(n.mac.slice(0, 2), 16) & 1) === 0)
    .filter((n) => (count.get(n.mac) ?? 0) === 1 || nics.filter((m) => m.mac === n.mac && !m.type).length === 1)
    .sort((a, b) => naturalCompare(a.id, b.id));
  const boot = physical
    .filter((n) => n.pxe || n.httpBoot)
    .sort((a, b) => (a.bootPriority ?? 1e9) - (b.bootPriority ?? 1e9) || naturalCompare(a.id, b.id));
  if (boot[0]) {
    const n = boot[0];
    return { mac: n.mac, why: `NIC ${n.id} is the first network boot device (${n.pxe ? 'PXE' : 'UEFI HTTP'} boot)`, rule: 'network-boot' };
  }
  const enabled = physical.find((n) => n.enabled !== false);
  if (enabled)
    return {
      mac: enabled.mac,
      why: `no network boot device is known; NIC ${enabled.id} is the first enabled physical NIC`,
      rule: 'first-physical',
    };
  return { why: 'no physical NIC with a unicast, unique MAC address was found', rule: 'none' };
}

export interface RootChoice {
  hints?: Record<string, string>;
  disk?: InventoryDisk;
  warning?: string;
}

/** The root disk policy: smallest non-rotational disk >= minGiB (not a RAID member), hinted by serial, else WWN. */
export function chooseRootDisk(disks: InventoryDisk[], minGiB: number): RootChoice {
  const big = disks.filter((d) => !d.raidMember && d.sizeBytes !== undefined && d.sizeBytes >= minGiB * GiB);
  const bySize = (a: InventoryDisk, b: InventoryDisk) => a.sizeBytes! - b.sizeBytes! || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const solid = big.filter((d) => d.rotational === false).sort(bySize);
  let disk = solid[0];
  let warning: string | undefined;
  if (!disk) {
    disk = [...big].sort(bySize)[0];
    if (!disk)
      return {
        warning: `no disk of at least ${minGiB} GiB with a known size; no rootDeviceHints (set rootDeviceMinGiB lower or add hints by hand)`,
      };
    warning = `no non-rotational disk of at least ${minGiB} GiB; chose the smallest disk ${disk.name} (${disk.type ?? 'type unknown'})`;
  }
  const serials = disks.filter((d) => d.serialNumber && d.serialNumber === disk.serialNumber).length;
  const wwns = disks.filter((d) => d.wwn && d.wwn === disk.wwn).length;
  if (disk.serialNumber && serials === 1) return { disk, hints: { serialNumber: disk.serialNumber }, warning };
  if (disk.wwn && wwns === 1) return { disk, hints: { wwn: disk.wwn }, warning };
  const none = `root disk ${disk.name} has no unique serial number or WWN; no rootDeviceHints (Ironic picks the smallest disk >= 4 GiB)`;
  return { disk, warning: warning ? `${warning}; ${none}` : none };
}
