/**
 * Raw Redfish JSON of one System -> a `HardwareInventorySpec`: trimmed strings, placeholders
 * dropped, lowercase MACs, sorted lists, no power state, health, timestamps or ETags, so that
 * discovering the same hardware twice gives the same bytes. Pure: no I/O.
 */
import { incompleteParts, type HardwareInventorySpec, type InventoryDisk, type InventoryNic } from '../model/hardware-inventory.js';
import { hostNameText, str, text, uuidText } from './text.js';

type Json = Record<string, unknown>;

export interface RawSystem {
  path: string;
  system: Json;
  /** the processors read: up to the first CPU */
  processors: Json[];
  /** how many members the Processors collection lists */
  processorCount?: number;
  ethernet: Json[];
  drives: { path: string; drive: Json; controllerProtocols: string[] }[];
  simpleStorage: Json[];
  bootOptions: Json[];
  bios?: Json;
  /** the System's Manager, when it was read */
  manager?: Json;
  /** VirtualMedia devices of the System or its Manager; undefined: not known (unreadable, or not asked) */
  virtualMedia?: number;
  /** the DIMMs, when they were read */
  memory?: Json[];
  missing: string[];
}

/** What discovery says about a System beyond its inventory (a result, not kept in the snapshot). */
export interface SystemNote {
  severity: 'warning' | 'info';
  /** the rule id: `discover/<rule>` */
  rule: string;
  message: string;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

const MAC_RE = /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$/i;

/** `AA-BB-..`, `aabbccddeeff` -> `aa:bb:cc:dd:ee:ff`; undefined for anything else or all zeros. */
function normalizeMac(v: unknown): string | undefined {
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
  const segment = path.split('/').pop() ?? path;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // a BMC's link with a malformed escape (`%E0%A4%A`): its name as written
  }
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

/**
 * A BMC's own virtual device (its virtual CD-ROM, floppy or USB disk shown as a drive): never a
 * disk of the host. Matched on Id, Name, Model and Manufacturer.
 */
const VIRTUAL_DEVICE =
  /\bvirtual[\s_-]*(?:cd|dvd|cdrom|cd-rom|floppy|f?hdisk|hdd|disk|drive|media|usb|key|storage)|\bv-?media\b|virtualmedia|\b(?:ipmi|idrac|ilo|ami|bmc)[\s_-]*virtual\b/i;

function isVirtualMediaDevice(d: Json): boolean {
  return VIRTUAL_DEVICE.test([d.Id, d.Name, d.Model, d.Manufacturer].map((v) => str(v) ?? '').join(' '));
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
  const serial = text(d.SerialNumber);
  if (serial) disk.serialNumber = serial;
  const wwn = wwnOf(d);
  if (wwn) disk.wwn = wwn;
  const model = text(d.Model);
  if (model) disk.model = model;
  const vendor = text(d.Manufacturer);
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

/** System identity, placeholders dropped; a HostName that is its BMC's own is dropped with a note. */
function identity(raw: RawSystem, bmc: HardwareInventorySpec['bmc'], notes: SystemNote[]): HardwareInventorySpec['system'] {
  const s = raw.system;
  const manufacturer = text(s.Manufacturer);
  const isDell = /dell/i.test(manufacturer ?? '');
  const dellOem = ((s.Oem as Json | undefined)?.Dell as Json | undefined)?.DellSystem as Json | undefined;
  const system: HardwareInventorySpec['system'] = {};
  const put = (k: keyof HardwareInventorySpec['system'], v: string | undefined) => v && (system[k] = v);
  put('manufacturer', manufacturer);
  put('model', text(s.Model));
  put('serialNumber', text(s.SerialNumber));
  put('sku', text(s.SKU));
  put('serviceTag', isDell ? (text(dellOem?.ChassisServiceTag) ?? text(s.SKU)) : text(s.SerialNumber));
  put('uuid', uuidText(s.UUID));
  put('biosVersion', text(s.BiosVersion));
  const hostName = hostNameText(s.HostName);
  const bmcName = hostName ? bmcOwnName(hostName, raw.manager, bmc.address) : undefined;
  if (bmcName)
    notes.push({
      severity: 'info',
      rule: 'discover/hostname',
      message: `System HostName "${hostName}" is its BMC's own (${bmcName}); ignored`,
    });
  else put('hostName', hostName);
  return system;
}

/** Where a System HostName equals its BMC's own name: the Manager's HostName or FQDN, or the BMC address we reached. */
function bmcOwnName(hostName: string, manager: Json | undefined, address: string): string | undefined {
  const h = hostName.toLowerCase();
  const firstLabel = (n: string) => n.split('.')[0]!;
  const names: [string, string | undefined][] = [
    ['Manager HostName', hostNameText(manager?.HostName)],
    ['Manager FQDN', hostNameText(manager?.FQDN)],
  ];
  const host = /^[a-z][a-z0-9+.-]*:\/\/([^/:[\]]+)/i.exec(address)?.[1] ?? /^([^/:[\]]+)/.exec(address)?.[1];
  if (host && /[a-z]/i.test(host)) names.push(['the BMC address', host]);
  for (const [what, n] of names) {
    if (!n) continue;
    const v = n.toLowerCase();
    if (v === h || firstLabel(v) === h || v === firstLabel(h)) return `${what} ${n}`;
  }
  return undefined;
}

const ACCELERATOR_TYPES = new Set(['GPU', 'FPGA', 'Accelerator', 'DSP', 'OEM']);

/**
 * Why a System is not a server to provision, or undefined: no Boot object, no NICs, no storage,
 * and only accelerators among its processors (a GPU baseboard behind the host's own BMC).
 */
function notAHost(raw: RawSystem): string | undefined {
  const s = raw.system;
  if (s.Boot || s.EthernetInterfaces || s.Storage || s.SimpleStorage) return undefined;
  if (raw.processors.some((p) => !ACCELERATOR_TYPES.has(String(p.ProcessorType ?? 'CPU')))) return undefined;
  const types = [...new Set(raw.processors.map((p) => String(p.ProcessorType)))].sort().join('/');
  const n = raw.processorCount ?? raw.processors.length;
  return `no Boot object, no EthernetInterfaces, no Storage and ${n ? `only ${types || 'accelerator'} processors (${n})` : 'no processors'}: not a server to provision`;
}

/**
 * The boot mode and where it came from, from the best evidence: the BIOS BootMode attribute
 * (read on Dell), else UEFI boot options (a UEFI device path, or a `UEFI ...` option), else
 * BootSourceOverrideMode, but only while an override is active: otherwise that field describes
 * a disabled override, not how the host boots.
 */
function bootMode(raw: RawSystem): Pick<HardwareInventorySpec, 'bootMode' | 'bootModeSource'> {
  const biosMode = str(((raw.bios?.Attributes ?? {}) as Json).BootMode);
  if (biosMode === 'Uefi') return { bootMode: 'UEFI', bootModeSource: 'BIOS BootMode' };
  if (biosMode === 'Bios') return { bootMode: 'legacy', bootModeSource: 'BIOS BootMode' };
  const uefi = raw.bootOptions.some((o) => /\w\(/.test(str(o.UefiDevicePath) ?? '') || /\bUEFI\b/i.test(str(o.DisplayName) ?? ''));
  if (uefi) return { bootMode: 'UEFI', bootModeSource: 'BootOptions' };
  const boot = (raw.system.Boot ?? {}) as Json;
  const enabled = str(boot.BootSourceOverrideEnabled);
  const mode = str(boot.BootSourceOverrideMode);
  if (enabled !== 'Once' && enabled !== 'Continuous') return {};
  if (mode === 'UEFI') return { bootMode: 'UEFI', bootModeSource: 'BootSourceOverrideMode' };
  if (mode === 'Legacy') return { bootMode: 'legacy', bootModeSource: 'BootSourceOverrideMode' };
  return {};
}

/** The System can boot over UEFI HTTP: the override allows UefiHttp, a boot option boots over HTTP, or a Dell BIOS HTTP device is on. */
function uefiHttp(raw: RawSystem): boolean {
  const allowed = ((raw.system.Boot ?? {}) as Json)['BootSourceOverrideTarget@Redfish.AllowableValues'];
  if (Array.isArray(allowed) && allowed.includes('UefiHttp')) return true;
  const attrs = (raw.bios?.Attributes ?? {}) as Json;
  if (raw.bootOptions.some((o) => bootOptionNic(o, attrs)?.http)) return true;
  return Object.entries(attrs).some(([k, v]) => /^HttpDev\d+EnDis$/.test(k) && v === 'Enabled');
}

/** CPU: the summary for counts, the first CPU for model, arch and speed. */
function cpuOf(raw: RawSystem): HardwareInventorySpec['cpu'] {
  const summary = (raw.system.ProcessorSummary ?? {}) as Json;
  const cpu = raw.processors.find((p) => (p.ProcessorType ?? 'CPU') === 'CPU' && state(p) !== 'Absent');
  const sockets = num(summary.Count) || undefined;
  const c: NonNullable<HardwareInventorySpec['cpu']> = {};
  if (sockets !== undefined) c.sockets = sockets;
  const cores = num(summary.CoreCount) || (cpu && num(cpu.TotalCores) && sockets ? num(cpu.TotalCores)! * sockets : undefined);
  if (cores) c.cores = cores;
  const threads =
    num(summary.LogicalProcessorCount) || (cpu && num(cpu.TotalThreads) && sockets ? num(cpu.TotalThreads)! * sockets : undefined);
  if (threads) c.threads = threads;
  const model = text(cpu?.Model) ?? text(summary.Model);
  if (model) c.model = model;
  const a = cpu ? arch(cpu) : undefined;
  if (a) c.architecture = a;
  const mhz = cpu ? num(cpu.MaxSpeedMHz) : undefined;
  if (mhz) c.maxSpeedMHz = mhz;
  return Object.keys(c).length ? c : undefined;
}

/**
 * Memory in MiB: the summary as the BMC gives it; the sum of the DIMMs when the summary is
 * missing or zero; a warning with both figures when both are known and disagree by more than 1%.
 */
function memoryMiB(raw: RawSystem, notes: SystemNote[]): number | undefined {
  const gib = num((raw.system.MemorySummary as Json | undefined)?.TotalSystemMemoryGiB);
  const summary = gib !== undefined && gib > 0 ? Math.round(gib * 1024) : undefined;
  const dimms = (raw.memory ?? []).filter((m) => state(m) !== 'Absent').map((m) => num(m.CapacityMiB) ?? 0);
  const sum = dimms.reduce((a, b) => a + b, 0) || undefined;
  if (summary === undefined) {
    if (sum !== undefined)
      notes.push({
        severity: 'info',
        rule: 'discover/memory',
        message: `MemorySummary gives no total; memoryMiB ${sum} is the sum of ${dimms.length} DIMMs`,
      });
    return sum;
  }
  if (sum !== undefined && Math.abs(sum - summary) > summary / 100)
    notes.push({
      severity: 'warning',
      rule: 'discover/memory',
      message: `MemorySummary says ${summary} MiB but the ${dimms.length} DIMMs add up to ${sum} MiB; the summary is kept, check the host`,
    });
  return summary;
}

/** Disks from Storage drives (RAID members marked) and SimpleStorage devices, the BMC's virtual devices left out. */
function disksOf(raw: RawSystem, notes: SystemNote[]): InventoryDisk[] {
  const volumeCount = new Map<string, number>();
  for (const { drive } of raw.drives) {
    const vols = ((drive.Links as Json | undefined)?.Volumes ?? []) as Json[];
    if (Array.isArray(vols))
      for (const v of vols) {
        const id = String(v?.['@odata.id'] ?? '').replace(/\/$/, '');
        if (id) volumeCount.set(id, (volumeCount.get(id) ?? 0) + 1);
      }
  }
  const disks: InventoryDisk[] = [];
  const virtual: string[] = [];
  // drive Ids repeat across controllers (`Storage/RAID1/Drives/0`, `Storage/RAID2/Drives/0`) and
  // drives arrive in completion order: by full path first, so equal names keep a stable order
  const drives = [...raw.drives].sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
  for (const d of drives) {
    if (isVirtualMediaDevice(d.drive)) virtual.push(str(d.drive.Id) ?? lastSegment(d.path));
    else {
      const disk = diskFrom(d.path, d.drive, d.controllerProtocols, volumeCount);
      if (disk) disks.push(disk);
    }
  }
  for (const ss of raw.simpleStorage) {
    const devs = Array.isArray(ss.Devices) ? (ss.Devices as Json[]) : [];
    const ctrl = str(ss.Id) ?? 'SimpleStorage';
    devs.forEach((dev, i) => {
      if (!dev || state(dev) === 'Absent') return;
      const name = `${ctrl}/${str(dev.Name) ?? String(i)}`;
      if (isVirtualMediaDevice(dev)) return void virtual.push(name);
      const disk: InventoryDisk = { name };
      const size = num(dev.CapacityBytes);
      if (size !== undefined && size > 0) disk.sizeBytes = size;
      const m = text(dev.Model);
      if (m) disk.model = m;
      const v = text(dev.Manufacturer);
      if (v) disk.vendor = v;
      disks.push(disk);
    });
  }
  if (virtual.length)
    notes.push({
      severity: 'info',
      rule: 'discover/virtual-device',
      message: `left out ${virtual.length} virtual media device(s) of the BMC listed as storage: ${virtual.sort().join(', ')}`,
    });
  return disks.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
}

/**
 * NICs, physical or not from the interface's own properties (nicType), never from the order: a
 * VLAN copy shares its parent's MAC, and two physical NICs sharing one are both kept (host-policy
 * then never boots from that MAC). Boot flags only on physical NICs.
 */
function nicsOf(raw: RawSystem): InventoryNic[] {
  const hints = bootHints(raw);
  const nics: InventoryNic[] = [];
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
    nics.push(nic);
  }
  return nics.sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
}

export function normalizeSystem(
  raw: RawSystem,
  bmc: HardwareInventorySpec['bmc'],
): { inventory: HardwareInventorySpec; notes: SystemNote[] } {
  const notes: SystemNote[] = [];
  const system = identity(raw, bmc, notes);
  const out: HardwareInventorySpec = { bmc: { ...bmc }, system, disks: [], nics: [] };
  const reason = notAHost(raw);
  if (reason) {
    out.notAHost = reason;
    notes.push({ severity: 'warning', rule: 'discover/not-a-host', message: `${reason}; inventoried, no BareMetalHost will be generated` });
  } else {
    if (raw.virtualMedia !== undefined) out.bmc.virtualMedia = raw.virtualMedia > 0;
    Object.assign(out, bootMode(raw));
    if (uefiHttp(raw)) out.uefiHttp = true;
    const cpu = cpuOf(raw);
    if (cpu) out.cpu = cpu;
    const mem = memoryMiB(raw, notes);
    if (mem !== undefined) out.memoryMiB = mem;
    out.disks = disksOf(raw, notes);
    out.nics = nicsOf(raw);
    const lacks = incompleteParts(out);
    const power = str(raw.system.PowerState);
    if (lacks.length)
      notes.push({
        severity: 'warning',
        rule: 'discover/incomplete',
        message: `the snapshot is incomplete (${lacks.join(', ')}${power && power !== 'On' ? `; the host is powered ${power.toLowerCase()}` : ''}); generate will let BMO inspect the host`,
      });
  }
  const missing = [...new Set(raw.missing)].sort();
  // fixed key order: identity first, then hardware, then what was missing
  const inventory = { bmc: out.bmc, system: out.system } as HardwareInventorySpec;
  for (const k of ['notAHost', 'bootMode', 'bootModeSource', 'uefiHttp', 'cpu', 'memoryMiB'] as const)
    if (out[k] !== undefined) (inventory as unknown as Json)[k] = out[k];
  inventory.disks = out.disks;
  inventory.nics = out.nics;
  if (missing.length) inventory.missing = missing;
  return { inventory, notes };
}
