/**
 * The rules of intent-validate as a library: `analyse(objects, spec)` returns the findings and
 * the facts it found (certificates, hosts with their hardware and profiles, capacity), so that
 * other tools (the cross-site report) reuse them without a second implementation.
 *
 * It reads items with `obj.data` (the fast reader) and never keeps or prints secret values.
 */
import type { KubeObject } from '../krm/index.js';
import { bmcIdentity } from '../model/bmc.js';
import { RULES, type RuleSeverity } from './rules.js';
import { checkSchemas, type SchemaOptions } from './schema.js';
import { checkCertificates, type CertificateFact } from './certificates.js';
import { HARDWARE_ANNOTATION, hostHardware, matchClassification, matchProfile, type HostHardware } from './hardware.js';
import { parseCpu, parseMemoryMiB } from './quantity.js';

export interface IntentValidateSpec {
  /** `false` is what YAML 1.1 makes of an unquoted `off` */
  rules?: Record<string, { severity: RuleSeverity | false }>;
  now?: string;
  certificates?: { warnDays?: number };
  encryption?: { allow?: string[] };
  references?: { external?: string[] };
  schemas?: { paths?: string[]; skipKinds?: string[]; ignoreMissing?: boolean };
  capacity?: {
    headroomPercent?: number;
    roles?: {
      name: string;
      selector: { matchLabels?: Record<string, string> };
      count?: { active?: number; standby?: number };
      topologyKey?: string;
      nodeSelector?: Record<string, string>;
      headroomPercent?: number;
    }[];
  };
}

export interface Finding {
  rule: string;
  severity: 'error' | 'warning' | 'info';
  message: string;
  object?: KubeObject;
  /** dotted path, `spec.bmc.address` or `data.tls\.crt` style keys kept as is */
  field?: string;
  /** path segments for line lookup */
  path?: (string | number)[];
  /** known line (1-based in the item's source) when the rule found it from text */
  line?: number;
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
  profiles: { kind: string; name: string; matched: boolean; failures: string[] }[];
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
  counts: Record<'error' | 'warning' | 'info', number>;
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

/** Compiles `Kind/ns/name` patterns with `*` into a matcher over an object. */
export function objectMatcher(patterns: string[] | undefined): (kind: string, ns: string | undefined, name: string) => boolean {
  const res = (patterns ?? []).map((p) => {
    const parts = p.split('/');
    const rx = (s: string): RegExp => new RegExp('^' + s.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*') + '$');
    if (parts.length === 1) return { name: rx(parts[0]!) };
    if (parts.length === 2) return { kind: rx(parts[0]!), name: rx(parts[1]!) };
    return { kind: rx(parts[0]!), ns: rx(parts[1]!), name: rx(parts.slice(2).join('/')) };
  });
  return (kind, ns, name) => res.some((r) => (!r.kind || r.kind.test(kind)) && (!r.ns || r.ns.test(ns ?? '')) && r.name.test(name));
}

const SEVERITY = new Map(RULES.map((r) => [r.id, r.severity]));

const B64_PEM = 'LS0tLS1CRUdJTi'; // base64 of "-----BEGIN"
function safeData(o: KubeObject): Record<string, unknown> | undefined {
  try {
    return o.data;
  } catch {
    return undefined;
  }
}

/** Normalises a MAC for comparison. */
function mac(v: string): string {
  return v.trim().toLowerCase().replace(/-/g, ':');
}

const SENSITIVE_KEY = /pass(word|wd|phrase)?$|secret|token|private.?key|-key(-data)?$|\.key$|^key$|credential|api[-_]?key|access[-_]?key/i;
/** Settings about a secret, not secrets: `tokenTTL`, `sessionTimeout`, `tokenExpirySeconds` ... */
const SETTING_KEY = /(?:ttl|timeout|seconds|minutes|hours|interval|duration|period)$/i;
/** Keys that name or point at a secret rather than hold one (`credentialsName`, `secretRef` ...). */
const REFERENCE_KEY = /(?:Name|Ref|Namespace|Path|File|Selector|Template|Regex)$/;
/**
 * Secret keys that hold no secret: Metal3 network data and metadata (addresses, links, routes),
 * which airshipctl and Metal3 keep in Secrets only because BMO reads them from there.
 */
const NON_SENSITIVE_SECRET_KEY = /^(?:networkData|network[-_]?data|metaData|meta[-_]?data|nmstate|networkConfig)$/;
const TEMPLATE_LEFTOVER = /<no value>|NEWSITE_CHANGEME|CHANGEME/;

function isEncrypted(v: unknown): boolean {
  return typeof v === 'string' && v.startsWith('ENC[');
}

/** Runs every rule. Pure: nothing is printed, nothing is changed. */
/** Where a rendered host's hardware came from: its annotation (written by baremetal-krm render). */
export const ANNOTATED_SOURCE = `BareMetalHost annotation ${HARDWARE_ANNOTATION}`;

function annotatedHardware(b: KubeObject): { source: string; data: unknown; kind: 'metal3' } | undefined {
  try {
    const data: unknown = JSON.parse(b.annotations[HARDWARE_ANNOTATION]!);
    return isObj(data) ? { source: ANNOTATED_SOURCE, data, kind: 'metal3' } : undefined;
  } catch {
    return undefined;
  }
}

export async function analyse(objects: readonly KubeObject[], spec: IntentValidateSpec = {}, opts: AnalyseOptions = {}): Promise<Analysis> {
  const findings: Finding[] = [];
  const sev = (rule: string): Finding['severity'] | undefined => {
    const s = spec.rules?.[rule]?.severity ?? SEVERITY.get(rule);
    return s === 'off' || s === false || s === undefined ? undefined : s;
  };
  const report = (rule: string, message: string, f: Omit<Finding, 'rule' | 'severity' | 'message'> = {}, atMost?: 'warning'): void => {
    let s = sev(rule);
    if (s === 'error' && atMost) s = atMost;
    if (s) findings.push({ rule, severity: s, message, ...f });
  };
  const on = (rule: string): boolean => sev(rule) !== undefined;
  const now = spec.now !== undefined ? Date.parse(spec.now) : Date.now();
  // an unreadable spec.now would make every certificate comparison false: refuse it, check no certificate
  const nowValid = Number.isFinite(now);
  if (!nowValid)
    findings.push({
      rule: 'config',
      severity: 'error',
      message: `spec.now ${JSON.stringify(spec.now)} is not a valid time: write an RFC 3339 time such as 2024-01-01T00:00:00Z (or leave it out for the current time); no certificate was checked`,
      field: 'spec.now',
    });

  // parse every item once, first: the header getters (kind, name, labels ...) then read the parsed
  // data instead of parsing each item's header text a second time
  for (const o of objects) safeData(o);
  const items = objects.filter((o) => !o.isKptfile());
  const byKind = new Map<string, KubeObject[]>();
  for (const o of items) {
    const list = byKind.get(o.kind);
    if (list) list.push(o);
    else byKind.set(o.kind, [o]);
  }
  const kind = (k: string, group?: string): KubeObject[] => (byKind.get(k) ?? []).filter((o) => group === undefined || o.group === group);
  const key = (k: string, ns: string | undefined, name: string): string => `${k}|${ns ?? ''}|${name}`;
  const present = new Set<string>();
  for (const o of items) present.add(key(o.kind, o.namespace, o.name));
  const external = objectMatcher(spec.references?.external);
  const exists = (k: string, ns: string | undefined, name: string): boolean => present.has(key(k, ns, name)) || external(k, ns, name);

  // ---- schema, unknown fields, ambiguous scalars
  if (on('schema') || on('schema-unknown-field') || on('yaml-ambiguous')) {
    const schemaOpts: SchemaOptions = {
      skipKinds: new Set(spec.schemas?.skipKinds ?? []),
      extraCrds: opts.extraCrds ?? [],
      ambiguous: on('yaml-ambiguous'),
      schema: on('schema') || on('schema-unknown-field'),
    };
    for (const f of await checkSchemas(items, schemaOpts)) {
      const { lenient, ...rest } = f;
      if (opts.partial?.has(f.object) && f.rule === 'schema' && /missing required field/.test(f.message)) continue;
      report(f.rule, f.message, rest, lenient ? 'warning' : undefined);
    }
  }

  // ---- duplicates: object identity
  if (on('duplicate')) {
    const seen = new Map<string, KubeObject>();
    for (const o of items) {
      if (!o.kind || !o.name || opts.partial?.has(o)) continue;
      const id = `${opts.scopeOf?.(o) ?? ''}|${o.group}|${o.kind}|${o.namespace ?? ''}|${o.name}`;
      const first = seen.get(id);
      if (first) {
        const where = opts.locate ? opts.locate(first) : first.file()?.path;
        report(
          'duplicate',
          `${o.id} is defined twice (first${where ? ' in ' + where : ''}); kustomize and the API server keep only one: rename or remove one of them`,
          {
            object: o,
            field: 'metadata.name',
            path: ['metadata', 'name'],
          },
        );
      } else seen.set(id, o);
    }
  }

  // ---- BareMetalHosts: references, duplicates, hygiene
  const bmhs = kind('BareMetalHost', 'metal3.io');
  const macOwners = new Map<string, { owner: string; obj: KubeObject; field: string; path: (string | number)[] }>();
  const claimMac = (value: unknown, owner: string, obj: KubeObject, field: string, path: (string | number)[]): void => {
    const v = scalarText(value);
    if (!v || !on('duplicate')) return;
    const m = mac(v);
    if (!/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/.test(m)) return;
    const prev = macOwners.get(m);
    if (prev && !sameHost(prev.owner, owner)) {
      report(
        'duplicate',
        `MAC ${m} of ${owner} is also used by ${prev.owner} (${prev.obj.id} ${prev.field}); every NIC has its own MAC: fix the copy-paste`,
        { object: obj, field, path },
      );
    } else if (!prev) macOwners.set(m, { owner, obj, field, path });
  };
  const bmcOwners = new Map<string, { owner: string; obj: KubeObject }>();
  const claimBmc = (value: unknown, owner: string, obj: KubeObject, field: string, path: (string | number)[]): void => {
    const raw = scalarText(value);
    if (!raw) return;
    // never repeat credentials written into an address (`http://admin:pw@10.0.0.1/...`): a finding of its own
    const v = raw.replace(/^([a-z0-9+.-]+:\/\/)[^/@\s]*@/i, '$1***@');
    if (v !== raw)
      report(
        'encryption',
        `BMC address of ${owner} has credentials in it (${v}): remove them; BareMetalHosts take credentials from the Secret in bmc.credentialsName`,
        { object: obj, field, path },
      );
    if (on('plain-http-bmc') && /^([a-z0-9-]+\+)?http:\/\//i.test(v))
      report(
        'plain-http-bmc',
        `BMC address ${v} of ${owner} uses plain http: credentials cross the network in clear; use https (e.g. redfish+https://, idrac-virtualmedia+https://)`,
        { object: obj, field, path },
      );
    if (!on('duplicate')) return;
    const k = bmcIdentity(v);
    const prev = bmcOwners.get(k);
    if (prev && !sameHost(prev.owner, owner))
      report(
        'duplicate',
        `BMC address ${v} of ${owner} is also the BMC of ${prev.owner} (${prev.obj.id}); two hosts would power-cycle the same machine: fix the address or System path`,
        { object: obj, field, path },
      );
    else if (!prev) bmcOwners.set(k, { owner, obj });
  };
  const ipOwners = new Map<string, { owner: string; obj: KubeObject }>();
  const claimIp = (network: string, value: unknown, owner: string, obj: KubeObject, field: string, path: (string | number)[]): void => {
    const v = scalarText(value);
    if (!v || !on('duplicate')) return;
    const ip = v.replace(/\/\d+$/, '');
    const k = `${network}|${ip}`;
    const prev = ipOwners.get(k);
    if (prev && !sameHost(prev.owner, owner))
      report(
        'duplicate',
        `IP ${ip} on network ${network} of ${owner} is also given to ${prev.owner} (${prev.obj.id}): give each host its own address`,
        { object: obj, field, path },
      );
    else if (!prev) ipOwners.set(k, { owner, obj });
  };
  const secretRef = (o: KubeObject, name: unknown, ns: unknown, field: string, what: string): void => {
    const n = scalarText(name);
    if (!n || !on('reference')) return;
    const namespace = scalarText(ns) ?? o.namespace;
    if (!exists('Secret', namespace, n))
      report(
        'reference',
        `${what} Secret ${namespace ? namespace + '/' : ''}${n} referenced by ${o.id} is not in the input: add the Secret (same namespace) or fix ${field}`,
        {
          object: o,
          field,
          path: field.split('.'),
        },
      );
  };
  const secretsByName = new Map<string, KubeObject>();
  for (const s of kind('Secret')) secretsByName.set(key('Secret', s.namespace, s.name), s);

  for (const o of bmhs) {
    const d = safeData(o);
    if (!d || opts.partial?.has(o)) continue;
    const specD = isObj(d.spec) ? d.spec : {};
    const owner = `BareMetalHost ${o.namespace ? o.namespace + '/' : ''}${o.name}`;
    const bmc = isObj(specD.bmc) ? specD.bmc : {};
    secretRef(o, bmc.credentialsName, undefined, 'spec.bmc.credentialsName', 'BMC credentials');
    for (const f of ['networkData', 'userData', 'metaData'] as const) {
      const r = specD[f];
      if (isObj(r)) secretRef(o, r.name, r.namespace, `spec.${f}.name`, f);
    }
    secretRef(o, specD.preprovisioningNetworkDataName, undefined, 'spec.preprovisioningNetworkDataName', 'preprovisioning networkData');
    claimMac(specD.bootMACAddress, owner, o, 'spec.bootMACAddress', ['spec', 'bootMACAddress']);
    claimBmc(bmc.address, owner, o, 'spec.bmc.address', ['spec', 'bmc', 'address']);
    if (on('insecure-tls') && bmc.disableCertificateVerification === true)
      report(
        'insecure-tls',
        `${owner} has spec.bmc.disableCertificateVerification: true: the BMC's identity is not checked; install a trusted certificate on the BMC and set it to false`,
        {
          object: o,
          field: 'spec.bmc.disableCertificateVerification',
          path: ['spec', 'bmc', 'disableCertificateVerification'],
        },
      );
    // network data: MACs and IPs
    const nd = isObj(specD.networkData) ? scalarText(specD.networkData.name) : undefined;
    if (nd) {
      const ns = scalarText((specD.networkData as Record<string, unknown>).namespace) ?? o.namespace;
      const secret = secretsByName.get(key('Secret', ns, nd));
      if (secret) scanNetworkData(secret, owner, claimMac, claimIp);
    }
  }

  // host catalogues (airshipctl VariableCatalogue hosts.m3.<node>)
  for (const o of kind('VariableCatalogue')) {
    const d = safeData(o);
    const hosts = d && isObj(d.hosts) ? d.hosts : undefined;
    if (!hosts) continue;
    for (const [group, members] of Object.entries(hosts)) {
      if (!isObj(members)) continue;
      for (const [node, h] of Object.entries(members)) {
        if (!isObj(h)) continue;
        const owner = `host ${node} (${o.id})`;
        const base = ['hosts', group, node];
        claimMac(h.macAddress, owner, o, base.join('.') + '.macAddress', [...base, 'macAddress']);
        if (isObj(h.macAddresses))
          for (const [nic, m] of Object.entries(h.macAddresses))
            claimMac(m, owner, o, `${base.join('.')}.macAddresses.${nic}`, [...base, 'macAddresses', nic]);
        claimBmc(h.bmcAddress, owner, o, base.join('.') + '.bmcAddress', [...base, 'bmcAddress']);
        if (isObj(h.ipAddresses))
          for (const [net, ip] of Object.entries(h.ipAddresses))
            claimIp(net, ip, owner, o, `${base.join('.')}.ipAddresses.${net}`, [...base, 'ipAddresses', net]);
      }
    }
  }

  // HardwareInventory (bmh-from-redfish): NIC MACs and BMC
  const inventories = kind('HardwareInventory', 'baremetal-krm.dev');
  const bmhByName = new Map(bmhs.map((b) => [key('BareMetalHost', b.namespace, b.name), b]));
  const bmhByBmc = new Map<string, KubeObject>();
  if (inventories.length > 0)
    for (const b of bmhs) {
      const a = scalarText(dig(safeData(b), 'spec', 'bmc', 'address'));
      if (a) bmhByBmc.set(bmcIdentity(a), b);
    }
  const inventoryOf = new Map<KubeObject, KubeObject>();
  for (const inv of inventories) {
    const d = safeData(inv);
    const s = d && isObj(d.spec) ? d.spec : {};
    const b = isObj(s.bmc) ? s.bmc : {};
    const addr = scalarText(b.address);
    const full = addr
      ? bmcIdentity(addr + (scalarText(b.systemPath) && !addr.includes('/redfish/') ? scalarText(b.systemPath) : ''))
      : undefined;
    const host = bmhByName.get(key('BareMetalHost', inv.namespace, inv.name)) ?? (full ? bmhByBmc.get(full) : undefined);
    const owner = host
      ? `BareMetalHost ${host.namespace ? host.namespace + '/' : ''}${host.name}`
      : `HardwareInventory ${inv.namespace ? inv.namespace + '/' : ''}${inv.name}`;
    if (host) inventoryOf.set(host, inv);
    else if (addr)
      claimBmc(
        addr + (scalarText(b.systemPath) && !addr.includes('/redfish/') ? scalarText(b.systemPath) : ''),
        owner,
        inv,
        'spec.bmc.address',
        ['spec', 'bmc', 'address'],
      );
    const nics = Array.isArray(s.nics) ? s.nics : [];
    nics.forEach((n, i) => {
      if (isObj(n)) claimMac(n.mac, owner, inv, `spec.nics[${i}].mac`, ['spec', 'nics', i, 'mac']);
    });
  }

  // HardwareData <-> BMH
  const hardwareData = kind('HardwareData', 'metal3.io');
  const hwdByHost = new Map<string, KubeObject>();
  for (const h of hardwareData) {
    hwdByHost.set(key('BareMetalHost', h.namespace, h.name), h);
    if (on('reference') && !exists('BareMetalHost', h.namespace, h.name))
      report(
        'reference',
        `HardwareData ${h.namespace ? h.namespace + '/' : ''}${h.name} has no BareMetalHost of the same name and namespace: Metal3 pairs them by name; rename it or add the host`,
        {
          object: h,
          field: 'metadata.name',
          path: ['metadata', 'name'],
        },
      );
  }

  // ---- airshipctl phases
  if (on('reference')) {
    const phases = kind('Phase', 'airshipit.org');
    const phaseNames = new Set(phases.map((p) => p.name));
    for (const plan of kind('PhasePlan', 'airshipit.org')) {
      // airshipctl's historical shape (manifests/phases/plan.yaml): phaseGroups[].phases[].name
      const groups = plan.get('phaseGroups');
      if (Array.isArray(groups))
        groups.forEach((g, gi) => {
          const steps = isObj(g) && Array.isArray(g.phases) ? g.phases : [];
          const gname = isObj(g) ? scalarText(g.name) : undefined;
          steps.forEach((step, i) => {
            const n = isObj(step) ? scalarText(step.name) : undefined;
            if (n && !phaseNames.has(n) && !external('Phase', undefined, n))
              report(
                'reference',
                `PhasePlan ${plan.name} group ${gname ?? gi + 1} step ${i + 1} names Phase ${n}, which is not in the input: add the Phase or fix the name${closest(n, phaseNames)}`,
                {
                  object: plan,
                  field: `phaseGroups[${gi}].phases[${i}].name`,
                  path: ['phaseGroups', gi, 'phases', i, 'name'],
                },
              );
          });
        });
      const list = plan.get('phases');
      if (!Array.isArray(list)) continue;
      list.forEach((step, i) => {
        const n = isObj(step) ? scalarText(step.name) : undefined;
        if (n && !phaseNames.has(n) && !external('Phase', undefined, n))
          report(
            'reference',
            `PhasePlan ${plan.name} step ${i + 1} names Phase ${n}, which is not in the input: add the Phase or fix the name${closest(n, phaseNames)}`,
            {
              object: plan,
              field: `phases[${i}].name`,
              path: ['phases', i, 'name'],
            },
          );
      });
    }
    const clusterMaps = kind('ClusterMap', 'airshipit.org');
    const clusters = new Set<string>();
    for (const cm of clusterMaps) {
      const m = cm.get('map');
      if (isObj(m)) for (const k of Object.keys(m)) clusters.add(k);
    }
    for (const p of phases) {
      const cfg = p.get('config');
      const ref = isObj(cfg) && isObj(cfg.executorRef) ? cfg.executorRef : undefined;
      if (ref) {
        const k = scalarText(ref.kind);
        const n = scalarText(ref.name);
        if (k && n && !items.some((o) => o.kind === k && o.name === n) && !external(k, undefined, n))
          report(
            'reference',
            `Phase ${p.name} runs executor ${k}/${n}, which is not in the input: add the executor document or fix config.executorRef`,
            {
              object: p,
              field: 'config.executorRef.name',
              path: ['config', 'executorRef', 'name'],
            },
          );
      }
      const inMeta = scalarText(p.get('metadata.clusterName'));
      const cn = inMeta ?? scalarText(p.get('clusterName'));
      if (cn && clusterMaps.length > 0 && !clusters.has(cn))
        report(
          'reference',
          `Phase ${p.name} targets cluster ${cn}, which no ClusterMap in the input defines (known: ${[...clusters].sort().join(', ') || 'none'}): fix clusterName or add it to the ClusterMap${closest(cn, clusters)}`,
          {
            object: p,
            field: inMeta ? 'metadata.clusterName' : 'clusterName',
            path: inMeta ? ['metadata', 'clusterName'] : ['clusterName'],
          },
        );
    }
    // Flux Kustomization dependsOn
    for (const k of kind('Kustomization', 'kustomize.toolkit.fluxcd.io')) {
      const deps = k.get('spec.dependsOn');
      if (!Array.isArray(deps)) continue;
      deps.forEach((dep, i) => {
        const n = isObj(dep) ? scalarText(dep.name) : undefined;
        if (!n) return;
        const ns = (isObj(dep) ? scalarText(dep.namespace) : undefined) ?? k.namespace;
        const found = kind('Kustomization', 'kustomize.toolkit.fluxcd.io').some((x) => x.name === n && x.namespace === ns);
        if (!found && !external('Kustomization', ns, n))
          report(
            'reference',
            `Flux Kustomization ${k.namespace ? k.namespace + '/' : ''}${k.name} depends on Kustomization ${ns ? ns + '/' : ''}${n}, which is not in the input: Flux would wait forever; fix spec.dependsOn[${i}]`,
            {
              object: k,
              field: `spec.dependsOn[${i}].name`,
              path: ['spec', 'dependsOn', i, 'name'],
            },
          );
      });
    }
  }

  // ---- hardware: hosts and profiles
  const hostFacts: HostFact[] = [];
  const classifications = kind('HardwareClassification', 'metal3.io');
  const profiles = kind('HardwareProfile', 'baremetal-krm.dev');
  const hostObjects: { o: KubeObject; hw?: { source: string; data: unknown; kind: 'metal3' | 'inventory' } }[] = [];
  for (const b of bmhs) {
    const hwd = hwdByHost.get(key('BareMetalHost', b.namespace, b.name));
    const inv = inventoryOf.get(b);
    const status = dig(safeData(b), 'status', 'hardware');
    let hw: (typeof hostObjects)[number]['hw'];
    if (hwd && isObj(hwd.get('spec.hardware'))) hw = { source: `HardwareData ${hwd.name}`, data: hwd.get('spec.hardware'), kind: 'metal3' };
    else if (isObj(status)) hw = { source: 'BareMetalHost status.hardware', data: status, kind: 'metal3' };
    else if (inv) hw = { source: `HardwareInventory ${inv.name}`, data: inv.get('spec'), kind: 'inventory' };
    else if (b.annotations[HARDWARE_ANNOTATION] !== undefined) hw = annotatedHardware(b);
    hostObjects.push({ o: b, hw });
  }
  const attached = new Set(inventoryOf.values());
  for (const inv of inventories)
    if (!attached.has(inv))
      hostObjects.push({ o: inv, hw: { source: `HardwareInventory ${inv.name}`, data: inv.get('spec'), kind: 'inventory' } });
  for (const { o, hw } of hostObjects) {
    const fact: HostFact = { name: o.name, kind: o.kind, object: o, labels: o.labels, profiles: [] };
    if (o.namespace) fact.namespace = o.namespace;
    if (hw) {
      fact.hardwareSource = hw.source;
      fact.hardware = hostHardware(hw.data, hw.kind);
    }
    const byLabel = o.labels['baremetal-krm.dev/hardware-profile'];
    const wanted = byLabel ?? o.annotations['baremetal-krm.dev/hardware-profile'];
    // where the profile was asked for: the label, else the annotation
    const wantedAt = byLabel !== undefined ? 'labels' : 'annotations';
    const byAnnotation = new Set<HostFact['profiles'][number]>();
    for (const c of classifications) {
      // a HardwareClassification only classifies hosts of its own namespace (as the controller);
      // an object without a namespace (a HardwareInventory snapshot, a document whose namespace
      // kustomize sets later) is not known to be elsewhere
      if (c.namespace && o.namespace && c.namespace !== o.namespace) continue;
      const byHwccLabel = Object.hasOwn(o.labels, `hardwareclassification.metal3.io/${c.name}`);
      if (wanted !== c.name && !byHwccLabel) continue;
      const failures = fact.hardware
        ? matchClassification(c.get('spec.hardwareCharacteristics'), fact.hardware)
        : ['no hardware inventory'];
      const entry = { kind: 'HardwareClassification', name: c.name, matched: failures.length === 0, failures };
      fact.profiles.push(entry);
      if (!byHwccLabel && wantedAt === 'annotations') byAnnotation.add(entry);
    }
    for (const p of profiles) {
      const sel = p.get('spec.selector.matchLabels');
      const bySelector = isObj(sel) && Object.keys(sel).length > 0 && Object.entries(sel).every(([k, v]) => o.labels[k] === String(v));
      if (wanted !== p.name && !bySelector) continue;
      const failures = fact.hardware ? matchProfile(p.get('spec'), fact.hardware) : ['no hardware inventory'];
      const entry = { kind: 'HardwareProfile', name: p.name, matched: failures.length === 0, failures };
      fact.profiles.push(entry);
      if (!bySelector && wantedAt === 'annotations') byAnnotation.add(entry);
    }
    if (wanted && !fact.profiles.some((x) => x.name === wanted) && fact.hardwareSource === ANNOTATED_SOURCE) {
      // a rendered host: its profile stayed behind as local-config, checked when it was rendered
      if (on('hardware-profile'))
        findings.push({
          rule: 'hardware-profile',
          severity: 'info',
          message: `${o.id} asks for hardware profile ${wanted}, which is not in the input (local-config, checked when the package was rendered): its hardware (${HARDWARE_ANNOTATION}) is not checked against it here; validate with the profile to check it`,
          object: o,
          field: `metadata.${wantedAt}.baremetal-krm.dev/hardware-profile`,
          path: ['metadata', wantedAt, 'baremetal-krm.dev/hardware-profile'],
        });
    } else if (wanted && !fact.profiles.some((x) => x.name === wanted) && on('reference'))
      report(
        'reference',
        `${o.id} asks for hardware profile ${wanted}, but no HardwareProfile or HardwareClassification of that name is in the input: add it or fix the ${wantedAt === 'labels' ? 'label' : 'annotation'}`,
        {
          object: o,
          field: `metadata.${wantedAt}.baremetal-krm.dev/hardware-profile`,
          path: ['metadata', wantedAt, 'baremetal-krm.dev/hardware-profile'],
        },
      );
    for (const pr of fact.profiles) {
      if (pr.matched) continue;
      report(
        'hardware-profile',
        pr.failures[0] === 'no hardware inventory'
          ? `${o.id} must match ${pr.kind} ${pr.name} but has no hardware inventory (no status.hardware, HardwareData or HardwareInventory): inspect the host or add its HardwareInventory`
          : `${o.id} does not match ${pr.kind} ${pr.name} (hardware from ${fact.hardwareSource}): ${pr.failures.join('; ')}. Fix the host's hardware or assign another profile`,
        // asked for by the annotation (not a label or selector): point at the annotation
        byAnnotation.has(pr)
          ? {
              object: o,
              field: 'metadata.annotations.baremetal-krm.dev/hardware-profile',
              path: ['metadata', 'annotations', 'baremetal-krm.dev/hardware-profile'],
            }
          : { object: o, field: 'metadata.labels', path: ['metadata', 'labels'] },
      );
    }
    hostFacts.push(fact);
  }

  // ---- certificates, encryption, hygiene (one walk over what can hold them)
  const certificates: CertificateFact[] = [];
  const encAllowed = objectMatcher(spec.encryption?.allow);
  for (const o of items) {
    const k = o.kind;
    if (k === 'CustomResourceDefinition') continue;
    const d = safeData(o);
    if (!d) continue;
    // hygiene everywhere (BareMetalHost insecure-tls is reported above, with its own message)
    // (the walk only where the item's text holds something to find: most items hold nothing)
    const body = o.body;
    const hygiene =
      (on('template-leftover') && TEMPLATE_LEFTOVER.test(body)) ||
      (on('insecure-tls') && k !== 'BareMetalHost' && body.includes('disableCertificateVerification'));
    if (hygiene) walkHygiene(o, d, report, (r) => (r === 'insecure-tls' && k === 'BareMetalHost' ? false : on(r)));
    if (k === 'BareMetalHost' || k === 'HardwareData' || k === 'HardwareInventory') continue;
    // certificates: PEM, base64 PEM, kubeconfig *-data fields, or any Secret data (base64)
    const mayHoldCerts =
      k === 'Secret' || body.includes('-----BEGIN') || body.includes(B64_PEM) || /-data['"]?:/.test(body) || body.includes('clusters:');
    if (
      mayHoldCerts &&
      nowValid &&
      (on('certificate-expired') ||
        on('certificate-expiring') ||
        on('certificate-not-yet-valid') ||
        on('certificate-key-mismatch') ||
        on('certificate-unreadable'))
    ) {
      const r = checkCertificates(o, d, { now, warnDays: spec.certificates?.warnDays ?? 30 });
      certificates.push(...r.facts);
      for (const f of r.findings) report(f.rule, f.message, f);
    }
    // encryption
    if (on('encryption') && !encAllowed(k, o.namespace, o.name)) {
      const sops = isObj(d.sops);
      const plain: string[] = [];
      let isCatalogue = false;
      if (k === 'Secret' && o.apiVersion === 'v1') {
        for (const section of ['data', 'stringData']) {
          const m = d[section];
          if (!isObj(m)) continue;
          for (const [name, v] of Object.entries(m))
            if (v !== null && v !== '' && !isEncrypted(v) && !NON_SENSITIVE_SECRET_KEY.test(name)) plain.push(`${section}.${name}`);
        }
      } else if (o.group !== 'baremetal-krm.dev' && (k === 'VariableCatalogue' || /Catalogue$/.test(k))) {
        collectSensitive(d, [], plain);
        isCatalogue = true;
      }
      // ENC[...] values without the sops: block (which holds the data key) cannot be decrypted
      if (!sops && body.includes('ENC[')) {
        const enc: string[] = [];
        collectEncrypted(d, [], enc);
        if (enc.length > 0)
          report(
            'encryption',
            `${o.id} has ${enc.length} sops-encrypted value(s) (${enc.slice(0, 5).join(', ')}${enc.length > 5 ? ` and ${enc.length - 5} more` : ''}) but no sops: block, which holds the data key: nothing can decrypt them; commit the file exactly as sops wrote it (with its sops: block) or encrypt it again`,
            {
              object: o,
              field: enc[0],
              path: enc[0]!.split('.'),
            },
          );
      }
      if (plain.length > 0) {
        const shown = plain.slice(0, 5).join(', ') + (plain.length > 5 ? ` and ${plain.length - 5} more` : '');
        // a catalogue: encrypt just the flagged keys (named by a regex sops matches against key names)
        const keys = [...new Set(plain.map((p) => p.split('.').pop()!).filter((x) => !/^\d+$/.test(x)))].sort();
        const regex = isCatalogue ? `^(${keys.map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$` : '^(data|stringData)$';
        report(
          'encryption',
          `${o.id} holds ${plain.length} plaintext secret value(s) (${shown})${sops ? ' outside its sops-encrypted fields' : ''}: encrypt it with sops (e.g. sops --encrypt --encrypted-regex '${regex}'), or list it in spec.encryption.allow`,
          {
            object: o,
            field: plain[0],
            path: plain[0]!.split('.'),
          },
        );
      }
    }
  }

  // ---- capacity
  const roleFacts: RoleFact[] = [];
  const roles = spec.capacity?.roles ?? [];
  if (roles.length > 0) {
    const workloads = items.filter((o) => ['Deployment', 'StatefulSet', 'ReplicaSet', 'DaemonSet', 'Job', 'Pod'].includes(o.kind));
    for (const role of roles) {
      const sel = role.selector.matchLabels ?? {};
      const members = hostFacts.filter((h) => Object.entries(sel).every(([k, v]) => h.labels[k] === v));
      const wanted = (role.count?.active ?? 0) + (role.count?.standby ?? 0);
      const fact: RoleFact = { name: role.name, hosts: members.map((h) => h.name).sort(), wanted, cpuRequested: 0, memoryRequestedMiB: 0 };
      const selText =
        Object.entries(sel)
          .map(([k, v]) => `${k}=${v}`)
          .join(',') || '(all hosts)';
      if (role.topologyKey) {
        const domains = new Set(members.map((h) => h.labels[role.topologyKey!]).filter((v) => v !== undefined));
        fact.domains = domains.size;
        if (wanted > 0 && domains.size < wanted)
          report(
            'capacity-hosts',
            `role ${role.name} needs ${wanted} host(s) (active ${role.count?.active ?? 0} + standby ${role.count?.standby ?? 0}) on distinct ${role.topologyKey} values, but hosts matching ${selText} span only ${domains.size} (${[...domains].sort().join(', ') || 'none'}): add hosts in other domains or lower the count`,
            {},
          );
      } else if (wanted > 0 && members.length < wanted) {
        report(
          'capacity-hosts',
          `role ${role.name} needs ${wanted} host(s) (active ${role.count?.active ?? 0} + standby ${role.count?.standby ?? 0}) but only ${members.length} match ${selText}${members.length ? ' (' + fact.hosts.join(', ') + ')' : ''}: add hosts or fix their labels`,
          {},
        );
      }
      if (role.nodeSelector && Object.keys(role.nodeSelector).length > 0) {
        // the hosts that carry the role's load: count.active of them (standbys carry none); a
        // DaemonSet runs one pod on each of them, and capacity is theirs
        const active = role.count?.active && role.count.active < members.length ? members.slice(0, role.count.active) : members;
        for (const w of workloads) {
          const d = safeData(w);
          if (!d) continue;
          const podSpec = (
            w.kind === 'Pod'
              ? d.spec
              : (d.spec as Record<string, unknown> | undefined)?.template &&
                ((d.spec as Record<string, unknown>).template as Record<string, unknown>).spec
          ) as Record<string, unknown> | undefined;
          if (!isObj(podSpec)) continue;
          const ns = isObj(podSpec.nodeSelector) ? podSpec.nodeSelector : {};
          if (!Object.entries(role.nodeSelector).every(([k, v]) => scalarText(ns[k]) === v)) continue;
          let replicas = 1;
          if (w.kind === 'DaemonSet') replicas = active.length;
          else if (w.kind !== 'Pod') {
            const r =
              (d.spec as Record<string, unknown>).replicas ??
              (w.kind === 'Job' ? (d.spec as Record<string, unknown>).parallelism : undefined);
            replicas = typeof r === 'number' ? r : 1;
          }
          let cpu = 0;
          let mem = 0;
          for (const c of Array.isArray(podSpec.containers) ? podSpec.containers : []) {
            const req = isObj(c) && isObj(c.resources) && isObj(c.resources.requests) ? c.resources.requests : {};
            cpu += parseCpu(req.cpu) ?? 0;
            mem += parseMemoryMiB(req.memory) ?? 0;
          }
          fact.cpuRequested += cpu * replicas;
          fact.memoryRequestedMiB += mem * replicas;
        }
        const headroom = (role.headroomPercent ?? spec.capacity?.headroomPercent ?? 0) / 100;
        const known = active.filter((h) => h.hardware?.cpuCount !== undefined && h.hardware?.ramMiB !== undefined);
        if (known.length < active.length) {
          if (fact.cpuRequested > 0 || fact.memoryRequestedMiB > 0)
            report(
              'capacity-resources',
              `role ${role.name}: ${active.length - known.length} of ${active.length} host(s) have no CPU/memory inventory, so capacity cannot be checked: add HardwareInventory or HardwareData for them`,
              {},
              'warning',
            );
        } else {
          fact.cpuCapacity = round2(known.reduce((a, h) => a + h.hardware!.cpuCount!, 0) * (1 - headroom));
          fact.memoryCapacityMiB = Math.floor(known.reduce((a, h) => a + h.hardware!.ramMiB!, 0) * (1 - headroom));
          const over: string[] = [];
          if (fact.cpuRequested > fact.cpuCapacity) over.push(`CPU requests ${round2(fact.cpuRequested)} > ${fact.cpuCapacity} cores`);
          if (fact.memoryRequestedMiB > fact.memoryCapacityMiB)
            over.push(`memory requests ${Math.ceil(fact.memoryRequestedMiB)} MiB > ${fact.memoryCapacityMiB} MiB`);
          if (over.length)
            report(
              'capacity-resources',
              `role ${role.name} is over capacity: ${over.join(', ')} (${known.length} host(s), ${headroom * 100}% headroom): add hosts, lower requests or replicas`,
              {},
            );
        }
        fact.cpuRequested = round2(fact.cpuRequested);
        fact.memoryRequestedMiB = Math.ceil(fact.memoryRequestedMiB);
      }
      roleFacts.push(fact);
    }
  }

  const counts = { error: 0, warning: 0, info: 0 };
  for (const f of findings) counts[f.severity]++;
  return { findings, facts: { certificates, hosts: hostFacts, roles: roleFacts }, counts };
}

/**
 * The host an owner label names, as namespace (when the label has one) and name: the same
 * machine may appear as a BMH and a catalogue entry (`host node01 (...)`, no namespace), while
 * `BareMetalHost a/node01` and `BareMetalHost b/node01` are two hosts.
 */
function hostId(owner: string): { ns?: string; name: string } {
  const m = /^(?:BareMetalHost|HardwareInventory) (?:([^/ ]+)\/)?([^ ]+)/.exec(owner);
  if (m) return m[1] !== undefined ? { ns: m[1], name: m[2]! } : { ns: '', name: m[2]! };
  const h = /^host ([^ ]+)/.exec(owner);
  return h ? { name: h[1]! } : { ns: '', name: owner };
}
function sameHost(a: string, b: string): boolean {
  const x = hostId(a);
  const y = hostId(b);
  return x.name === y.name && (x.ns === undefined || y.ns === undefined || x.ns === y.ns);
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

function closest(n: string, names: Set<string>): string {
  let best: string | undefined;
  let bestD = 3;
  for (const c of names) {
    const d = distance(n, c);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best ? ` (did you mean ${best}?)` : '';
}

function distance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return 99;
  const dp = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = dp[0]!;
    dp[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = dp[j]!;
      dp[j] = Math.min(dp[j]! + 1, dp[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return dp[b.length]!;
}

/** Sensitive-looking keys with plaintext string values, as dotted paths. */
function collectSensitive(v: unknown, path: string[], out: string[]): void {
  if (out.length > 1000) return;
  if (Array.isArray(v)) v.forEach((x, i) => collectSensitive(x, [...path, String(i)], out));
  else if (isObj(v)) {
    for (const [k, x] of Object.entries(v)) {
      if (k === 'sops' && path.length === 0) continue;
      if (k === 'metadata' && path.length === 0) continue;
      // a number is a plaintext secret too (`password: 12345`)
      if (
        (typeof x === 'string' || typeof x === 'number') &&
        SENSITIVE_KEY.test(k) &&
        !REFERENCE_KEY.test(k) &&
        !SETTING_KEY.test(k) &&
        x !== '' &&
        !isEncrypted(x)
      )
        out.push([...path, k].join('.'));
      else collectSensitive(x, [...path, k], out);
    }
  }
}

/** Dotted paths of `ENC[...]` values (sops ciphertext), outside metadata and sops. */
function collectEncrypted(v: unknown, path: string[], out: string[]): void {
  if (out.length > 1000) return;
  if (Array.isArray(v)) v.forEach((x, i) => collectEncrypted(x, [...path, String(i)], out));
  else if (isObj(v)) {
    for (const [k, x] of Object.entries(v)) {
      if (path.length === 0 && (k === 'sops' || k === 'metadata')) continue;
      if (isEncrypted(x)) out.push([...path, k].join('.'));
      else collectEncrypted(x, [...path, k], out);
    }
  }
}

function walkHygiene(
  o: KubeObject,
  d: Record<string, unknown>,
  report: (rule: string, message: string, f?: Omit<Finding, 'rule' | 'severity' | 'message'>) => void,
  on: (rule: string) => boolean,
): void {
  const visit = (v: unknown, path: (string | number)[]): void => {
    if (typeof v === 'string') {
      if (on('template-leftover') && TEMPLATE_LEFTOVER.test(v)) {
        const what = /<no value>/.test(v) ? '<no value>' : /NEWSITE_CHANGEME/.test(v) ? 'NEWSITE_CHANGEME' : 'CHANGEME';
        report(
          'template-leftover',
          `${o.id} has the template leftover "${what}" at ${dotted(path)}: the template was rendered without a value; set the value in the catalogue`,
          {
            object: o,
            field: dotted(path),
            path,
          },
        );
      }
      return;
    }
    if (Array.isArray(v)) v.forEach((x, i) => visit(x, [...path, i]));
    else if (isObj(v)) {
      for (const [k, x] of Object.entries(v)) {
        if (path.length === 0 && (k === 'sops' || k === 'metadata')) continue;
        if (k === 'disableCertificateVerification' && x === true && on('insecure-tls'))
          report(
            'insecure-tls',
            `${o.id} sets ${dotted([...path, k])}: true: the BMC's TLS identity is not checked; install a trusted certificate and set it to false`,
            {
              object: o,
              field: dotted([...path, k]),
              path: [...path, k],
            },
          );
        visit(x, [...path, k]);
      }
    }
  };
  visit(d, []);
}

/** MACs and IPs of an OpenStack-style network_data (JSON or YAML, base64 in `data`). */
function scanNetworkData(
  secret: KubeObject,
  owner: string,
  claimMac: (value: unknown, owner: string, obj: KubeObject, field: string, path: (string | number)[]) => void,
  claimIp: (network: string, value: unknown, owner: string, obj: KubeObject, field: string, path: (string | number)[]) => void,
): void {
  const d = safeData(secret);
  if (!d) return;
  let text: string | undefined;
  let field = '';
  const sd = isObj(d.stringData) ? d.stringData : {};
  const dd = isObj(d.data) ? d.data : {};
  for (const k of ['networkData', 'network_data.json', 'network_data', 'value']) {
    if (typeof sd[k] === 'string') {
      text = sd[k] as string;
      field = `stringData.${k}`;
      break;
    }
    if (typeof dd[k] === 'string' && !isEncrypted(dd[k])) {
      text = Buffer.from(dd[k] as string, 'base64').toString('utf8');
      field = `data.${k}`;
      break;
    }
  }
  if (!text) return;
  let nd: unknown;
  try {
    nd = JSON.parse(text);
  } catch {
    try {
      nd = loadYamlLazy(text);
    } catch {
      return;
    }
  }
  if (!isObj(nd)) return;
  const links = Array.isArray(nd.links) ? nd.links : [];
  links.forEach((l, i) => {
    if (isObj(l)) claimMac(l.ethernet_mac_address, owner, secret, `${field} links[${i}].ethernet_mac_address`, [...field.split('.')]);
  });
  const nets = Array.isArray(nd.networks) ? nd.networks : [];
  nets.forEach((n, i) => {
    if (!isObj(n)) return;
    const net = scalarText(n.network_id) ?? scalarText(n.id) ?? scalarText(n.link) ?? String(i);
    if (n.ip_address) claimIp(net, n.ip_address, owner, secret, `${field} networks[${i}].ip_address`, [...field.split('.')]);
  });
}

import { loadYaml } from '../krm/index.js';
import { dig, dotted, isRecord as isObj, scalarText } from '../krm/index.js';
function loadYamlLazy(text: string): unknown {
  return loadYaml(text);
}
