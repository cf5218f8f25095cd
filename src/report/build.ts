/**
 * Builds the cross-site report from loaded sites. Every rule and parser comes from
 * intent-validate's library (`analyse`: certificates, hosts with hardware and profiles,
 * encryption and BMC findings, capacity per role); this module only gathers, compares across
 * sites and sorts.
 */
import { redactString } from '../secrets/redact.js';
import type { KubeObject } from '../krm/index.js';
import { ANNOTATED_SOURCE, analyse, type Analysis, type HostFact, type IntentValidateSpec } from '../validate/index.js';
import { compareSites, divergenceFacts, type SiteDivergence, type ValueClass } from './divergence.js';
import type { Site } from './load.js';
import {
  REPORT_API_VERSION,
  REPORT_KIND,
  type CapacityRow,
  type CertificateRow,
  type CertStatus,
  type HardwareMix,
  type HostRow,
  type Report,
  type ResourceId,
  type SecurityRow,
  type SiteSummary,
  type Threshold,
  type WorkloadRow,
} from './model.js';
import { isRecord as isObj, nonEmptyText as str } from '../krm/index.js';
import { pushAll } from '../krm/index.js';

export const THRESHOLDS = [
  'expired-certs',
  'expiring-certs',
  'unencrypted-secrets',
  'insecure-bmc',
  'divergence',
  'unmatched-hosts',
  'over-capacity',
  'errors',
] as const;
export type ThresholdName = (typeof THRESHOLDS)[number];

export interface ReportOptions {
  /** RFC 3339; certificate days-left are computed against it */
  now: string;
  reference?: string;
  roleLabel: string;
  ignoreFields: string[];
  ignoreValues: ValueClass[];
  defaultIgnores: boolean;
  /** filled with the `ignoreFields` that matched a field of a site (divergence.ts) */
  usedIgnores?: Set<string>;
  failOn: ThresholdName[];
  intent: IntentValidateSpec;
}

const SECURITY_RULES = new Set(['encryption', 'insecure-tls', 'plain-http-bmc']);

type Obj = Record<string, unknown>;

function cmp(a: string | number | undefined, b: string | number | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return 1;
  if (b === undefined) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a) < String(b) ? -1 : 1;
}

function resId(r: { apiVersion: string; kind: string; name: string; namespace?: string }): ResourceId {
  const o: ResourceId = { apiVersion: r.apiVersion, kind: r.kind, name: r.name };
  if (r.namespace) o.namespace = r.namespace;
  return o;
}

function safe(o: KubeObject): Obj | undefined {
  try {
    return o.data;
  } catch {
    return undefined;
  }
}

function sizeText(bytes: number | undefined): string {
  if (bytes === undefined) return '?';
  if (bytes >= 1e12) return `${Math.round(bytes / 1e11) / 10}TB`;
  return `${Math.round(bytes / 1e9)}GB`;
}

/** The BIOS version of a host, read from the document its hardware came from. */
function biosVersion(h: HostFact, site: Site): string | undefined {
  const src = h.hardwareSource;
  if (!src) return undefined;
  if (src === 'BareMetalHost status.hardware') return str(h.object.get('status.hardware.firmware.bios.version'));
  if (src === ANNOTATED_SOURCE) return h.hardware?.biosVersion;
  const m = /^(HardwareData|HardwareInventory) (.+)$/.exec(src);
  if (!m) return undefined;
  const doc = site.objects.find((o) => o.kind === m[1] && o.name === m[2] && (m[1] === 'HardwareInventory' || o.namespace === h.namespace));
  if (!doc) return undefined;
  return m[1] === 'HardwareData' ? str(doc.get('spec.hardware.firmware.bios.version')) : str(doc.get('spec.system.biosVersion'));
}

function hostRow(site: Site, h: HostFact, roleLabel: string): HostRow {
  const hw = h.hardware;
  const disks = new Map<string, number>();
  for (const d of hw?.disks ?? []) {
    const k = `${d.type ?? (d.rotational ? 'HDD' : 'disk')} ${sizeText(d.sizeBytes)}`;
    disks.set(k, (disks.get(k) ?? 0) + 1);
  }
  const row: HostRow = {
    site: site.name,
    name: h.name,
    kind: h.kind,
    disks: [...disks].sort((a, b) => cmp(a[0], b[0])).map(([k, n]) => `${n}x ${k}`),
    diskCount: hw?.disks.length ?? 0,
    nicCount: hw?.nics.length ?? 0,
    profiles: h.profiles
      .map((p) => ({ kind: p.kind, name: p.name, matched: p.matched, failures: [...p.failures] }))
      .sort((a, b) => cmp(a.name, b.name) || cmp(a.kind, b.kind)),
    profileStatus: 'none',
  };
  if (h.namespace) row.namespace = h.namespace;
  const role = h.labels[roleLabel];
  if (role) row.role = role;
  if (h.hardwareSource) row.hardwareSource = h.hardwareSource;
  if (hw?.manufacturer) row.manufacturer = hw.manufacturer;
  if (hw?.productName) row.model = hw.productName;
  if (hw?.cpuArch) row.cpuArch = hw.cpuArch;
  if (hw?.cpuCount !== undefined) row.cpuCount = hw.cpuCount;
  if (hw?.cpuMHz !== undefined) row.cpuMHz = hw.cpuMHz;
  if (hw?.ramMiB !== undefined) row.ramMiB = hw.ramMiB;
  const bios = biosVersion(h, site);
  if (bios) row.biosVersion = bios;
  const requested = h.labels['baremetal-krm.dev/hardware-profile'] ?? h.object.annotations['baremetal-krm.dev/hardware-profile'];
  if (requested) row.requestedProfile = requested;
  if (row.profiles.length === 0) row.profileStatus = requested ? 'unchecked' : 'none';
  else if (!hw) row.profileStatus = 'no-inventory';
  else row.profileStatus = row.profiles.every((p) => p.matched) ? 'matched' : 'mismatch';
  return row;
}

function workloadVersion(o: KubeObject): string | undefined {
  const d = safe(o);
  if (!d) return undefined;
  const spec = isObj(d.spec) ? d.spec : {};
  switch (o.kind) {
    case 'HelmRelease': {
      const c = isObj(spec.chart) && isObj(spec.chart.spec) ? spec.chart.spec : undefined;
      if (c) return `${str(c.chart) ?? '?'}@${str(c.version) ?? '*'}`;
      const ref = isObj(spec.chartRef) ? spec.chartRef : undefined;
      return ref ? `${str(ref.kind) ?? '?'}/${str(ref.name) ?? '?'}` : '?';
    }
    case 'Kustomization': {
      const src = isObj(spec.sourceRef) ? `${str(spec.sourceRef.kind) ?? '?'}/${str(spec.sourceRef.name) ?? '?'}` : '?';
      return `${str(spec.path) ?? '.'} (${src})${spec.suspend === true ? ' suspended' : ''}`;
    }
    case 'GitRepository': {
      const ref = isObj(spec.ref) ? spec.ref : {};
      const r = str(ref.tag) ?? str(ref.semver) ?? str(ref.commit) ?? str(ref.branch) ?? str(ref.name) ?? '';
      return `${str(spec.url) ?? '?'}${r ? '@' + r : ''}`;
    }
    case 'HelmRepository':
    case 'OCIRepository':
      return str(spec.url) ?? '?';
    default: {
      const tpl = o.kind === 'Pod' ? spec : isObj(spec.template) && isObj(spec.template.spec) ? spec.template.spec : {};
      const images: string[] = [];
      for (const k of ['initContainers', 'containers'])
        for (const c of Array.isArray(tpl[k]) ? (tpl[k] as unknown[]) : []) if (isObj(c) && str(c.image)) images.push(str(c.image)!);
      const replicas = typeof spec.replicas === 'number' ? ` x${spec.replicas}` : '';
      return `${images.join(', ') || '?'}${replicas}`;
    }
  }
}

const WORKLOAD_KINDS: Record<string, string | undefined> = {
  HelmRelease: 'helm.toolkit.fluxcd.io',
  Kustomization: 'kustomize.toolkit.fluxcd.io',
  GitRepository: 'source.toolkit.fluxcd.io',
  HelmRepository: 'source.toolkit.fluxcd.io',
  OCIRepository: 'source.toolkit.fluxcd.io',
  Deployment: 'apps',
  StatefulSet: 'apps',
  DaemonSet: 'apps',
};

function certStatus(c: { notBefore: string; notAfter: string; daysLeft: number }, now: number, warnDays: number): CertStatus {
  if (Date.parse(c.notAfter) < now) return 'expired';
  if (Date.parse(c.notBefore) > now) return 'not-yet-valid';
  if (c.daysLeft < warnDays) return 'expiring';
  return 'ok';
}

/** Where an object of a site is written: its file (relative to the site) and first line. */
interface Located {
  file?: string;
  line?: number;
}

function locate(site: Site, o: KubeObject | undefined): Located {
  if (!o) return {};
  const file = site.files.get(o);
  const out: Located = {};
  if (file !== undefined) out.file = file;
  if (file !== undefined && o.sourceLine !== undefined) out.line = o.sourceLine;
  return out;
}

/** What every site adds to the report, gathered site by site. */
/** What the report gathers of each site: one site's slice, or several sites' together. */
export interface Gathered {
  summaries: SiteSummary[];
  certificates: CertificateRow[];
  hosts: HostRow[];
  security: SecurityRow[];
  capacity: CapacityRow[];
  divergence: SiteDivergence[];
  workloads: { kind: string; name: string; namespace?: string; site: string; version: string }[];
  errors: number;
  capacityFindings: number;
}

/** A slice with nothing in it yet (a site's, or the fleet's being merged). */
export function emptyGathered(): Gathered {
  return {
    summaries: [],
    certificates: [],
    hosts: [],
    security: [],
    capacity: [],
    divergence: [],
    workloads: [],
    errors: 0,
    capacityFindings: 0,
  };
}

/** Adds a site's slice to the sites gathered so far. */
export function addGathered(into: Gathered, from: Gathered): void {
  pushAll(into.summaries, from.summaries);
  pushAll(into.certificates, from.certificates);
  pushAll(into.hosts, from.hosts);
  pushAll(into.security, from.security);
  pushAll(into.capacity, from.capacity);
  pushAll(into.divergence, from.divergence);
  pushAll(into.workloads, from.workloads);
  into.errors += from.errors;
  into.capacityFindings += from.capacityFindings;
}

function siteCertificates(site: Site, a: Analysis, now: number, warnDays: number): CertificateRow[] {
  const byId = new Map<string, KubeObject>();
  for (const o of site.objects) byId.set(`${o.kind}|${o.namespace ?? ''}|${o.name}`, o);
  return a.facts.certificates.map((c) => {
    const row: CertificateRow = {
      site: site.name,
      resource: resId(c.resource),
      field: c.field + (c.index > 0 ? `[${c.index}]` : ''),
      subject: c.subject,
      issuer: c.issuer,
      notBefore: c.notBefore,
      notAfter: c.notAfter,
      daysLeft: c.daysLeft,
      status: certStatus(c, now, warnDays),
    };
    const at = locate(site, byId.get(`${c.resource.kind}|${c.resource.namespace ?? ''}|${c.resource.name}`));
    const file = at.file ?? c.file;
    if (file) row.file = file;
    if (at.line !== undefined) row.line = at.line;
    return row;
  });
}

/** Findings by rule, the error count and the security rows of one site. */
function siteFindings(site: Site, a: Analysis, g: Gathered): Record<string, number> {
  const rules: Record<string, number> = {};
  for (const f of a.findings) {
    rules[f.rule] = (rules[f.rule] ?? 0) + 1;
    if (f.severity === 'error') g.errors++;
    if (f.rule === 'capacity-hosts' || f.rule === 'capacity-resources') g.capacityFindings++;
    if (!SECURITY_RULES.has(f.rule)) continue;
    const row: SecurityRow = { site: site.name, rule: f.rule, severity: f.severity, message: f.message };
    if (f.object) row.resource = resId(f.object.ref());
    if (f.field) row.field = f.field;
    const at = locate(site, f.object);
    if (at.file !== undefined) row.file = at.file;
    if (at.line !== undefined) row.line = f.line ?? at.line;
    g.security.push(row);
  }
  return Object.fromEntries(Object.entries(rules).sort((x, y) => cmp(x[0], y[0])));
}

/** Capacity of the roles of intent.capacity (requests need their nodeSelector). */
function configuredCapacity(site: Site, a: Analysis, opts: ReportOptions): CapacityRow[] {
  const configured = opts.intent.capacity?.roles ?? [];
  return a.facts.roles.map((r) => {
    const members = a.facts.hosts.filter((h) => r.hosts.includes(h.name));
    const row: CapacityRow = {
      site: site.name,
      role: r.name,
      hosts: r.hosts.length,
      wanted: r.wanted,
      hostsWithoutInventory: members.filter((h) => h.hardware?.cpuCount === undefined || h.hardware?.ramMiB === undefined).length,
      over: false,
    };
    if (r.cpuCapacity !== undefined) row.cpuAvailable = r.cpuCapacity;
    if (r.memoryCapacityMiB !== undefined) row.memoryAvailableMiB = r.memoryCapacityMiB;
    const roleCfg = configured.find((c) => c.name === r.name);
    if (roleCfg?.nodeSelector && Object.keys(roleCfg.nodeSelector).length > 0) {
      row.cpuRequested = r.cpuRequested;
      row.memoryRequestedMiB = r.memoryRequestedMiB;
    }
    const enough = r.domains !== undefined ? r.domains >= r.wanted : r.hosts.length >= r.wanted;
    row.over =
      !enough ||
      (row.cpuAvailable !== undefined && (row.cpuRequested ?? 0) > row.cpuAvailable) ||
      (row.memoryAvailableMiB !== undefined && (row.memoryRequestedMiB ?? 0) > row.memoryAvailableMiB);
    return row;
  });
}

/** Without intent.capacity.roles: hosts grouped by the role label with their summed hardware. */
function capacityByRole(site: Site, a: Analysis, opts: ReportOptions): CapacityRow[] {
  const byRole = new Map<string, HostFact[]>();
  for (const h of a.facts.hosts) {
    const role = h.labels[opts.roleLabel] ?? '(no role)';
    byRole.set(role, [...(byRole.get(role) ?? []), h]);
  }
  return [...byRole].map(([role, list]) => {
    const known = list.filter((h) => h.hardware?.cpuCount !== undefined && h.hardware?.ramMiB !== undefined);
    const row: CapacityRow = { site: site.name, role, hosts: list.length, hostsWithoutInventory: list.length - known.length, over: false };
    if (known.length > 0) {
      row.cpuAvailable = known.reduce((s, h) => s + h.hardware!.cpuCount!, 0);
      row.memoryAvailableMiB = known.reduce((s, h) => s + h.hardware!.ramMiB!, 0);
    }
    return row;
  });
}

function gatherWorkloads(site: Site, g: Gathered): void {
  for (const o of site.objects) {
    const group = WORKLOAD_KINDS[o.kind];
    if (group === undefined || o.group !== group) continue;
    const w: Gathered['workloads'][number] = {
      kind: o.kind,
      name: o.name,
      site: site.name,
      version: redactString(workloadVersion(o) ?? '?').text,
    };
    if (o.namespace) w.namespace = o.namespace;
    g.workloads.push(w);
  }
}

/** The hardware summary of each host, compared with it in divergence. */
function hostFields(a: Analysis, siteHosts: HostRow[]): Map<KubeObject, Record<string, string | number | undefined>> {
  const out = new Map<KubeObject, Record<string, string | number | undefined>>();
  for (const h of a.facts.hosts) {
    const r = siteHosts.find((x) => x.name === h.name && x.kind === h.kind && x.namespace === h.namespace)!;
    out.set(h.object, {
      model: r.manufacturer || r.model ? `${r.manufacturer ?? '?'} ${r.model ?? '?'}` : undefined,
      cpu: r.cpuCount !== undefined ? `${r.cpuCount}x ${r.cpuArch ?? '?'}` : undefined,
      ramMiB: r.ramMiB,
      disks: r.disks.length ? r.disks.join(', ') : undefined,
      nics: r.hardwareSource ? r.nicCount : undefined,
      bios: r.biosVersion,
      profiles: r.profiles.length ? r.profiles.map((p) => `${p.name}: ${p.matched ? 'matched' : 'mismatch'}`).join(', ') : undefined,
    });
  }
  return out;
}

/**
 * Hosts an airshipctl host catalogue (VariableCatalogue `hosts.m3.<node>`) names that no
 * BareMetalHost or inventory of the site has yet: they are hosts of the site too (their
 * BareMetalHosts are generated at render time).
 */
function catalogueOnlyHosts(site: Site, known: readonly HostRow[], roleLabel: string): HostRow[] {
  const names = new Set(known.map((h) => h.name));
  const out: HostRow[] = [];
  for (const o of site.objects) {
    if (o.kind !== 'VariableCatalogue' || o.group !== 'airshipit.org') continue;
    const groups = safe(o)?.hosts;
    if (!isObj(groups)) continue;
    for (const members of Object.values(groups)) {
      if (!isObj(members)) continue;
      for (const [node, h] of Object.entries(members)) {
        if (names.has(node) || !isObj(h)) continue;
        names.add(node);
        const row: HostRow = {
          site: site.name,
          name: node,
          kind: 'host catalogue',
          disks: [],
          diskCount: 0,
          nicCount: 0,
          profiles: [],
          profileStatus: 'none',
        };
        const role = isObj(h.labels) ? str(h.labels[roleLabel]) : undefined;
        if (role) row.role = role;
        Object.assign(row, locate(site, o));
        out.push(row);
      }
    }
  }
  return out;
}

/** One site's slice of the report: everything the report needs of it, computed from it alone. */
export async function gatherSite(site: Site, opts: ReportOptions): Promise<Gathered> {
  const g = emptyGathered();
  g.errors += site.unreadable; // documents that do not parse are errors too
  const spec = reportSpec(opts);
  const now = Date.parse(opts.now);
  const a: Analysis = await analyse(site.objects, spec);
  pushAll(g.certificates, siteCertificates(site, a, now, opts.intent.certificates?.warnDays ?? 30));
  const siteHosts = a.facts.hosts.map((h) => Object.assign(hostRow(site, h, opts.roleLabel), locate(site, h.object)));
  const catalogued = catalogueOnlyHosts(site, siteHosts, opts.roleLabel);
  pushAll(pushAll(g.hosts, siteHosts), catalogued);
  const rules = siteFindings(site, a, g);
  pushAll(g.capacity, (opts.intent.capacity?.roles ?? []).length > 0 ? configuredCapacity(site, a, opts) : capacityByRole(site, a, opts));
  gatherWorkloads(site, g);
  g.divergence.push(
    divergenceFacts({ name: site.name, objects: site.objects, hosts: a.facts.hosts, hostFields: hostFields(a, siteHosts) }, opts),
  );
  const summary: SiteSummary = {
    name: site.name,
    source: site.source,
    mode: site.mode,
    objects: site.objects.length,
    hosts: a.facts.hosts.length + catalogued.length,
    certificates: a.facts.certificates.length,
    encryptedDocuments: site.objects.filter((o) => isObj(safe(o)?.sops)).length,
    findings: { ...a.counts },
    rules,
    skipped: [...site.skipped],
  };
  if (catalogued.length) summary.catalogueOnlyHosts = catalogued.length;
  if (site.notes.length) summary.notes = [...site.notes];
  g.summaries.push(summary);
  return g;
}

function sortRows(g: Gathered, siteNames: string[]): HardwareMix[] {
  const siteIndex = new Map(siteNames.map((n, i) => [n, i]));
  const bySite = (a: { site: string }, b: { site: string }): number => siteIndex.get(a.site)! - siteIndex.get(b.site)!;
  g.certificates.sort(
    (a, b) =>
      a.daysLeft - b.daysLeft ||
      bySite(a, b) ||
      cmp(a.resource.kind, b.resource.kind) ||
      cmp(a.resource.name, b.resource.name) ||
      cmp(a.field, b.field) ||
      cmp(a.subject, b.subject),
  );
  g.hosts.sort((a, b) => bySite(a, b) || cmp(a.role ?? '~', b.role ?? '~') || cmp(a.name, b.name) || cmp(a.kind, b.kind));
  g.security.sort(
    (a, b) =>
      bySite(a, b) ||
      cmp(a.rule, b.rule) ||
      cmp(a.resource?.kind, b.resource?.kind) ||
      cmp(a.resource?.name, b.resource?.name) ||
      cmp(a.field, b.field) ||
      cmp(a.message, b.message),
  );
  g.capacity.sort((a, b) => bySite(a, b) || cmp(a.role, b.role));
  const mixMap = new Map<string, HardwareMix>();
  for (const h of g.hosts) {
    const model = h.manufacturer || h.model ? `${h.manufacturer ?? '?'} ${h.model ?? '?'}` : 'unknown';
    const k = `${h.site}|${model}`;
    const m = mixMap.get(k);
    if (m) m.hosts++;
    else mixMap.set(k, { site: h.site, model, hosts: 1 });
  }
  return [...mixMap.values()].sort((a, b) => bySite(a, b) || cmp(a.model, b.model));
}

function workloadRows(g: Gathered, siteNames: string[], opts: ReportOptions): WorkloadRow[] {
  const byKey = new Map<string, { kind: string; name: string; namespace?: string; versions: Map<string, string> }>();
  for (const w of g.workloads) {
    const key = `${w.kind}|${w.namespace ?? ''}|${w.name}`;
    let row = byKey.get(key);
    if (!row) {
      row = { kind: w.kind, name: w.name, versions: new Map() };
      if (w.namespace) row.namespace = w.namespace;
      byKey.set(key, row);
    }
    row.versions.set(w.site, w.version);
  }
  const siteRes = siteNames.map((n) => (n.length >= 3 ? new RegExp(n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g') : undefined));
  return [...byKey.values()]
    .map((w) => {
      const versions: WorkloadRow['versions'] = [];
      const masked = new Set<string | null>();
      siteNames.forEach((n, i) => {
        const v = w.versions.get(n) ?? null;
        versions.push({ site: n, version: v });
        masked.add(v !== null && siteRes[i] && opts.ignoreValues.includes('site-name') ? v.replace(siteRes[i]!, '<site>') : v);
      });
      const row: WorkloadRow = { kind: w.kind, name: w.name, versions, differs: masked.size > 1 };
      if (w.namespace) row.namespace = w.namespace;
      return row;
    })
    .sort((a, b) => cmp(a.kind, b.kind) || cmp(a.namespace ?? '', b.namespace ?? '') || cmp(a.name, b.name));
}

function thresholds(g: Gathered, divergent: number, opts: ReportOptions): Threshold[] {
  const counts: Record<ThresholdName, number> = {
    'expired-certs': g.certificates.filter((c) => c.status === 'expired').length,
    'expiring-certs': g.certificates.filter((c) => c.status === 'expiring').length,
    'unencrypted-secrets': g.security.filter((s) => s.rule === 'encryption').length,
    'insecure-bmc': g.security.filter((s) => s.rule === 'insecure-tls' || s.rule === 'plain-http-bmc').length,
    divergence: divergent,
    'unmatched-hosts': g.hosts.filter((h) => h.profileStatus === 'mismatch' || h.profileStatus === 'no-inventory').length,
    'over-capacity': Math.max(g.capacityFindings, g.capacity.filter((c) => c.over).length),
    errors: g.errors,
  };
  return THRESHOLDS.map((name) => ({ name, broken: opts.failOn.includes(name) && counts[name] > 0, count: counts[name] }));
}

/** The analysis settings of the report: intent-validate's, less the schema rules (the report is not a linter). */
function reportSpec(opts: ReportOptions): IntentValidateSpec {
  return {
    ...opts.intent,
    now: opts.now,
    rules: {
      schema: { severity: 'off' },
      'schema-unknown-field': { severity: 'off' },
      'yaml-ambiguous': { severity: 'off' },
      ...opts.intent.rules,
    },
  };
}

export async function buildReport(sites: readonly Site[], opts: ReportOptions): Promise<Report> {
  const g = emptyGathered();
  for (const site of sites) addGathered(g, await gatherSite(site, opts));
  return assembleReport(g, opts);
}

/** The report from the gathered slices of every site (in command-line order). */
export function assembleReport(g: Gathered, opts: ReportOptions): Report {
  const siteNames = g.summaries.map((s) => s.name);
  const mix = sortRows(g, siteNames);
  const div = compareSites(g.divergence, { reference: opts.reference });
  const report: Report = {
    apiVersion: REPORT_API_VERSION,
    kind: REPORT_KIND,
    now: new Date(Date.parse(opts.now)).toISOString().replace('.000Z', 'Z'),
    sites: g.summaries,
    certificates: g.certificates,
    hardware: { hosts: g.hosts, mix },
    divergence: div,
    workloads: workloadRows(g, siteNames, opts),
    security: g.security,
    capacity: g.capacity,
    thresholds: thresholds(g, div.length, opts),
    failOn: [...opts.failOn],
  };
  if (opts.reference) report.reference = opts.reference;
  return report;
}
