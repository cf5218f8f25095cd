/**
 * Intent-aware divergence between sites. Resources are matched by kind + name (+ namespace when
 * any site holds that kind + name in two namespaces); hosts by role and
 * hardware profile (the n-th worker of one site against the n-th worker of another), and the
 * Secrets a host references by that host. Values meant to differ per site are ignored: built-in
 * fields (addresses, MACs, serials, credentials names, status, annotations) plus configured
 * globs, and MACs, IPs and the site's own name are masked inside strings before comparing.
 * Secret values and key material are never compared by value or shown: only their presence.
 */
import type { KubeObject } from '../krm/index.js';
import type { HostFact } from '../validate/analyse.js';
import type { DivergenceEntry, DivergenceField } from './model.js';
import { compareStrings } from '../krm/index.js';
import { isSensitiveKey, redactArgs, redactString } from '../secrets/redact.js';
import { isRecord as isObj } from '../krm/index.js';

export type ValueClass = 'mac' | 'ip' | 'site-name';

export interface DivergenceOptions {
  reference?: string;
  roleLabel: string;
  ignoreFields: string[];
  ignoreValues: ValueClass[];
  defaultIgnores: boolean;
  /** filled with the `ignoreFields` that matched a field (what matched nothing is worth a word to the user) */
  usedIgnores?: Set<string>;
}

/** The per-site fields ignored unless `defaultIgnores: false`. */
export const DEFAULT_IGNORES: readonly string[] = [
  'metadata.namespace',
  'metadata.annotations',
  'metadata.uid',
  'metadata.resourceVersion',
  'metadata.generation',
  'metadata.creationTimestamp',
  'metadata.managedFields',
  'status',
  'sops',
  'BareMetalHost:spec.bmc.address',
  'BareMetalHost:spec.bmc.credentialsName',
  'BareMetalHost:spec.bootMACAddress',
  'BareMetalHost:spec.networkData',
  'BareMetalHost:spec.userData',
  'BareMetalHost:spec.metaData',
  'BareMetalHost:spec.consumerRef',
  'BareMetalHost:spec.image',
  'KubeConfig:config.clusters.*.cluster.server',
  '**.serialNumber',
  '**.serviceTag',
  '**.uuid',
  '**.macAddress',
  '**.macAddresses',
  '**.mac',
  '**.ipAddresses',
  '**.ip_address',
  '**.ethernet_mac_address',
  '**.bmcAddress',
  '**.certificate-authority-data',
  '**.client-certificate-data',
  '**.client-key-data',
];

const MAC = /\b[0-9a-f]{2}(?:[:-][0-9a-f]{2}){5}\b/gi;
/**
 * An IPv4 address (with port or prefix) standing on its own: the whole value, or after a space,
 * `//`, `@`, `=`, `,` or a bracket. Not after a word character, `.`, `-` or a tag colon, so image
 * references (`app:1.2.3.4`) and versions (`v1.2.3.4`, `1.2.3.4.5`) are compared as they are.
 */
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`(?<![\\w.\\-]|[\\w\\-]:)${OCTET}(?:\\.${OCTET}){3}(?::\\d{1,5})?(?:\\/\\d{1,2})?(?![\\w\\-]|\\.\\w)`, 'g');
const IPV6 = /(?<![\w:])(?:[0-9a-f]{1,4}:){2,7}[0-9a-f]{0,4}(?:\/\d{1,3})?(?![\w:])/gi;

type Obj = Record<string, unknown>;

interface Pattern {
  /** the pattern as the user wrote it */
  source: string;
  kind?: string;
  segs: string[];
}

/**
 * A field pattern's segments, in the form the report shows fields: `spec.containers[name=app].image`
 * is `spec`, `containers`, `[name=app]`, `image` (a list item is a segment of its own; its name may
 * hold dots); `[*]` is `*`. Undefined: not a pattern (see `ignorePatternError`).
 */
function segmentsOf(body: string): string[] | undefined {
  const segs: string[] = [];
  let seg = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '.') {
      if (seg === '') return undefined; // `a..b`, `.a`, `[x].`
      segs.push(seg);
      seg = '';
    } else if (c === '[') {
      const close = body.indexOf(']', i + 1);
      if (close < 0 || close === i + 1) return undefined;
      const item = body.slice(i, close + 1);
      if (item.indexOf('[', 1) > 0) return undefined;
      if (seg !== '') segs.push(seg);
      segs.push(item === '[*]' ? '*' : item);
      seg = '';
      i = close;
      // a list item ends a segment: `.` or another item follows, or the end
      if (i + 1 < body.length && body[i + 1] !== '.' && body[i + 1] !== '[') return undefined;
      if (body[i + 1] === '.') {
        i++;
        if (i + 1 === body.length) return undefined;
      }
    } else if (c === ']') return undefined;
    else seg += c;
  }
  if (seg !== '') segs.push(seg);
  return segs.length > 0 ? segs : undefined;
}

const KIND_PREFIX = /^([A-Za-z][A-Za-z0-9]*):(.*)$/;

/**
 * Why `p` is not a field pattern (undefined: it is one): what `--ignore` and a config's
 * `divergence.ignoreFields` take. A pattern that cannot match anything is refused rather than kept
 * silently: its fields would still be compared.
 */
export function ignorePatternError(p: string): string | undefined {
  const body = KIND_PREFIX.exec(p)?.[2] ?? p;
  if (segmentsOf(body) !== undefined) return undefined;
  return body.trim() === ''
    ? 'an empty field pattern'
    : 'not a field pattern: dot-separated names, * (one level), ** (any depth), list items as the report shows them ([name=x], [0], [*]), optionally after Kind: (spec.interval, **.tag, HelmRelease:spec.values.**, spec.containers[name=app].image)';
}

function compile(p: string): Pattern {
  const m = KIND_PREFIX.exec(p);
  const segs = segmentsOf(m ? m[2]! : p) ?? [];
  return m ? { source: p, kind: m[1]!, segs } : { source: p, segs };
}

/** A pattern matches a path (segments) when it matches a prefix of it: the whole subtree is ignored. */
function matches(pat: string[], path: string[], i = 0, j = 0): boolean {
  if (i === pat.length) return true;
  const p = pat[i]!;
  if (p === '**') {
    for (let k = j; k <= path.length; k++) if (matches(pat, path, i + 1, k)) return true;
    return false;
  }
  if (j >= path.length) return false;
  if (p !== '*' && p !== path[j]) return false;
  return matches(pat, path, i + 1, j + 1);
}

interface Flat {
  /** path -> { cmp: masked JSON, show: JSON as displayed } */
  values: Map<string, { cmp: string; show: string }>;
}

export interface SiteInput {
  name: string;
  objects: readonly KubeObject[];
  hosts: readonly HostFact[];
  /** host -> extra synthetic fields (hardware summary) */
  hostFields: Map<KubeObject, Record<string, string | number | undefined>>;
}

/** `spec.containers[name=x].image`: list items without a dot before them. */
function pathText(path: readonly string[]): string {
  let s = '';
  for (const p of path) s += p.startsWith('[') || s === '' ? p : '.' + p;
  return s;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** How one site's values are masked and which fields are ignored. */
interface Flattener {
  mask: (s: string) => string;
  /** named list items are matched by name with the site's own name masked: `[name=<site>-workers]` */
  maskKey: (k: string) => string;
  patterns: Pattern[];
  used: Set<string> | undefined;
}

function flattener(site: SiteInput, opts: DivergenceOptions, patterns: Pattern[]): Flattener {
  const siteRe = opts.ignoreValues.includes('site-name') && site.name.length >= 3 ? new RegExp(escapeRe(site.name), 'g') : undefined;
  return {
    mask: (s) => {
      let t = s;
      if (opts.ignoreValues.includes('mac')) t = t.replace(MAC, '<mac>');
      if (opts.ignoreValues.includes('ip')) t = t.replace(IPV4, '<ip>').replace(IPV6, '<ip>');
      if (siteRe) t = t.replace(siteRe, '<site>');
      return t;
    },
    maskKey: (k) => (siteRe ? k.replace(siteRe, '<site>') : k),
    patterns,
    used: opts.usedIgnores,
  };
}

/** One object's values by path, masked for comparing and redacted for showing. */
function flatten(f: Flattener, o: KubeObject, data: unknown, extra: Record<string, string | number | undefined> | undefined): Flat {
  const values = new Map<string, { cmp: string; show: string }>();
  const kind = o.kind;
  const isSecret = kind === 'Secret' && o.apiVersion === 'v1';
  const ignored = (path: string[]): boolean => {
    for (const p of f.patterns)
      if ((!p.kind || p.kind === kind) && matches(p.segs, path)) {
        f.used?.add(p.source);
        return true;
      }
    return false;
  };
  const put = (path: string[], show: string, cmp: string): void => {
    values.set(pathText(path), { cmp, show });
  };
  const visitList = (v: unknown[], path: string[], hidden: boolean): void => {
    if (v.length === 0) {
      put(path, '[]', '[]');
      return;
    }
    const named = v.every((x) => isObj(x) && (typeof x.name === 'string' || typeof x.id === 'string'));
    const keys = named ? v.map((x) => String((x as Obj).name ?? (x as Obj).id)) : [];
    if (named && new Set(keys).size === keys.length) {
      v.forEach((x, i) => {
        const item = x as Obj;
        const seg = `[${item.name !== undefined ? 'name' : 'id'}=${f.maskKey(keys[i]!)}]`;
        // env-style items: `{name: DB_PASSWORD, value: ...}` hide their value
        const secretItem = isSensitiveKey(keys[i]!);
        if (ignored([...path, seg])) return;
        for (const [k, y] of Object.entries(item)) visitField(k, y, [...path, seg], hidden || (secretItem && k !== 'name' && k !== 'id'));
        if (Object.keys(item).length === 0) put([...path, seg], '{}', '{}');
      });
      // order of named items matters for plans; record it
      put([...path, '(order)'], JSON.stringify(keys), JSON.stringify(keys.map((k) => f.mask(f.maskKey(k)))));
      return;
    }
    if (v.every((x) => typeof x !== 'object' || x === null)) {
      // a command line (`args: [--password, x]`) hides the value after a sensitive flag too
      const shown = redactArgs(v);
      put(path, JSON.stringify(shown), JSON.stringify(shown.map((x) => (typeof x === 'string' ? f.mask(x) : x))));
      return;
    }
    v.forEach((x, i) => visit(x, [...path, `[${i}]`], hidden));
  };
  const visit = (v: unknown, path: string[], hidden: boolean): void => {
    if (path.length > 0 && ignored(path)) return;
    if (path.length === 2 && path[0] === 'metadata' && path[1] === 'name') return;
    if (hidden) {
      // presence only, whatever the type: a number, a list or a map under `password` is a secret too
      const s =
        typeof v === 'string' && v.trimStart().startsWith('ENC[') ? '(encrypted)' : v === null || v === '' ? JSON.stringify(v) : '(set)';
      put(path, s, s);
      return;
    }
    if (typeof v === 'string') {
      const r = redactString(v);
      if (r.redacted) put(path, r.text, r.text);
      else put(path, JSON.stringify(r.text), JSON.stringify(f.mask(r.text)));
      return;
    }
    if (typeof v !== 'object' || v === null) {
      put(path, JSON.stringify(v), JSON.stringify(v));
      return;
    }
    if (Array.isArray(v)) {
      visitList(v, path, hidden);
      return;
    }
    const entries = Object.entries(v as Obj);
    if (entries.length === 0) {
      put(path, '{}', '{}');
      return;
    }
    for (const [k, x] of entries) visitField(k, x, path, hidden);
  };
  const visitField = (k: string, x: unknown, path: string[], hidden: boolean): void => {
    const hide = hidden || (isSecret && path.length === 0 && (k === 'data' || k === 'stringData')) || isSensitiveKey(k);
    visit(x, [...path, k], hide);
  };
  visit(data, [], false);
  for (const [k, v] of Object.entries(extra ?? {})) {
    if (v === undefined || ignored(['hardware', k])) continue;
    put(['hardware', k], JSON.stringify(v), JSON.stringify(v));
  }
  return { values };
}

/** Hosts by role and profile: `host[role=worker,profile=worker]#2` is the second worker (by name). */
function hostKeys(site: SiteInput, opts: DivergenceOptions): Map<KubeObject, string> {
  const hostKey = new Map<KubeObject, string>();
  const groups = new Map<string, HostFact[]>();
  for (const h of site.hosts) {
    const role = h.labels[opts.roleLabel] ?? '-';
    const profiles = [...new Set(h.profiles.map((p) => p.name))].sort().join('+') || h.labels['baremetal-krm.dev/hardware-profile'] || '-';
    const g = `host[role=${role},profile=${profiles}]`;
    const list = groups.get(g);
    if (list) list.push(h);
    else groups.set(g, [h]);
  }
  for (const [g, list] of groups) {
    list.sort((a, b) => compareStrings(a.name, b.name));
    list.forEach((h, i) => hostKey.set(h.object, `${g}#${i + 1}`));
  }
  return hostKey;
}

/** The Secrets a host references, as `<host> networkData Secret`, by `namespace/name`. */
function secretOwners(site: SiteInput, hostKey: Map<KubeObject, string>): Map<string, string> {
  const owners = new Map<string, string>();
  const ref = (v: unknown): [unknown, unknown] => (isObj(v) ? [v.name, v.namespace] : [undefined, undefined]);
  for (const h of site.hosts) {
    if (h.kind !== 'BareMetalHost') continue;
    const key = hostKey.get(h.object)!;
    const spec = h.object.get('spec');
    if (!isObj(spec)) continue;
    const refs: [string, unknown, unknown][] = [
      ['networkData', ...ref(spec.networkData)],
      ['userData', ...ref(spec.userData)],
      ['metaData', ...ref(spec.metaData)],
      ['bmc credentials', isObj(spec.bmc) ? spec.bmc.credentialsName : undefined, undefined],
    ];
    for (const [what, n, ns] of refs)
      if (typeof n === 'string') owners.set(`${typeof ns === 'string' ? ns : (h.namespace ?? '')}/${n}`, `${key} ${what} Secret`);
  }
  return owners;
}

/** One object of a site as divergence compares it: everything needed, nothing of the object itself. */
export interface DivergenceItem {
  kind: string;
  name: string;
  namespace?: string;
  /** the identity the site's intent gives it (a host by role and profile, a host's Secret), if any */
  owner?: string;
  /** path -> [masked value to compare, value to show] */
  values: Record<string, [string, string]>;
}

/**
 * What divergence needs of one site, computed from that site alone (so per-site CI jobs can
 * compute it and one job compare them: `report --merge`). `objects` lists `kind|namespace|name`
 * of every object: a kind + name held in two namespaces by any site is matched by namespace.
 */
export interface SiteDivergence {
  site: string;
  objects: string[];
  items: DivergenceItem[];
}

/** The divergence facts of one site: its objects flattened, hosts and their Secrets keyed by intent. */
export function divergenceFacts(site: SiteInput, opts: DivergenceOptions): SiteDivergence {
  // the user's first: a field both ignore counts as the user's pattern used
  const patterns = [...opts.ignoreFields, ...(opts.defaultIgnores ? DEFAULT_IGNORES : [])].map(compile);
  const f = flattener(site, opts, patterns);
  const hostKey = hostKeys(site, opts);
  const secretOwner = secretOwners(site, hostKey);
  const items: DivergenceItem[] = [];
  for (const o of site.objects) {
    if (!hostKey.has(o) && (o.kind === 'HardwareData' || o.kind === 'HardwareInventory')) continue; // folded into its host
    let data: unknown;
    try {
      data = o.data;
    } catch {
      continue;
    }
    const owner = hostKey.get(o) ?? (o.kind === 'Secret' ? secretOwner.get(`${o.namespace ?? ''}/${o.name}`) : undefined);
    const values: Record<string, [string, string]> = Object.create(null);
    for (const [p, v] of flatten(f, o, data, site.hostFields.get(o)).values) values[p] = [v.cmp, v.show];
    const item: DivergenceItem = { kind: o.kind, name: o.name, values };
    if (o.namespace) item.namespace = o.namespace;
    if (owner) item.owner = owner;
    items.push(item);
  }
  return { site: site.name, objects: site.objects.map((o) => `${o.kind}|${o.namespace ?? ''}|${o.name}`), items };
}

/** Identities and flattened values of one site. */
function siteIndex(
  site: SiteDivergence,
  multiNs: ReadonlySet<string>,
): Map<string, { kind: string; name: string; values: Record<string, [string, string]> }> {
  const out = new Map<string, { kind: string; name: string; values: Record<string, [string, string]> }>();
  for (const o of site.items) {
    const namespaced = `${o.kind} ${o.namespace ?? '-'}/${o.name || '(no name)'}`;
    let id = o.owner ?? (multiNs.has(`${o.kind}|${o.name}`) ? namespaced : `${o.kind} ${o.name || '(no name)'}`);
    if (out.has(id)) id = namespaced;
    out.set(id, { kind: o.kind, name: o.name, values: o.values });
  }
  return out;
}

function pathOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function divergence(sites: readonly SiteInput[], opts: DivergenceOptions): DivergenceEntry[] {
  return compareSites(
    sites.map((s) => divergenceFacts(s, opts)),
    opts,
  );
}

/** The divergence of sites from their facts (in command-line order). */
export function compareSites(sites: readonly SiteDivergence[], opts: Pick<DivergenceOptions, 'reference'>): DivergenceEntry[] {
  if (sites.length < 2) return [];
  // kind + name held in two namespaces by any site: matched by namespace too, in every site
  const multiNs = new Set<string>();
  for (const s of sites) {
    const seen = new Map<string, string>();
    for (const key of s.objects) {
      const [kind, ns, name] = key.split('|') as [string, string, string];
      const k = `${kind}|${name}`;
      const prev = seen.get(k);
      if (prev === undefined) seen.set(k, ns);
      else if (prev !== ns) multiNs.add(k);
    }
  }
  const idx = sites.map((s) => ({ site: s.site, index: siteIndex(s, multiNs) }));
  const ids = new Set<string>();
  for (const s of idx) for (const k of s.index.keys()) ids.add(k);
  const ref = opts.reference ? idx.find((s) => s.site === opts.reference) : undefined;
  const out: DivergenceEntry[] = [];
  for (const id of [...ids].sort(pathOrder)) {
    const present = idx.filter((s) => s.index.has(id));
    const first = present[0]!.index.get(id)!;
    const names = idx.map((s) => ({ site: s.site, name: s.index.get(id)?.name ?? null }));
    let missingIn: string[];
    if (ref) {
      if (ref.index.has(id)) missingIn = idx.filter((s) => !s.index.has(id)).map((s) => s.site);
      else missingIn = [ref.site];
    } else missingIn = idx.filter((s) => !s.index.has(id)).map((s) => s.site);
    const paths = new Set<string>();
    for (const s of present) for (const p of Object.keys(s.index.get(id)!.values)) paths.add(p);
    const fields: DivergenceField[] = [];
    for (const p of [...paths].sort(pathOrder)) {
      const cmp = (s: (typeof idx)[number]): string | null => s.index.get(id)?.values[p]?.[0] ?? null;
      let differs: boolean;
      if (ref) {
        if (!ref.index.has(id)) differs = false;
        else {
          const r = cmp(ref);
          differs = present.some((s) => cmp(s) !== r);
        }
      } else differs = new Set(present.map(cmp)).size > 1;
      if (!differs) continue;
      const values = idx.map((s) => ({
        site: s.site,
        value: s.index.has(id) ? (s.index.get(id)!.values[p]?.[1] ?? null) : null,
      }));
      fields.push({ path: p, values });
    }
    if (fields.length === 0 && missingIn.length === 0) continue;
    out.push({ identity: id, kind: first.kind, names, missingIn, fields });
  }
  return out;
}
