/**
 * `HardwareInventory` (baremetal-krm.dev/v1alpha1): the snapshot bmh-from-redfish's discover
 * mode writes, one per Redfish System, and what generate, site-from-catalogue and
 * intent-validate read. It is local-config: committed to Git, never applied to a cluster.
 * Deterministic by construction: sorted lists, lowercase MACs, trimmed strings, no
 * timestamps, power state, health or ETags.
 */
export const INVENTORY_API_VERSION = 'baremetal-krm.dev/v1alpha1';
export const INVENTORY_KIND = 'HardwareInventory';

export interface InventoryDisk {
  /** Redfish Drive Id or SimpleStorage device name */
  name: string;
  sizeBytes?: number;
  /** HDD, SSD or NVME (as Metal3 HardwareData `type`) */
  type?: 'HDD' | 'SSD' | 'NVME';
  rotational?: boolean;
  serialNumber?: string;
  /** World Wide Name / EUI (0x-prefixed, lowercase) when the BMC reports one */
  wwn?: string;
  model?: string;
  vendor?: string;
  /** the drive shares a Redfish Volume with other drives (a RAID member the OS does not see) */
  raidMember?: boolean;
}

export interface InventoryNic {
  /** Redfish EthernetInterface Id */
  id: string;
  /** lowercase, colon-separated */
  mac: string;
  speedMbps?: number;
  linkStatus?: string;
  /**
   * the NIC is a PXE / UEFI HTTP boot device per BootOptions or BIOS settings. Discovery reads
   * BootOptions in BootOrder only up to the first network option that names its NIC, so these
   * mark the NIC the host network-boots from (plus, on Dell, NICs of enabled BIOS PxeDevN /
   * HttpDevN), not every NIC that could boot.
   */
  pxe?: boolean;
  httpBoot?: boolean;
  enabled?: boolean;
  /** PCI vendor name, when known (NetworkAdapter Manufacturer) */
  vendor?: string;
  /** absent = physical; `virtual`: a VLAN copy or duplicate MAC; `host-interface`: the BMC's ToManager NIC */
  type?: 'virtual' | 'host-interface';
  /** position of this NIC's first network boot option in the System's BootOrder (lower boots first; 5000+N: Dell BIOS PxeDevN/HttpDevN with no BootOption) */
  bootPriority?: number;
}

export interface HardwareInventorySpec {
  bmc: {
    /** the address as configured, e.g. https://10.0.0.5 */
    address: string;
    /** the System's Redfish path, e.g. /redfish/v1/Systems/System.Embedded.1 */
    systemPath: string;
    /** Secret the BareMetalHost will reference for BMC credentials */
    credentialsSecret?: string;
    insecureSkipVerify?: boolean;
    /**
     * the BMC has VirtualMedia devices (false: its VirtualMedia collection is empty or there is
     * none); absent in snapshots written before it was recorded: then not known
     */
    virtualMedia?: boolean;
  };
  system: {
    manufacturer?: string;
    model?: string;
    serialNumber?: string;
    sku?: string;
    /** Dell service tag, HPE serial etc.: the label printed on the chassis */
    serviceTag?: string;
    uuid?: string;
    biosVersion?: string;
    hostName?: string;
  };
  /**
   * set when this System is not a server to provision (an accelerator baseboard: no Boot object,
   * no NICs, no storage, only GPU/FPGA processors): why. generate writes no BareMetalHost for it.
   */
  notAHost?: string;
  bootMode?: 'UEFI' | 'legacy';
  /** where bootMode came from: `BIOS BootMode`, `BootOptions` (UEFI device paths), `BootSourceOverrideMode` (only while an override is active) */
  bootModeSource?: string;
  /** the System can boot over UEFI HTTP (BootSourceOverrideTarget allows UefiHttp, or an HTTP boot option or BIOS HTTP device) */
  uefiHttp?: boolean;
  cpu?: { sockets?: number; cores?: number; threads?: number; model?: string; architecture?: string; maxSpeedMHz?: number };
  memoryMiB?: number;
  disks: InventoryDisk[];
  nics: InventoryNic[];
  /** resources that were missing, unreadable or refused (e.g. "Bios: 404"), sorted */
  missing?: string[];
}

/** What a snapshot lacks that a host has (CPUs, memory, NICs), as words; empty when complete. */
export function incompleteParts(inv: Pick<HardwareInventorySpec, 'cpu' | 'memoryMiB' | 'nics'>): string[] {
  const out: string[] = [];
  if (!inv.cpu?.sockets && !inv.cpu?.cores && !inv.cpu?.model) out.push('no CPUs');
  if (!inv.memoryMiB) out.push('no memory');
  if (!(inv.nics ?? []).some((n) => !n.type)) out.push('no NICs');
  return out;
}
