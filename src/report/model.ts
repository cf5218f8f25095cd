/**
 * The cross-site report as data: what `--format json` prints (documented in README.md) and what
 * every renderer reads. Everything is sorted and free of timestamps except the pinned `now`.
 * Secret values never appear: Secrets are compared by key, findings name fields only.
 */
export const REPORT_API_VERSION = 'baremetal-krm.dev/v1alpha1';
export const REPORT_KIND = 'CrossSiteReport';

export interface ResourceId {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

export interface SiteSummary {
  name: string;
  source: string;
  mode: 'folder' | 'file' | 'kustomize';
  objects: number;
  /** BareMetalHosts and inventories, plus hosts only the host catalogue names */
  hosts: number;
  /** hosts an airshipctl host catalogue names that have no BareMetalHost or inventory yet */
  catalogueOnlyHosts?: number;
  certificates: number;
  /** documents with sops metadata (encrypted at rest in Git) */
  encryptedDocuments: number;
  /** intent-validate findings by severity */
  findings: { error: number; warning: number; info: number };
  /** intent-validate findings by rule id */
  rules: Record<string, number>;
  skipped: string[];
  /** identical copies of an object in two files (counted once), or copies that differ */
  notes?: string[];
}

export type CertStatus = 'expired' | 'expiring' | 'not-yet-valid' | 'ok';

export interface CertificateRow {
  site: string;
  resource: ResourceId;
  /** file relative to the site, and the first line of the document holding the certificate */
  file?: string;
  line?: number;
  field: string;
  subject: string;
  issuer: string;
  notBefore: string;
  notAfter: string;
  daysLeft: number;
  status: CertStatus;
}

export interface HostProfile {
  kind: string;
  name: string;
  matched: boolean;
  failures: string[];
}

export interface HostRow {
  site: string;
  name: string;
  /** BareMetalHost, HardwareInventory, or `host catalogue` (a host only the catalogue names) */
  kind: string;
  namespace?: string;
  role?: string;
  /** file relative to the site and first line of the host's document */
  file?: string;
  line?: number;
  /** where the hardware came from, or absent when the host has no inventory */
  hardwareSource?: string;
  manufacturer?: string;
  model?: string;
  cpuArch?: string;
  cpuCount?: number;
  cpuMHz?: number;
  ramMiB?: number;
  /** e.g. `3x NVME 1.9TB` */
  disks: string[];
  diskCount: number;
  nicCount: number;
  biosVersion?: string;
  profiles: HostProfile[];
  /** the profile the host asks for (label or annotation baremetal-krm.dev/hardware-profile) */
  requestedProfile?: string;
  /**
   * matched: every profile matched; mismatch: at least one failed; none: no profile assigned;
   * no-inventory; unchecked: the requested profile is not in the input (a rendered folder)
   */
  profileStatus: 'matched' | 'mismatch' | 'none' | 'no-inventory' | 'unchecked';
}

export interface HardwareMix {
  site: string;
  /** `Dell Inc. PowerEdge R750`, or `unknown` for hosts with no inventory */
  model: string;
  hosts: number;
}

export interface DivergenceField {
  /** dotted path; list items with a name are addressed as `phases[name=x]` */
  path: string;
  /** one per site, in command-line order: the value as JSON text, or null when the site has no value there */
  values: { site: string; value: string | null }[];
}

export interface DivergenceEntry {
  /** `Phase workers-target`, `host[role=worker,profile=worker]#2` */
  identity: string;
  kind: string;
  /** each site's own name for the resource (hosts differ per site), absent when missing */
  names: { site: string; name: string | null }[];
  missingIn: string[];
  fields: DivergenceField[];
}

export interface WorkloadRow {
  kind: string;
  name: string;
  namespace?: string;
  /** one per site, in command-line order: `chart@version`, images, or the Flux path@revision; null when absent */
  versions: { site: string; version: string | null }[];
  differs: boolean;
}

export interface SecurityRow {
  site: string;
  rule: string;
  severity: 'error' | 'warning' | 'info';
  resource?: ResourceId;
  field?: string;
  message: string;
  /** file relative to the site and line */
  file?: string;
  line?: number;
}

export interface CapacityRow {
  site: string;
  role: string;
  hosts: number;
  /** count.active + count.standby from intent.capacity.roles, when configured */
  wanted?: number;
  cpuAvailable?: number;
  memoryAvailableMiB?: number;
  /** requests of workloads placed on the role (needs intent.capacity.roles[].nodeSelector) */
  cpuRequested?: number;
  memoryRequestedMiB?: number;
  hostsWithoutInventory: number;
  over: boolean;
}

export interface Threshold {
  name: string;
  broken: boolean;
  count: number;
}

export interface Report {
  apiVersion: typeof REPORT_API_VERSION;
  kind: typeof REPORT_KIND;
  now: string;
  reference?: string;
  sites: SiteSummary[];
  certificates: CertificateRow[];
  hardware: { hosts: HostRow[]; mix: HardwareMix[] };
  divergence: DivergenceEntry[];
  workloads: WorkloadRow[];
  security: SecurityRow[];
  capacity: CapacityRow[];
  thresholds: Threshold[];
  /** the thresholds --fail-on named (empty: nothing gates the report) */
  failOn: string[];
}
