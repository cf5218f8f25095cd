/**
 * Servers bmh-from-redfish had never seen, built from the bundled trees (mockups/, each with its
 * licence): every scenario edits an in-memory copy of one tree and may set how the simulated BMC
 * behaves. One scenario per class of fault that discovery must get right (see the function's
 * README, "Fault classes"); `redfish-sim --scenario <name>` serves one.
 */
import { join } from 'node:path';
import { loadTree, key, type BmcOptions, type Tree } from './server.js';
import { mockupsDir } from './mockups.js';

type Json = Record<string, unknown>;

/** Edits a copy of a tree: read, set, patch and remove resources, add and remove collection members. */
export class TreeEditor {
  readonly tree: Tree;
  constructor(base: Tree) {
    this.tree = new Map(base);
  }
  get(path: string): Json {
    const b = this.tree.get(key(path));
    if (!b) throw new Error(`scenario: no resource ${path}`);
    return JSON.parse(b.toString('utf8')) as Json;
  }
  set(path: string, doc: Json): this {
    this.tree.set(key(path), Buffer.from(JSON.stringify({ '@odata.id': path, ...doc }, null, 2)));
    return this;
  }
  /** Top-level fields replaced; a field set to null is removed. */
  patch(path: string, fields: Json): this {
    const doc = this.get(path);
    for (const [k, v] of Object.entries(fields)) {
      if (v === null) delete doc[k];
      else doc[k] = v;
    }
    return this.set(path, doc);
  }
  remove(path: string): this {
    this.tree.delete(key(path));
    return this;
  }
  /** Sets a collection's members (and Members@odata.count). */
  members(collection: string, paths: string[]): this {
    return this.patch(collection, { Members: paths.map((p) => ({ '@odata.id': p })), 'Members@odata.count': paths.length });
  }
  memberPaths(collection: string): string[] {
    return ((this.get(collection).Members ?? []) as Json[]).map((m) => String(m['@odata.id']));
  }
  addMember(collection: string, path: string, doc?: Json): this {
    if (doc) this.set(path, doc);
    return this.members(collection, [...this.memberPaths(collection), path]);
  }
}

export interface Scenario {
  name: string;
  /** the class of fault it builds, as the function README's fault-class table names it */
  about: string;
  /** the bundled tree it starts from */
  base: string;
  edit?(t: TreeEditor): void;
  /** how the simulated BMC behaves */
  bmc?: Omit<BmcOptions, 'tree'>;
}

const SM = '/redfish/v1/Systems/1';
const RACK = '/redfish/v1/Systems/437XR1138R2';
const DELL = '/redfish/v1/Systems/System.Embedded.1';
const HPE = '/redfish/v1/Systems/1';

/** An HGX-style GPU baseboard as a second System behind the host's BMC, with its own Manager. */
function gpuBaseboard(t: TreeEditor): void {
  const sys = '/redfish/v1/Systems/HGX_Baseboard_0';
  const mgr = '/redfish/v1/Managers/HGX_BMC_0';
  const gpus = Array.from({ length: 8 }, (_, i) => `${sys}/Processors/GPU_SXM_${i + 1}`);
  t.addMember('/redfish/v1/Systems', sys, {
    '@odata.type': '#ComputerSystem.v1_20_0.ComputerSystem',
    Id: 'HGX_Baseboard_0',
    Name: 'HGX Baseboard',
    SystemType: 'Physical',
    Manufacturer: 'NVIDIA',
    Model: 'HGX H100 8-GPU',
    SerialNumber: '1654922000318',
    UUID: '7a6b0a2e-6c1f-4e4f-9d3f-2b0c8a6e51d4',
    PowerState: 'On',
    ProcessorSummary: { Count: 8, Status: { State: 'Enabled' } },
    MemorySummary: { TotalSystemMemoryGiB: 640 },
    Processors: { '@odata.id': `${sys}/Processors` },
    Links: { ManagedBy: [{ '@odata.id': mgr }] },
  });
  t.set(`${sys}/Processors`, { Name: 'Processors', Members: gpus.map((p) => ({ '@odata.id': p })), 'Members@odata.count': 8 });
  gpus.forEach((p, i) =>
    t.set(p, {
      Id: `GPU_SXM_${i + 1}`,
      Name: `GPU ${i + 1}`,
      ProcessorType: 'GPU',
      Manufacturer: 'NVIDIA',
      Model: 'H100 80GB HBM3',
      Status: { State: 'Enabled' },
    }),
  );
  t.addMember('/redfish/v1/Managers', mgr, {
    Id: 'HGX_BMC_0',
    Name: 'HGX BMC',
    ManagerType: 'BMC',
    Links: { ManagerForServers: [{ '@odata.id': sys }] },
  });
}

/** A host that is off and reports nothing it has: no CPUs, no memory, no NICs. */
function poweredOff(t: TreeEditor): void {
  t.patch(RACK, {
    PowerState: 'Off',
    ProcessorSummary: { Count: 0, Status: { State: 'Absent' } },
    MemorySummary: { TotalSystemMemoryGiB: 0, Status: { State: 'Absent' } },
  });
  t.members(`${RACK}/Processors`, []).members(`${RACK}/EthernetInterfaces`, []).members(`${RACK}/Memory`, []);
}

/** BootOptions member ids without the `Boot` prefix (`0019` for `Boot0019`). */
function hexBootOptionIds(t: TreeEditor): void {
  const coll = `${SM}/BootOptions`;
  const renamed = t.memberPaths(coll).map((p) => {
    const id = p.slice(p.lastIndexOf('/') + 5);
    const to = `${coll}/${id}`;
    t.set(to, { ...t.get(p), '@odata.id': to, Id: id });
    t.remove(p);
    return to;
  });
  t.members(coll, renamed);
}

/** Firmware placeholders where identity and disk facts belong. */
function placeholders(t: TreeEditor): void {
  t.patch(SM, {
    SerialNumber: 'To Be Filled By O.E.M.',
    SKU: 'Default string',
    UUID: '00000000-0000-0000-0000-000000000000',
    HostName: 'N/A',
    BiosVersion: '..........',
  });
  const drive = '/redfish/v1/Chassis/NVMeSSD.0.Group.0.StorageBackplane/Drives/Disk.Bay.0';
  t.patch(drive, { SerialNumber: 'Not Specified', Model: 'N/A' });
  t.patch(`${SM}/Processors/1`, { Model: 'To Be Filled By O.E.M.' });
}

/** An AMI BMC's virtual CD-ROM and virtual USB disk listed as drives of the host. */
function virtualMediaDisks(t: TreeEditor): void {
  const usb = `${SM}/Storage/USB`;
  const drives = ['VirtualCDROM0', 'VirtualHDisk0'].map((id) => `/redfish/v1/Chassis/UBB_1/Drives/${id}`);
  t.addMember(`${SM}/Storage`, usb, {
    Id: 'USB',
    Name: 'USB devices',
    Drives: drives.map((d) => ({ '@odata.id': d })),
    StorageControllers: [{ MemberId: '0', Name: 'USB', SupportedDeviceProtocols: ['USB'] }],
  });
  t.set(drives[0]!, {
    Id: 'VirtualCDROM0',
    Name: 'AMI Virtual CDROM0',
    Model: 'Virtual CDROM0',
    Manufacturer: 'AMI',
    Protocol: 'USB',
    CapacityBytes: 0,
  });
  t.set(drives[1]!, {
    Id: 'VirtualHDisk0',
    Name: 'AMI Virtual HDisk0',
    Model: 'Virtual HDisk0',
    Manufacturer: 'AMI',
    Protocol: 'USB',
    MediaType: 'SSD',
    CapacityBytes: 34359738368,
  });
}

export const SCENARIOS: readonly Scenario[] = [
  { name: 'gpu-baseboard', about: '1. a System that is not a bootable server', base: 'libredfish-supermicro', edit: gpuBaseboard },
  { name: 'powered-off', about: '2. a powered-off host, an empty inventory', base: 'dmtf-public-rackmount1', edit: poweredOff },
  {
    name: 'error-body-200',
    about: '3. HTTP 200 with a Redfish error body',
    base: 'libredfish-dell',
    bmc: { faults: [{ path: `${DELL}/Storage/CPU.1/Drives/Disk.Bay.1:Enclosure.Internal.0-1`, kind: 'error-200' }] },
  },
  {
    name: 'bmc-hostname',
    about: "4. a System HostName that is the BMC's own",
    base: 'dmtf-public-rackmount1',
    edit: (t) => {
      t.patch(RACK, { HostName: 'bmc-437xr1138r2' });
      t.patch('/redfish/v1/Managers/BMC', { HostName: 'bmc-437xr1138r2', FQDN: 'bmc-437xr1138r2.mgmt.example.net' });
    },
  },
  { name: 'session-204', about: '5. a session login answered 204 No Content', base: 'dmtf-public-rackmount1', bmc: { loginStatus: 204 } },
  {
    name: 'bootoption-hex-ids',
    about: '6. BootOptions member ids `0019` for `Boot0019`',
    base: 'libredfish-supermicro',
    edit: hexBootOptionIds,
  },
  {
    name: 'override-disabled',
    about: '7. bootMode from a disabled BootSourceOverrideMode',
    base: 'libredfish-hpe',
    edit: (t) =>
      t.patch(HPE, { Boot: { ...(t.get(HPE).Boot as Json), BootSourceOverrideEnabled: 'Disabled', BootSourceOverrideMode: 'Legacy' } }),
  },
  {
    name: 'anonymous',
    about: '8. a System with no hostname, serial number or UUID',
    base: 'dmtf-public-rackmount1',
    edit: (t) => t.patch(RACK, { HostName: null, SerialNumber: null, UUID: null, SKU: null }),
  },
  { name: 'placeholders', about: '9. placeholder strings', base: 'libredfish-supermicro', edit: placeholders },
  {
    name: 'virtual-media-disks',
    about: '10. virtual media devices listed as disks',
    base: 'libredfish-supermicro',
    edit: virtualMediaDisks,
  },
  {
    name: 'no-virtual-media',
    about: '11. a BMC with no VirtualMedia (iPXE)',
    base: 'dmtf-public-rackmount1',
    edit: (t) => t.members(`${RACK}/VirtualMedia`, []),
  },
  {
    name: 'no-virtual-media-uefihttp',
    about: '11. a BMC with no VirtualMedia (UEFI HTTP boot)',
    base: 'libredfish-dell',
    edit: (t) => t.members(`${DELL}/VirtualMedia`, []),
  },
  {
    name: 'silent-choices',
    about: '12. silent choices and truncations',
    base: 'dmtf-public-rackmount1',
    edit: (t) => t.patch(`${RACK}/Memory/DIMM4`, { CapacityMiB: 32768, Status: { State: 'Enabled', Health: 'OK' } }),
    bmc: {
      faults: [
        { path: `${RACK}/EthernetInterfaces`, kind: 'page-loop' },
        { path: `${RACK}/Processors`, kind: 'empty-pages' },
      ],
    },
  },
  {
    name: 'hang-after-login',
    about: '13. a BMC that hangs after the session login',
    base: 'dmtf-public-rackmount1',
    bmc: { hangAfterLogin: true },
  },
];

/** The edited tree of a scenario (bundled trees from `dir`, by default the simulator's own). */
export function scenarioTree(name: string, dir = mockupsDir()): Tree {
  const s = scenario(name);
  const t = new TreeEditor(loadTree(join(dir, s.base)));
  s.edit?.(t);
  return t.tree;
}

export function scenario(name: string): Scenario {
  const s = SCENARIOS.find((x) => x.name === name);
  if (!s) throw new Error(`no scenario ${name}; there are: ${SCENARIOS.map((x) => x.name).join(', ')}`);
  return s;
}

/** What startBmc needs to serve a scenario. */
export function scenarioBmc(name: string, dir?: string): BmcOptions {
  return { ...scenario(name).bmc, tree: scenarioTree(name, dir) };
}
