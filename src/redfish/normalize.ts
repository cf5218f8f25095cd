/**
 * Raw Redfish JSON of one System -> a `HardwareInventorySpec`: trimmed strings, lowercase
 * MACs, sorted lists, no power state, health, timestamps or ETags, so that discovering the
 * same hardware twice gives the same bytes. Pure: no I/O.
 */
import type { HardwareInventorySpec, InventoryDisk, InventoryNic } from '../model/hardware-inventory.js';

type Json = Record<string, unknown>;

export interface RawSystem {
  path: string;
  system: Json;
  processors: Json[];
  ethernet: Json[];
  drives: { path: string; drive: Json; controllerProtocols: string[] }[];
  simpleStorage: Json[];
  bootOptions: Json[];
  bios?: Json;
  missing: string[];
}

function str(v: unknown): string | undefined {
  if (typeof v !== 'string' && typeof v !== 'number') return undefined;
  const s = String(v).replace(/\s+/g, ' ').trim();
  return s ? s : undefined;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

const MAC_RE = /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$/i;

/** `AA-BB-..`, `aabbccddeeff` -> `aa:bb:cc:dd:ee:ff`; undefined for anything else or all zeros. */
export function normalizeMac(v: unknown): string | undefined {
  const s = str(v);
  if (!s) return undefined;
  let hex: string;
  if (MAC_RE.test(s)) hex = s.replace(/[:-]/g, '');
  else if (/^[0-9a-f]{12}$/i.test(s)) hex = s;
  else return undefined;
  hex = hex.toLowerCase();
  if (/^0+$/.test(hex) || /^f+$/.test(hex)) return undefined;
  return hex.match(/../g)!.join(':');
}

function state(o: Json): string | undefined {
  const st = o.Status as Json | undefined;
  return st && typeof st === 'object' ? str(st.State) : undefined;
}

function lastSegment(path: string): string {
  return decodeURIComponent(path.split('/').pop() ?? path);
}

function arch(p: Json): string | undefined {
  const is = str(p.InstructionSet);
  const pa = str(p.ProcessorArchitecture);
  if (is === 'x86-64') return 'x86_64';
  if (is === 'ARM-A64') return 'aarch64';
  if (is === 'PowerISA') return 'ppc64le';
  if (is === 'x86') return 'i686';
  if (pa === 'ARM') return 'aarch64';
  if (pa === 'x86') return 'x86_64';
  return undefined;
}

function wwnOf(d: Json): string | undefined {
  const ids = Array.isArray(d.Identifiers) ? (d.Identifiers as Json[]) : [];
  for (const fmt of ['NAA', 'EUI', 'NGUID', 'iQN']) {
    for (const i of ids) {
      if (!i || str(i.DurableNameFormat) !== fmt) continue;
      const v = str(i.DurableName);
      if (!v) continue;
      const hex = v
        .replace(/^0x/i, '')
        .replace(/[:\-\s]/g, '')
        .toLowerCase();
      if (/^[0-9a-f]+$/.test(hex) && !/^0+$/.test(hex)) return '0x' + hex;
    }
  }
  return undefined;
}

function diskFrom(path: string, d: Json, controllerProtocols: string[], raidPeers: Map<string, number>): InventoryDisk | undefined {
  if (state(d) === 'Absent') return undefined;
  const media = str(d.MediaType);
  const protocol = str(d.Protocol);
  const rpm = num(d.RotationSpeedRPM);
  let type: InventoryDisk['type'];
  if (media === 'HDD' || (rpm !== undefined && rpm > 0)) type = 'HDD';
  else if (protocol === 'NVMe' || ((media === 'SSD' || media === undefined) && protocol === 'PCIe')) type = 'NVME';
  else if (media === 'SSD') type = 'SSD';
  else if (!media && !protocol && controllerProtocols.length === 1 && controllerProtocols[0] === 'NVMe') type = 'NVME';
  const disk: InventoryDisk = { name: str(d.Id) ?? lastSegment(path) };
  const size = num(d.CapacityBytes);
  if (size !== undefined && size > 0) disk.sizeBytes = size;
  if (type) {
    disk.type = type;
    disk.rotational = type === 'HDD';
  }
  const serial = str(d.SerialNumber);
  if (serial) disk.serialNumber = serial;
  const wwn = wwnOf(d);
  if (wwn) disk.wwn = wwn;
  const model = str(d.Model);
  if (model) disk.model = model;
  const vendor = str(d.Manufacturer);
  if (vendor) disk.vendor = vendor;
  const vols = ((d.Links as Json | undefined)?.Volumes ?? []) as Json[];
  if (Array.isArray(vols) && vols.some((v) => (raidPeers.get(String(v?.['@odata.id'] ?? '').replace(/\/$/, '')) ?? 0) > 1))
    disk.raidMember = true;
  return disk;
}

interface BootHint {
  mac?: string;
  nicId?: string;
  pxe: boolean;
  http: boolean;
  priority: number;
}

/**
 * The NIC a BootOption boots from, when it is a network boot option that names one: the MAC in
 * its `UefiDevicePath` (`MAC(...)`) or DisplayName, or (Dell, "HTTP Device 1: ...") the BIOS
 * `HttpDev1Interface` / `PxeDev1Interface`. Undefined for disks, shells and unnamed NICs.
 */
export function bootOptionNic(o: Json, biosAttributes: Json | undefined): { mac?: string; nicId?: string; http: boolean } | undefined {
  const path = str(o.UefiDevicePath) ?? '';
  const name = str(o.DisplayName) ?? '';
  const isNet = /MAC\(|IPv4\(|IPv6\(|Uri\(/.test(path) || /\b(PXE|HTTP)\b/i.test(name);
  if (!isNet) return undefined;
  const http = /Uri\(/.test(path) || /\bHTTP/i.test(name);
  const mac =
    normalizeMac(/MAC\(([0-9A-Fa-f]{12})/.exec(path)?.[1]) ??
    normalizeMac(/\b([0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5})\b/.exec(name)?.[1]) ??
    normalizeMac(/(?:^|[\s-])([0-9A-Fa-f]{12})(?:$|\s)/.exec(name)?.[1]);
  if (mac) return { mac, http };
  // Dell: "HTTP Device 1: ..." / "PXE Device 1: ..." point at the BIOS HttpDev1Interface / PxeDev1Interface
  const m = /^(HTTP|PXE) Device (\d+)/i.exec(name);
  if (!m) return undefined;
  const nicId = str(biosAttributes?.[`${m[1]!.toUpperCase() === 'HTTP' ? 'HttpDev' : 'PxeDev'}${m[2]}Interface`]);
  return nicId ? { nicId, http } : undefined;
}

function bootHints(raw: RawSystem): BootHint[] {
  const order = ((raw.system.Boot as Json | undefined)?.BootOrder ?? []) as unknown[];
  const pos = new Map<string, number>();
  if (Array.isArray(order)) order.forEach((r, i) => typeof r === 'string' && !pos.has(r) && pos.set(r, i));
  const hints: BootHint[] = [];
  const biosAttributes = raw.bios?.Attributes as Json | undefined;
  for (const o of raw.bootOptions) {
    const nic = bootOptionNic(o, biosAttributes);
    if (!nic) continue;
    const ref = str(o.BootOptionReference) ?? str(o.Id) ?? '';
    const priority = pos.get(ref) ?? 10_000;
    hints.push({ ...nic, pxe: !nic.http, priority });
  }
  // Dell BIOS: enabled PxeDevN / HttpDevN name the NIC even without a BootOption
  const attrs = (raw.bios?.Attributes ?? {}) as Json;
  for (const [k, v] of Object.entries(attrs)) {
    const m = /^(PxeDev|HttpDev)(\d+)EnDis$/.exec(k);
    if (!m || v !== 'Enabled') continue;
    const nicId = str(attrs[`${m[1]}${m[2]}Interface`]);
    if (nicId) hints.push({ nicId, pxe: m[1] === 'PxeDev', http: m[1] === 'HttpDev', priority: 5_000 + Number(m[2]) });
  }
  return hints;
}

function nicType(e: Json): 'physical' | 'virtual' | 'host-interface' {
  const links = (e.Links ?? {}) as Json;
  if (links.HostInterface || str(e.Id) === 'ToManager') return 'host-interface';
  if (
    str(e.EthernetInterfaceType) === 'Virtual' ||
    (Array.isArray(links.RelatedInterfaces) && links.RelatedInterfaces.length > 0) ||
    (e.VLAN && (e.VLAN as Json).VLANEnable === true)
  )
    return 'virtual';
  return 'physical';
}

export function normalizeSystem(raw: RawSystem, bmc: HardwareInventorySpec['bmc']): HardwareInventorySpec {
  const s = raw.system;
  const manufacturer = str(s.Manufacturer);
  const isDell = /dell/i.test(manufacturer ?? '');
  const isHpe = /^(hpe|hp)\b/i.test(manufacturer ?? '');
  const dellOem = ((s.Oem as Json | undefined)?.Dell as Json | undefined)?.DellSystem as Json | undefined;
  const serviceTag = isDell ? (str(dellOem?.ChassisServiceTag) ?? str(s.SKU)) : str(s.SerialNumber);
  const system: HardwareInventorySpec['system'] = {};
  const put = (k: keyof HardwareInventorySpec['system'], v: string | undefined) => v && (system[k] = v);
  put('manufacturer', manufacturer);
  put('model', str(s.Model));
  put('serialNumber', str(s.SerialNumber));
  put('sku', str(s.SKU));
  put('serviceTag', serviceTag);
  put('uuid', str(s.UUID)?.toLowerCase());
  put('biosVersion', str(s.BiosVersion));
  put('hostName', str(s.HostName));
  void isHpe;

  const out: HardwareInventorySpec = { bmc, system, disks: [], nics: [] };
  const mode = str((s.Boot as Json | undefined)?.BootSourceOverrideMode);
  const biosMode = str(((raw.bios?.Attributes ?? {}) as Json).BootMode);
  if (mode === 'UEFI' || (!mode && biosMode === 'Uefi')) out.bootMode = 'UEFI';
  else if (mode === 'Legacy' || (!mode && biosMode === 'Bios')) out.bootMode = 'legacy';

  // CPU: the summary for counts, the first CPU for model, arch and speed
  const summary = (s.ProcessorSummary ?? {}) as Json;
  const cpu = raw.processors.find((p) => (p.ProcessorType ?? 'CPU') === 'CPU' && state(p) !== 'Absent');
  const sockets = num(summary.Count);
  const c: NonNullable<HardwareInventorySpec['cpu']> = {};
  if (sockets !== undefined) c.sockets = sockets;
  const cores =
    num(summary.CoreCount) ?? (cpu && num(cpu.TotalCores) !== undefined && sockets ? num(cpu.TotalCores)! * sockets : undefined);
  if (cores !== undefined) c.cores = cores;
  const threads =
    num(summary.LogicalProcessorCount) ??
    (cpu && num(cpu.TotalThreads) !== undefined && sockets ? num(cpu.TotalThreads)! * sockets : undefined);
  if (threads !== undefined) c.threads = threads;
  const model = str(cpu?.Model) ?? str(summary.Model);
  if (model) c.model = model;
  const a = cpu ? arch(cpu) : undefined;
  if (a) c.architecture = a;
  const mhz = cpu ? num(cpu.MaxSpeedMHz) : undefined;
  if (mhz) c.maxSpeedMHz = mhz;
  if (Object.keys(c).length) out.cpu = c;

  const gib = num((s.MemorySummary as Json | undefined)?.TotalSystemMemoryGiB);
  if (gib !== undefined && gib > 0) out.memoryMiB = Math.round(gib * 1024);

  // disks
  const volumeCount = new Map<string, number>();
  for (const { drive } of raw.drives) {
    const vols = ((drive.Links as Json | undefined)?.Volumes ?? []) as Json[];
    if (Array.isArray(vols))
      for (const v of vols) {
        const id = String(v?.['@odata.id'] ?? '').replace(/\/$/, '');
        if (id) volumeCount.set(id, (volumeCount.get(id) ?? 0) + 1);
      }
  }
  // drive Ids repeat across controllers (`Storage/RAID1/Drives/0`, `Storage/RAID2/Drives/0`) and
  // drives arrive in completion order: by full path first, so equal names keep a stable order
  const drives = [...raw.drives].sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
  for (const d of drives) {
    const disk = diskFrom(d.path, d.drive, d.controllerProtocols, volumeCount);
    if (disk) out.disks.push(disk);
  }
  for (const ss of raw.simpleStorage) {
    const devs = Array.isArray(ss.Devices) ? (ss.Devices as Json[]) : [];
    const ctrl = str(ss.Id) ?? 'SimpleStorage';
    devs.forEach((dev, i) => {
      if (!dev || state(dev) === 'Absent') return;
      const disk: InventoryDisk = { name: `${ctrl}/${str(dev.Name) ?? String(i)}` };
      const size = num(dev.CapacityBytes);
      if (size !== undefined && size > 0) disk.sizeBytes = size;
      const m = str(dev.Model);
      if (m) disk.model = m;
      const v = str(dev.Manufacturer);
      if (v) disk.vendor = v;
      out.disks.push(disk);
    });
  }
  out.disks.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));

  // NICs
  const hints = bootHints(raw);
  // physical or not from the interface's own properties (nicType), never from the order: a VLAN
  // copy shares its parent's MAC, and two physical NICs sharing one are both kept (host-policy
  // then never boots from that MAC)
  for (const e of raw.ethernet) {
    const id = str(e.Id);
    const mac = normalizeMac(e.MACAddress) ?? normalizeMac(e.PermanentMACAddress);
    if (!id || !mac) continue;
    const nic: InventoryNic = { id, mac };
    const t = nicType(e);
    if (t !== 'physical') nic.type = t;
    const speed = num(e.SpeedMbps);
    if (speed) nic.speedMbps = speed;
    const link = str(e.LinkStatus);
    if (link) nic.linkStatus = link;
    if (typeof e.InterfaceEnabled === 'boolean') nic.enabled = e.InterfaceEnabled;
    else if (state(e) === 'Disabled') nic.enabled = false;
    const mine = hints.filter((h) => h.mac === mac || h.nicId === id);
    if (t === 'physical' && mine.length) {
      if (mine.some((h) => h.pxe)) nic.pxe = true;
      if (mine.some((h) => h.http)) nic.httpBoot = true;
      nic.bootPriority = Math.min(...mine.map((h) => h.priority));
    }
    out.nics.push(nic);
  }
  out.nics.sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  const missing = [...new Set(raw.missing)].sort();
  // fixed key order: identity first, then hardware, then what was missing
  const result = { bmc: out.bmc, system: out.system } as HardwareInventorySpec;
  if (out.bootMode) result.bootMode = out.bootMode;
  if (out.cpu) result.cpu = out.cpu;
  if (out.memoryMiB !== undefined) result.memoryMiB = out.memoryMiB;
  result.disks = out.disks;
  result.nics = out.nics;
  if (missing.length) result.missing = missing;
  return result;
}
