/**
 * The site packages of a fleet repository and what each one is made of, so that CI renders and
 * validates only the sites a commit touches.
 *
 * A site is a folder that is rendered on its own: a kpt package (a `Kptfile`), an airshipctl
 * site (a `metadata.yaml` of kind `ManifestMetadata`), or a kustomization that no other
 * kustomization in the repository refers to. The outermost one wins: folders inside a site are
 * part of it. A site's inputs are every file under its folder plus, followed transitively, every
 * folder and file its kustomizations and Kptfiles refer to (shared types, catalogues, functions).
 */
import { readdirSync } from 'node:fs';
import { join, normalize, posix, sep } from 'node:path';
import { isRecord } from '../krm/index.js';
import { functionConfigExecPaths, KUSTOMIZATION_FILES, kptfileRefs, kustomizationRefs, readYamlData } from '../model/kustomization.js';

export type SiteKind = 'kpt' | 'airship' | 'kustomize';

export interface SitePackage {
  /** folder relative to the repository root, `/`-separated (`sites/east-1`) */
  path: string;
  kind: SiteKind;
}

export interface SiteInputs {
  /** folders (relative, `/`-separated) whose every file is an input */
  dirs: Set<string>;
  /** single files (relative) that are inputs */
  files: Set<string>;
}

interface DirFacts {
  kptfile: boolean;
  kustomization?: string;
  airship: boolean;
  files: string[];
}

const SKIP_DIRS = new Set(['.git', 'node_modules', 'dist']);

const toPosix = (p: string): string => (sep === '/' ? p : p.split(sep).join('/'));

/** Every folder under root (relative paths) with what it holds; dot-folders and node_modules skipped. */
function scanTree(root: string): Map<string, DirFacts> {
  const out = new Map<string, DirFacts>();
  const walk = (rel: string): void => {
    const abs = join(root, rel);
    const facts: DirFacts = { kptfile: false, airship: false, files: [] };
    for (const e of readdirSync(abs, { withFileTypes: true })) {
      if (e.isDirectory()) {
        if (!e.name.startsWith('.') && !SKIP_DIRS.has(e.name)) walk(rel ? `${rel}/${e.name}` : e.name);
        continue;
      }
      facts.files.push(e.name);
      if (e.name === 'Kptfile') facts.kptfile = true;
      else if (KUSTOMIZATION_FILES.includes(e.name) && facts.kustomization === undefined) facts.kustomization = e.name;
      else if (e.name === 'metadata.yaml') facts.airship = isManifestMetadata(join(abs, e.name));
    }
    out.set(rel, facts);
  };
  walk('');
  return out;
}

function isManifestMetadata(file: string): boolean {
  const d = readYamlData(file);
  return isRecord(d) && d.kind === 'ManifestMetadata' && String(d.apiVersion ?? '').startsWith('airshipit.org/');
}

/** `a/b` + `../c` -> `a/c`; undefined when it leaves the repository. */
function resolveRel(fromDir: string, ref: string): string | undefined {
  const p = posix.normalize(posix.join(fromDir || '.', toPosix(ref)));
  if (p === '..' || p.startsWith('../')) return undefined;
  return p === '.' ? '' : p.replace(/\/$/, '');
}

function relDir(rel: string): string {
  return rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '';
}

function isUnder(path: string, dir: string): boolean {
  return dir === '' || path === dir || path.startsWith(`${dir}/`);
}

/** The local references of the kustomization and Kptfile in `dir`, resolved from the root. */
function folderRefs(root: string, dir: string, facts: DirFacts): string[] {
  const refs: string[] = [];
  if (facts.kustomization) {
    const data = readYamlData(join(root, dir, facts.kustomization));
    for (const r of kustomizationRefs(data)) {
      const p = resolveRel(dir, r);
      if (p === undefined) continue;
      refs.push(p);
      // a generator/transformer file may be a KRM function config whose exec is a file too; the
      // path is taken from both the kustomization's folder and the config's (a false match only
      // selects a site more, a missed one would skip it)
      if (/\.ya?ml$/.test(p))
        for (const e of functionConfigExecPaths(readYamlData(join(root, p))))
          refs.push(resolveRel(dir, e) ?? '', resolveRel(relDir(p), e) ?? '');
    }
  }
  if (facts.kptfile) for (const r of kptfileRefs(readYamlData(join(root, dir, 'Kptfile')))) refs.push(resolveRel(dir, r) ?? '');
  return refs.filter((r) => r !== '');
}

export interface FleetIndex {
  root: string;
  sites: SitePackage[];
  inputsOf(site: SitePackage): SiteInputs;
}

/** Finds the sites under `root` and indexes what each is made of. */
export function indexFleet(root: string): FleetIndex {
  const tree = scanTree(root);
  // folders that some kustomization refers to: not sites of their own
  const refsOf = new Map<string, string[]>();
  const referenced = new Set<string>();
  for (const [dir, facts] of tree) {
    if (!facts.kustomization && !facts.kptfile) continue;
    const refs = folderRefs(root, dir, facts);
    refsOf.set(dir, refs);
    for (const r of refs) if (tree.has(r) && r !== dir) referenced.add(r);
  }
  const sites: SitePackage[] = [];
  const dirs = [...tree.keys()].sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : a > b ? 1 : 0));
  for (const dir of dirs) {
    if (dir === '' && tree.size > 1 && !tree.get('')!.kptfile && !tree.get('')!.airship) continue; // the repository itself
    if (sites.some((s) => isUnder(dir, s.path))) continue;
    const f = tree.get(dir)!;
    const kind: SiteKind | undefined = f.airship
      ? 'airship'
      : f.kptfile
        ? 'kpt'
        : f.kustomization && !referenced.has(dir)
          ? 'kustomize'
          : undefined;
    if (kind) sites.push({ path: dir, kind });
  }
  sites.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

  // each folder's sub-folders, to walk a subtree without scanning the whole tree
  const children = new Map<string, string[]>();
  for (const dir of tree.keys()) {
    if (dir === '') continue;
    const parent = dir.includes('/') ? dir.slice(0, dir.lastIndexOf('/')) : '';
    children.set(parent, [...(children.get(parent) ?? []), dir]);
  }
  const subtree = (dir: string): string[] => {
    const out = [dir];
    for (let i = 0; i < out.length; i++) out.push(...(children.get(out[i]!) ?? []));
    return out;
  };

  const cache = new Map<string, SiteInputs>();
  const inputsOf = (site: SitePackage): SiteInputs => {
    const hit = cache.get(site.path);
    if (hit) return hit;
    const inputs: SiteInputs = { dirs: new Set([site.path]), files: new Set() };
    const queue = subtree(site.path);
    const seen = new Set(queue);
    while (queue.length > 0) {
      const dir = queue.pop()!;
      for (const r of refsOf.get(dir) ?? []) {
        if (!tree.has(r)) {
          inputs.files.add(r);
          continue;
        }
        inputs.dirs.add(r);
        // everything under a referenced folder renders with it: follow its references too
        for (const d of subtree(r)) {
          if (seen.has(d)) continue;
          seen.add(d);
          queue.push(d);
        }
      }
    }
    cache.set(site.path, inputs);
    return inputs;
  };
  return { root, sites, inputsOf };
}

/** Whether a changed file (relative, `/`-separated) is an input of the site. */
export function touches(inputs: SiteInputs, file: string): boolean {
  if (inputs.files.has(file)) return true;
  for (const d of inputs.dirs) if (isUnder(file, d)) return true;
  return false;
}

/** The sites any of the changed files is an input of, in site order. */
export function changedSites(index: FleetIndex, changedFiles: string[]): SitePackage[] {
  const files = changedFiles.map((f) => toPosix(normalize(f)));
  return index.sites.filter((s) => {
    const inputs = index.inputsOf(s);
    return files.some((f) => touches(inputs, f));
  });
}

/** The name a site goes by in a CI matrix: its folder name, made unique by its path when needed. */
export function matrixEntries(sites: SitePackage[]): { site: string; path: string; kind: SiteKind }[] {
  const count = new Map<string, number>();
  for (const s of sites) count.set(posix.basename(s.path), (count.get(posix.basename(s.path)) ?? 0) + 1);
  return sites.map((s) => ({
    site: (count.get(posix.basename(s.path)) ?? 0) > 1 ? s.path.replace(/\//g, '-') : posix.basename(s.path) || '.',
    path: s.path || '.',
    kind: s.kind,
  }));
}
