/** The shapes the validation library takes and returns (the rules live in rules/). */
import type { KubeObject } from '../krm/index.js';
import type { CertificateFact } from './certificates.js';
import type { HostHardware } from './hardware.js';
import type { RuleSeverity } from './rules.js';

export interface CapacityRole {
  name: string;
  selector: { matchLabels?: Record<string, string> };
  count?: { active?: number; standby?: number };
  topologyKey?: string;
  nodeSelector?: Record<string, string>;
  headroomPercent?: number;
}

export interface IntentValidateSpec {
  /** `false` is what YAML 1.1 makes of an unquoted `off` */
  rules?: Record<string, { severity: RuleSeverity | false }>;
  now?: string;
  certificates?: { warnDays?: number };
  encryption?: { allow?: string[] };
  references?: { external?: string[] };
  schemas?: { paths?: string[]; skipKinds?: string[]; ignoreMissing?: boolean };
  capacity?: { headroomPercent?: number; roles?: CapacityRole[] };
}

export type Severity = 'error' | 'warning' | 'info';

export interface Finding {
  rule: string;
  severity: Severity;
  message: string;
  object?: KubeObject;
  /** dotted path, `spec.bmc.address` or `data.tls\.crt` style keys kept as is */
  field?: string;
  /** path segments for line lookup */
  path?: (string | number)[];
  /** known line (1-based in the item's source) when the rule found it from text */
  line?: number;
}

/** Where a finding points: the object, the field (dotted) and its path segments. */
export type FindingPlace = Omit<Finding, 'rule' | 'severity' | 'message'>;

export interface HostProfileOutcome {
  kind: string;
  name: string;
  matched: boolean;
  failures: string[];
}

export interface HostFact {
  name: string;
  namespace?: string;
  /** BareMetalHost, HardwareInventory */
  kind: string;
  object: KubeObject;
  labels: Record<string, string>;
  /** where the hardware came from: BareMetalHost status.hardware, HardwareData, HardwareInventory */
  hardwareSource?: string;
  hardware?: HostHardware;
  /** profiles the host must satisfy, with the outcome */
  profiles: HostProfileOutcome[];
}

export interface RoleFact {
  name: string;
  hosts: string[];
  wanted: number;
  domains?: number;
  cpuRequested: number;
  memoryRequestedMiB: number;
  cpuCapacity?: number;
  memoryCapacityMiB?: number;
}

export interface Analysis {
  findings: Finding[];
  facts: { certificates: CertificateFact[]; hosts: HostFact[]; roles: RoleFact[] };
  counts: Record<Severity, number>;
}

export interface AnalyseOptions {
  /** extra CRD objects (from spec.schemas.paths) */
  extraCrds?: Record<string, unknown>[];
  /** objects that are patches (kustomize patchesStrategicMerge): no required-field, reference or duplicate checks */
  partial?: Set<KubeObject>;
  /** object identity duplicates count only within one scope (the CLI: one folder = one kustomize entry point) */
  scopeOf?: (o: KubeObject) => string;
  /** where an object lives, for messages (default: its config.kubernetes.io/path) */
  locate?: (o: KubeObject) => string | undefined;
}
