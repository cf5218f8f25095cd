/**
 * Host hardware, normalised from Metal3 (`BareMetalHost` status.hardware, `HardwareData`
 * spec.hardware) or bmh-from-redfish's `HardwareInventory` spec, and the profile matchers:
 * Metal3 `HardwareClassification` with its controller's semantics, and our `HardwareProfile`.
 */
import { isRecord as isObj } from '../krm/index.js';
import { pushAll } from '../krm/index.js';

export interface HostDisk {
  name: string;
  sizeBytes?: number;
  rotational?: boolean;
  hctl?: string;
  type?: string;
}
export interface HostNic {
  name?: string;
  mac?: string;
  /** PCI vendor id (0x8086) or name */
  vendor?: string;
  speedGbps?: number;
}
export interface HostHardware {
  cpuCount?: number;
  cpuArch?: string;
  cpuMHz?: number;
  ramMiB?: number;
  disks: HostDisk[];
  nics: HostNic[];
  manufacturer?: string;
  productName?: string;
  biosVendor?: string;
  biosVersion?: string;
  bootMode?: string;
}

type Obj = Record<string, unknown>;
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

export function hostHardware(data: unknown, kind: 'metal3' | 'inventory'): HostHardware {
  const d = isObj(data) ? data : {};
  if (kind === 'metal3') {
    const cpu = isObj(d.cpu) ? d.cpu : {};
    const sv = isObj(d.systemVendor) ? d.systemVendor : {};
    const bios = isObj(d.firmware) && isObj(d.firmware.bios) ? d.firmware.bios : {};
    return {
      cpuCount: num(cpu.count),
      cpuArch: str(cpu.arch),
      cpuMHz: num(cpu.clockMegahertz),
      ramMiB: num(d.ramMebibytes),
      disks: arr(d.storage).map((s) => ({
        name: str(s.name) ?? '?',
        sizeBytes: num(s.sizeBytes),
        rotational: typeof s.rotational === 'boolean' ? s.rotational : undefined,
        hctl: str(s.hctl),
        type: str(s.type),
      })),
      nics: arr(d.nics).map((n) => ({
        name: str(n.name),
        mac: str(n.mac),
        vendor: str(n.model)?.split(/\s+/)[0],
        speedGbps: num(n.speedGbps),
      })),
      manufacturer: str(sv.manufacturer),
      productName: str(sv.productName),
      biosVendor: str(bios.vendor),
      biosVersion: str(bios.version),
    };
  }
  const cpu = isObj(d.cpu) ? d.cpu : {};
  const sys = isObj(d.system) ? d.system : {};
  return {
    cpuCount: num(cpu.threads) ?? num(cpu.cores),
    cpuArch: str(cpu.architecture),
    cpuMHz: num(cpu.maxSpeedMHz),
    ramMiB: num(d.memoryMiB),
    disks: arr(d.disks).map((s) => ({
      name: str(s.name) ?? '?',
      sizeBytes: num(s.sizeBytes),
      rotational: typeof s.rotational === 'boolean' ? s.rotational : s.type === 'HDD' ? true : s.type ? false : undefined,
      type: str(s.type),
    })),
    nics: arr(d.nics).map((n) => ({
      name: str(n.id),
      mac: str(n.mac),
      vendor: str(n.vendor),
      speedGbps: num(n.speedMbps) !== undefined ? num(n.speedMbps)! / 1000 : undefined,
    })),
    manufacturer: str(sys.manufacturer),
    productName: str(sys.model),
    biosVendor: undefined,
    biosVersion: str(sys.biosVersion),
    bootMode: str(d.bootMode),
  };
}

/**
 * A BareMetalHost annotation that carries the host's discovered hardware into a rendered folder
 * (`baremetal-krm render` writes it from the HardwareInventory it drops as local-config), as
 * JSON in Metal3's HardwareDetails shape (`BareMetalHost.status.hardware`), read like it.
 */
export const HARDWARE_ANNOTATION = 'baremetal-krm.dev/hardware';

/** HostHardware in Metal3's HardwareDetails shape (only what is known): `hostHardware(x, 'metal3')` reads it back. */
export function hardwareDetails(hw: HostHardware): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const def = <T>(o: Record<string, unknown>, k: string, v: T | undefined): void => {
    if (v !== undefined) o[k] = v;
  };
  const vendor: Record<string, unknown> = {};
  def(vendor, 'manufacturer', hw.manufacturer);
  def(vendor, 'productName', hw.productName);
  if (Object.keys(vendor).length) out.systemVendor = vendor;
  if (hw.biosVendor !== undefined || hw.biosVersion !== undefined) {
    const bios: Record<string, unknown> = {};
    def(bios, 'vendor', hw.biosVendor);
    def(bios, 'version', hw.biosVersion);
    out.firmware = { bios };
  }
  const cpu: Record<string, unknown> = {};
  def(cpu, 'arch', hw.cpuArch);
  def(cpu, 'count', hw.cpuCount);
  def(cpu, 'clockMegahertz', hw.cpuMHz);
  if (Object.keys(cpu).length) out.cpu = cpu;
  def(out, 'ramMebibytes', hw.ramMiB);
  out.storage = hw.disks.map((d) => {
    const o: Record<string, unknown> = { name: d.name };
    def(o, 'sizeBytes', d.sizeBytes);
    def(o, 'rotational', d.rotational);
    def(o, 'hctl', d.hctl);
    def(o, 'type', d.type);
    return o;
  });
  out.nics = hw.nics.map((n) => {
    const o: Record<string, unknown> = {};
    def(o, 'name', n.name);
    def(o, 'mac', n.mac);
    def(o, 'model', n.vendor);
    def(o, 'speedGbps', n.speedGbps);
    return o;
  });
  return out;
}

/** Inclusive range where 0 (or absent) means no bound, as in the HWCC controller. */
function inRange(v: number, min: unknown, max: unknown): boolean {
  const lo = num(min) ?? 0;
  const hi = num(max) ?? 0;
  return (lo <= 0 || v >= lo) && (hi <= 0 || v <= hi);
}
function rangeText(min: unknown, max: unknown, unit = ''): string {
  const lo = num(min) ?? 0;
  const hi = num(max) ?? 0;
  if (lo > 0 && hi > 0) return `${lo}..${hi}${unit}`;
  if (lo > 0) return `>= ${lo}${unit}`;
  return `<= ${hi}${unit}`;
}
const hasBound = (min: unknown, max: unknown): boolean => (num(min) ?? 0) > 0 || (num(max) ?? 0) > 0;
const gb = (bytes: number): number => Math.round((bytes / 1e9) * 10) / 10;

/**
 * The controller's `validatePattern` (classifier/disk.go): a host disk's hctl with every numeric
 * field > 0 written `N`, and `0:0:0:0` as `0:0:N:0`. A missing hctl is "".
 */
function hctlPattern(hctl: string | undefined): string {
  const h = hctl ?? '';
  if (h === '0:0:0:0') return '0:0:N:0';
  return h
    .split(':')
    .map((f) => (/^\d+$/.test(f) && Number(f) > 0 ? 'N' : f))
    .join(':');
}
/** The controller's `validateExpectedPattern`: `0:0:0:0` is `0:0:N:0`, anything else as written. */
function hctlExpected(pattern: string | undefined): string {
  const p = pattern ?? '';
  return p === '0:0:0:0' ? '0:0:N:0' : p;
}

/** Every failing constraint of a HardwareClassification's hardwareCharacteristics, wanted vs found. */
export function matchClassification(hc: unknown, hw: HostHardware): string[] {
  const c = isObj(hc) ? hc : {};
  const out: string[] = [];
  const cpu = isObj(c.cpu) ? c.cpu : undefined;
  if (cpu) {
    if (str(cpu.architecture) && cpu.architecture !== hw.cpuArch)
      out.push(`cpu.architecture: wanted ${String(cpu.architecture)}, found ${hw.cpuArch ?? 'unknown'}`);
    if (
      hasBound(cpu.minimumCount, cpu.maximumCount) &&
      (hw.cpuCount === undefined || !inRange(hw.cpuCount, cpu.minimumCount, cpu.maximumCount))
    )
      out.push(`cpu count: wanted ${rangeText(cpu.minimumCount, cpu.maximumCount)}, found ${hw.cpuCount ?? 'unknown'}`);
    if (
      hasBound(cpu.minimumSpeedMHz, cpu.maximumSpeedMHz) &&
      (hw.cpuMHz === undefined || !inRange(hw.cpuMHz, cpu.minimumSpeedMHz, cpu.maximumSpeedMHz))
    )
      out.push(
        `cpu speed: wanted ${rangeText(cpu.minimumSpeedMHz, cpu.maximumSpeedMHz, ' MHz')}, found ${hw.cpuMHz !== undefined ? hw.cpuMHz + ' MHz' : 'unknown'}`,
      );
  }
  const ram = isObj(c.ram) ? c.ram : undefined;
  if (ram && hasBound(ram.minimumSizeGB, ram.maximumSizeGB)) {
    const lo = (num(ram.minimumSizeGB) ?? 0) * 1024;
    const hi = (num(ram.maximumSizeGB) ?? 0) * 1024;
    if (hw.ramMiB === undefined || !inRange(hw.ramMiB, lo, hi))
      out.push(
        `ram: wanted ${rangeText(ram.minimumSizeGB, ram.maximumSizeGB, ' GB')} (x1024 MiB), found ${hw.ramMiB !== undefined ? hw.ramMiB + ' MiB' : 'unknown'}`,
      );
  }
  const disk = isObj(c.disk) ? c.disk : undefined;
  if (disk) {
    const selectors = arr(disk.diskSelector);
    // as the controller: every selector must match at least one disk (hctl pattern and rotational,
    // a missing rotational being false on both sides); the matched disks then stand for the host's
    let disks = hw.disks;
    if (selectors.length) {
      const matched: HostDisk[] = [];
      selectors.forEach((sel, i) => {
        const want = hctlExpected(str(sel.hctl));
        const rot = sel.rotational === true;
        const hits = hw.disks.filter((d) => hctlPattern(d.hctl) === want && (d.rotational === true) === rot);
        if (hits.length === 0)
          out.push(
            `disk.diskSelector[${i}] (hctl "${str(sel.hctl) ?? ''}", rotational ${rot}): no disk matches (host disks: ${hw.disks.map((d) => `${d.name} hctl ${d.hctl ?? 'unknown'} (pattern "${hctlPattern(d.hctl)}") rotational ${d.rotational === true}`).join(', ') || 'none'})`,
          );
        pushAll(matched, hits);
      });
      if (matched.length > 0) disks = matched;
    }
    const what = selectors.length ? 'disks matching diskSelector' : 'disks';
    if (hasBound(disk.minimumCount, disk.maximumCount) && !inRange(disks.length, disk.minimumCount, disk.maximumCount))
      out.push(`${what}: wanted ${rangeText(disk.minimumCount, disk.maximumCount)}, found ${disks.length}`);
    if (hasBound(disk.minimumIndividualSizeGB, disk.maximumIndividualSizeGB)) {
      const lo = (num(disk.minimumIndividualSizeGB) ?? 0) * 1e9;
      const hi = (num(disk.maximumIndividualSizeGB) ?? 0) * 1e9;
      for (const d of disks)
        if (d.sizeBytes === undefined || !inRange(d.sizeBytes, lo, hi))
          out.push(
            `disk ${d.name} size: wanted ${rangeText(disk.minimumIndividualSizeGB, disk.maximumIndividualSizeGB, ' GB')} (x10^9 bytes), found ${d.sizeBytes !== undefined ? gb(d.sizeBytes) + ' GB' : 'unknown'}`,
          );
    }
  }
  const nic = isObj(c.nic) ? c.nic : undefined;
  if (nic) {
    // as the controller: the count range is over every NIC; each listed vendor (exact) must be the
    // vendor (first word of the model) of some NIC, and there are at least as many NICs as vendors
    const vendors =
      isObj(nic.nicSelector) && Array.isArray(nic.nicSelector.vendor) ? (nic.nicSelector.vendor as unknown[]).map((v) => String(v)) : [];
    const hostVendors = [...new Set(hw.nics.map((n) => n.vendor ?? '?'))].sort();
    if (hasBound(nic.minimumCount, nic.maximumCount) && !inRange(hw.nics.length, nic.minimumCount, nic.maximumCount))
      out.push(`NICs: wanted ${rangeText(nic.minimumCount, nic.maximumCount)}, found ${hw.nics.length}`);
    if (vendors.length) {
      const missing = vendors.filter((v) => !hw.nics.some((n) => n.vendor === v));
      if (missing.length)
        out.push(`nic.nicSelector.vendor: wanted a NIC of vendor ${missing.join(', ')}, found vendors ${hostVendors.join(', ') || 'none'}`);
      else if (hw.nics.length < vendors.length)
        out.push(`nic.nicSelector.vendor: wanted at least ${vendors.length} NICs (one per listed vendor), found ${hw.nics.length}`);
    }
  }
  const sv = isObj(c.systemVendor) ? c.systemVendor : undefined;
  if (sv) {
    if (str(sv.manufacturer) && sv.manufacturer !== hw.manufacturer)
      out.push(`systemVendor.manufacturer: wanted ${String(sv.manufacturer)}, found ${hw.manufacturer ?? 'unknown'}`);
    if (str(sv.productName) && sv.productName !== hw.productName)
      out.push(`systemVendor.productName: wanted ${String(sv.productName)}, found ${hw.productName ?? 'unknown'}`);
  }
  const bios = isObj(c.firmware) && isObj(c.firmware.bios) ? c.firmware.bios : undefined;
  if (bios && str(bios.vendor) && bios.vendor !== hw.biosVendor)
    out.push(`firmware.bios.vendor: wanted ${String(bios.vendor)}, found ${hw.biosVendor ?? 'unknown'}`);
  // newer CRD: exact version; the older majorVersion/minorVersion are not checked (as the controller)
  if (bios && str(bios.version) && bios.version !== hw.biosVersion)
    out.push(`firmware.bios.version: wanted ${String(bios.version)}, found ${hw.biosVersion ?? 'unknown'}`);
  return out;
}

/** Every failing constraint of a HardwareProfile spec (baremetal-krm.dev/v1alpha1). */
export function matchProfile(spec: unknown, hw: HostHardware): string[] {
  const s = isObj(spec) ? spec : {};
  const out: string[] = [];
  const cpu = isObj(s.cpu) ? s.cpu : undefined;
  if (cpu) {
    if (str(cpu.architecture) && cpu.architecture !== hw.cpuArch)
      out.push(`cpu.architecture: wanted ${String(cpu.architecture)}, found ${hw.cpuArch ?? 'unknown'}`);
    if (num(cpu.minCount) !== undefined && (hw.cpuCount ?? -1) < num(cpu.minCount)!)
      out.push(`cpu.minCount: wanted >= ${String(cpu.minCount)} threads, found ${hw.cpuCount ?? 'unknown'}`);
    if (num(cpu.maxCount) !== undefined && hw.cpuCount !== undefined && hw.cpuCount > num(cpu.maxCount)!)
      out.push(`cpu.maxCount: wanted <= ${String(cpu.maxCount)} threads, found ${hw.cpuCount}`);
  }
  const mem = isObj(s.memory) ? s.memory : undefined;
  if (mem) {
    if (num(mem.minGiB) !== undefined && (hw.ramMiB ?? -1) < num(mem.minGiB)! * 1024)
      out.push(
        `memory.minGiB: wanted >= ${String(mem.minGiB)} GiB, found ${hw.ramMiB !== undefined ? Math.round((hw.ramMiB / 1024) * 10) / 10 + ' GiB' : 'unknown'}`,
      );
    if (num(mem.maxGiB) !== undefined && hw.ramMiB !== undefined && hw.ramMiB > num(mem.maxGiB)! * 1024)
      out.push(`memory.maxGiB: wanted <= ${String(mem.maxGiB)} GiB, found ${Math.round((hw.ramMiB / 1024) * 10) / 10} GiB`);
  }
  const disks = Array.isArray(s.disks) ? s.disks.filter(isObj) : [];
  disks.forEach((want, i) => {
    const ok = hw.disks.filter(
      (d) =>
        (!str(want.type) || d.type === want.type) &&
        (typeof want.rotational !== 'boolean' || d.rotational === want.rotational) &&
        (num(want.minSizeGB) === undefined || (d.sizeBytes ?? 0) >= num(want.minSizeGB)! * 1e9),
    );
    const need = num(want.count) ?? 1;
    if (ok.length < need) {
      const desc = [
        str(want.type),
        typeof want.rotational === 'boolean' ? (want.rotational ? 'rotational' : 'non-rotational') : undefined,
        num(want.minSizeGB) !== undefined ? `>= ${String(want.minSizeGB)} GB` : undefined,
      ]
        .filter(Boolean)
        .join(' ');
      const found = hw.disks
        .map((d) => `${d.name} ${d.type ?? (d.rotational ? 'HDD' : '?')} ${d.sizeBytes !== undefined ? gb(d.sizeBytes) + ' GB' : '?'}`)
        .join(', ');
      out.push(`disks[${i}]: wanted ${need} disk(s) ${desc || 'of any kind'}, found ${ok.length} (host disks: ${found || 'none'})`);
    }
  });
  const nics = isObj(s.nics) ? s.nics : undefined;
  if (nics) {
    const ok = hw.nics.filter(
      (n) =>
        (num(nics.minSpeedGbps) === undefined || (n.speedGbps ?? 0) >= num(nics.minSpeedGbps)!) &&
        (!str(nics.vendor) || (n.vendor ?? '').toLowerCase() === String(nics.vendor).toLowerCase()),
    );
    const need = num(nics.minCount) ?? 1;
    if (ok.length < need)
      out.push(
        `nics: wanted >= ${need} NIC(s)${num(nics.minSpeedGbps) !== undefined ? ` of >= ${String(nics.minSpeedGbps)} Gbps` : ''}${str(nics.vendor) ? ` from ${String(nics.vendor)}` : ''}, found ${ok.length} (host NICs: ${hw.nics.map((n) => `${n.name ?? n.mac ?? '?'}${n.speedGbps !== undefined ? ' ' + n.speedGbps + ' Gbps' : ''}`).join(', ') || 'none'})`,
      );
  }
  const sys = isObj(s.system) ? s.system : undefined;
  if (sys) {
    if (str(sys.manufacturer) && sys.manufacturer !== hw.manufacturer)
      out.push(`system.manufacturer: wanted ${String(sys.manufacturer)}, found ${hw.manufacturer ?? 'unknown'}`);
    if (str(sys.model) && sys.model !== hw.productName)
      out.push(`system.model: wanted ${String(sys.model)}, found ${hw.productName ?? 'unknown'}`);
  }
  if (str(s.bootMode) && s.bootMode !== hw.bootMode) out.push(`bootMode: wanted ${String(s.bootMode)}, found ${hw.bootMode ?? 'unknown'}`);
  return out;
}
