/**
 * One side of a plan: the objects of a rendered tree (read with the report's loader: a folder,
 * a file, or a kustomization built with kubectl kustomize), indexed by identity, with what the
 * rules need to know about the tree: which Flux Kustomization applies which file (and whether
 * it prunes), which Secrets each BareMetalHost uses, what each Namespace holds.
 */
import { type KubeObject, isRecord, nonEmptyText } from '../krm/index.js';
import type { Site } from '../report/load.js';

export interface Entry {
  object: KubeObject;
  /** the path shown for its file (as given on the command line, or the repository path with --git) */
  file?: string;
  /** `/`-prefixed path used to find the Flux Kustomization whose path holds the file */
  matchPath?: string;
  line?: number;
}

export type SecretRole = 'bmc-credentials' | 'networkData' | 'userData' | 'metaData' | 'preprovisioningNetworkData';

export interface FluxKustomization {
  entry: Entry;
  /** spec.path without `./` and trailing `/` ('' for the source root) */
  path: string;
  prune: boolean;
}

export interface Tree {
  entries: Map<string, Entry>;
  /** `namespace/name` of a Secret -> the hosts that use it and how (read from the hosts on first use) */
  secretUse: () => Map<string, { host: string; role: SecretRole }[]>;
  /** `namespace/name` of a BareMetalHost */
  hosts: Map<string, Entry>;
  kustomizations: FluxKustomization[];
  /** objects per namespace */
  byNamespace: Map<string, Entry[]>;
  /** whether matchPath values are repository-relative (prefix match) or absolute (component match) */
  repoRelative: boolean;
}

const uses = new WeakMap<Tree, Map<string, { host: string; role: SecretRole }[]>>();

/** Which hosts use which Secret: parsed from the hosts once, when a rule first asks (a plan without Secret changes never does). */
function secretUse(tree: Tree): Map<string, { host: string; role: SecretRole }[]> {
  let m = uses.get(tree);
  if (m) return m;
  m = new Map();
  for (const e of tree.hosts.values())
    for (const s of hostSecrets(e.object)) {
      const list = m.get(s.key) ?? [];
      list.push({ host: e.object.name, role: s.role });
      m.set(s.key, list);
    }
  uses.set(tree, m);
  return m;
}

/** Identity of an object across trees: group, kind, namespace, name (the API version may change). */
export function identity(o: KubeObject): string {
  return `${o.group}|${o.kind}|${o.namespace ?? ''}|${o.name}`;
}

export function isHost(o: KubeObject): boolean {
  return o.kind === 'BareMetalHost' && o.group === 'metal3.io';
}

function refName(v: unknown): { name?: string; namespace?: string } {
  return isRecord(v) ? { name: nonEmptyText(v.name), namespace: nonEmptyText(v.namespace) } : {};
}

/** The Secrets a host names, with their role. */
export function hostSecrets(o: KubeObject): { key: string; role: SecretRole }[] {
  const spec = o.get('spec');
  if (!isRecord(spec)) return [];
  const ns = o.namespace ?? '';
  const out: { key: string; role: SecretRole }[] = [];
  const bmc = isRecord(spec.bmc) ? nonEmptyText(spec.bmc.credentialsName) : undefined;
  if (bmc) out.push({ key: `${ns}/${bmc}`, role: 'bmc-credentials' });
  for (const role of ['networkData', 'userData', 'metaData'] as const) {
    const r = refName(spec[role]);
    if (r.name) out.push({ key: `${r.namespace ?? ns}/${r.name}`, role });
  }
  const pre = nonEmptyText(spec.preprovisioningNetworkDataName);
  if (pre) out.push({ key: `${ns}/${pre}`, role: 'preprovisioningNetworkData' });
  return out;
}

function normalisePath(p: unknown): string {
  const s = typeof p === 'string' ? p : '';
  return s
    .replace(/^(\.\/)+/, '')
    .replace(/\/+$/, '')
    .replace(/^\.$/, '');
}

export interface TreeFiles {
  /** the path shown for a file of the tree (relative to the tree) */
  display: (rel: string) => string;
  /** the `/`-prefixed path Flux Kustomization paths are matched against */
  match: (rel: string) => string;
  repoRelative: boolean;
}

/** Indexes a loaded tree. Objects that appear twice are kept once per copy (`#2`...). */
export function indexTree(site: Site, files: TreeFiles): Tree {
  const tree: Tree = {
    entries: new Map(),
    secretUse: () => secretUse(tree),
    hosts: new Map(),
    kustomizations: [],
    byNamespace: new Map(),
    repoRelative: files.repoRelative,
  };
  // paths are worked out once per file, not once per object
  const paths = new Map<string, { file: string; matchPath: string }>();
  for (const o of site.objects) {
    const rel = site.files.get(o);
    const entry: Entry = { object: o };
    if (rel !== undefined) {
      let p = paths.get(rel);
      if (!p) paths.set(rel, (p = { file: files.display(rel), matchPath: files.match(rel) }));
      entry.file = p.file;
      entry.matchPath = p.matchPath;
      entry.line = o.sourceLine;
    }
    let key = identity(o);
    for (let n = 2; tree.entries.has(key); n++) key = `${identity(o)}#${n}`;
    tree.entries.set(key, entry);
    const ns = o.namespace ?? '';
    const list = tree.byNamespace.get(ns);
    if (list) list.push(entry);
    else tree.byNamespace.set(ns, [entry]);
    if (isHost(o)) tree.hosts.set(`${ns}/${o.name}`, entry);
    else if (o.kind === 'Kustomization' && o.group === 'kustomize.toolkit.fluxcd.io')
      tree.kustomizations.push({ entry, path: normalisePath(o.get('spec.path')), prune: o.get('spec.prune') === true });
  }
  // longest path first: the innermost Kustomization applies a file
  tree.kustomizations.sort((a, b) => b.path.length - a.path.length);
  return tree;
}

/**
 * The Flux Kustomization of the tree whose path holds the entry's file: the longest path that
 * prefixes the file's repository path, else the longest whose folders appear in the file's path
 * (a tree read outside its repository, or a repository laid out below its GitRepository root).
 */
export function ownerOf(tree: Tree, e: Entry): FluxKustomization | undefined {
  if (!e.matchPath) return undefined;
  if (tree.repoRelative) {
    const byPrefix = tree.kustomizations.find((k) => k.path === '' || e.matchPath!.startsWith(`/${k.path}/`));
    if (byPrefix) return byPrefix;
  }
  return tree.kustomizations.find((k) => k.path !== '' && e.matchPath!.includes(`/${k.path}/`));
}
