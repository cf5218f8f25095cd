/** The rule ids intent-validate reports, their default severity and what they check. */
export type RuleSeverity = 'error' | 'warning' | 'info' | 'off';

export interface RuleInfo {
  id: string;
  severity: Exclude<RuleSeverity, 'off'>;
  summary: string;
}

export const RULES: readonly RuleInfo[] = [
  { id: 'schema', severity: 'error', summary: 'item does not match its schema (built-in, a CRD in the input, or spec.schemas.paths)' },
  { id: 'schema-unknown-field', severity: 'error', summary: 'field not in a closed schema (strict, like kubeconform -strict)' },
  {
    id: 'yaml-ambiguous',
    severity: 'warning',
    summary: 'plain YAML 1.1 scalar that Go (YAML 1.2) and YAML 1.1 readers read differently: yes/no/on/off/y/n, 0777, 1_000, 1:30',
  },
  {
    id: 'reference',
    severity: 'error',
    summary:
      'dangling reference: BMH -> BMC/networkData/userData/metaData Secret, HardwareData -> BMH, PhasePlan -> Phase, Phase -> executor and ClusterMap cluster, Flux Kustomization dependsOn, host catalogue macAddresses/ipAddresses keys -> NetworkCatalogue links/networks',
  },
  {
    id: 'duplicate',
    severity: 'error',
    summary:
      'same boot MAC, NIC MAC, BMC address (host + System path), IP address on a network (IPv6 in canonical form), or object identity on two hosts/items',
  },
  {
    id: 'network',
    severity: 'error',
    summary:
      "host networking that does not add up: a gateway outside its host's subnet, a boot MAC on no link of the host's network data (a warning)",
  },
  { id: 'hardware-profile', severity: 'error', summary: "host's inventory does not satisfy its HardwareClassification or HardwareProfile" },
  { id: 'certificate-expired', severity: 'error', summary: 'x509 certificate past its notAfter' },
  { id: 'certificate-expiring', severity: 'warning', summary: 'x509 certificate expires within spec.certificates.warnDays (30)' },
  { id: 'certificate-not-yet-valid', severity: 'error', summary: 'x509 certificate before its notBefore' },
  { id: 'certificate-key-mismatch', severity: 'error', summary: 'private key does not belong to the certificate beside it' },
  { id: 'certificate-unreadable', severity: 'warning', summary: 'PEM certificate block that does not parse' },
  {
    id: 'encryption',
    severity: 'error',
    summary: 'Secret or secret-like catalogue with plaintext sensitive values and no sops encryption',
  },
  {
    id: 'secret-placeholder',
    severity: 'info',
    summary:
      'Secret or catalogue value holding a placeholder (airshipctl REPLACEMENT_* words, Flux post-build variables) filled in at render time',
  },
  { id: 'insecure-tls', severity: 'warning', summary: 'disableCertificateVerification: true' },
  {
    id: 'bmc-scheme',
    severity: 'error',
    summary: 'BMC address scheme that BMO has removed (idrac WS-Man, ibmc, ilo4, ilo5, irmc), with the release',
  },
  { id: 'plain-http-bmc', severity: 'warning', summary: 'BMC address over plain http' },
  { id: 'template-leftover', severity: 'warning', summary: 'template leftover value: <no value>, NEWSITE_CHANGEME, CHANGEME' },
  { id: 'capacity-hosts', severity: 'error', summary: 'fewer hosts (or topology domains) for a role than count.active + count.standby' },
  {
    id: 'capacity-resources',
    severity: 'error',
    summary: "workloads' CPU/memory requests on a role exceed its hosts' capacity minus headroom",
  },
];
