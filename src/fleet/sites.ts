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
import {
  functionConfigExecPaths,
  KUSTOMIZATION_FILES,
  kptfileRefs,
  kustomizationRefs,
  readYamlData,
  readYamlFile,
} from '../model/kustomization.js';
import { pushAll } from '../krm/index.js';

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
  /** kustomizations and Kptfiles among the inputs that cannot be read: what they refer to is unknown */
  unreadable: string[];
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

/** A kustomization or Kptfile that cannot be read: the file (relative) and why. */
export interface UnreadableFile {
  file: string;
  reason: string;
}

/** The data of a kustomization or Kptfile; when it cannot be read, `broken` says which and why. */
function readRefFile(root: string, rel: string, broken: UnreadableFile[]): unknown {
  const r = readYamlFile(join(root, rel));
  if (r.error) broken.push({ file: rel, reason: r.error });
  return r.data;
}

/** The local references of the kustomization and Kptfile in `dir`, resolved from the root. */
function folderRefs(root: string, dir: string, facts: DirFacts, broken: UnreadableFile[]): string[] {
  const refs: string[] = [];
  if (facts.kustomization) {
    const data = readRefFile(root, posix.join(dir, facts.kustomization), broken);
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
  if (facts.kptfile)
    for (const r of kptfileRefs(readRefFile(root, posix.join(dir, 'Kptfile'), broken))) refs.push(resolveRel(dir, r) ?? '');
  return refs.filter((r) => r !== '');
}

export interface FleetIndex {
  root: string;
  sites: SitePackage[];
  /** kustomizations and Kptfiles that cannot be read (sites using them are always selected by a change) */
  unreadable: UnreadableFile[];
  inputsOf(site: SitePackage): SiteInputs;
}

/** Finds the sites under `root` and indexes what each is made of. */
export function indexFleet(root: string): FleetIndex {
  const tree = scanTree(root);
  // folders that some kustomization refers to: not sites of their own
  const refsOf = new Map<string, string[]>();
  const referenced = new Set<string>();
  const unreadable: UnreadableFile[] = [];
  for (const [dir, facts] of tree) {
    if (!facts.kustomization && !facts.kptfile) continue;
    const refs = folderRefs(root, dir, facts, unreadable);
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
    for (let i = 0; i < out.length; i++) pushAll(out, children.get(out[i]!) ?? []);
    return out;
  };

  const brokenIn = new Map<string, string[]>();
  for (const u of unreadable) brokenIn.set(relDir(u.file), [...(brokenIn.get(relDir(u.file)) ?? []), u.file]);
  unreadable.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));

  const cache = new Map<string, SiteInputs>();
  const inputsOf = (site: SitePackage): SiteInputs => {
    const hit = cache.get(site.path);
    if (hit) return hit;
    const inputs: SiteInputs = { dirs: new Set([site.path]), files: new Set(), unreadable: [] };
    const queue = subtree(site.path);
    const seen = new Set(queue);
    while (queue.length > 0) {
      const dir = queue.pop()!;
      pushAll(inputs.unreadable, brokenIn.get(dir) ?? []);
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
  return { root, sites, unreadable, inputsOf };
}

/** Whether a changed file (relative, `/`-separated) is an input of the site. */
export function touches(inputs: SiteInputs, file: string): boolean {
  if (inputs.files.has(file)) return true;
  for (const d of inputs.dirs) if (isUnder(file, d)) return true;
  return false;
}

/**
 * The sites any of the changed files is an input of, in site order. A site with an unreadable
 * kustomization or Kptfile among its inputs is selected by any change: what it refers to is
 * unknown, and selecting a site more is safe where skipping one is not.
 */
export function changedSites(index: FleetIndex, changedFiles: string[]): SitePackage[] {
  const files = changedFiles.map((f) => toPosix(normalize(f)));
  return index.sites.filter((s) => {
    const inputs = index.inputsOf(s);
    return (files.length > 0 && inputs.unreadable.length > 0) || files.some((f) => touches(inputs, f));
  });
}

export class MatrixNameError extends Error {}

/**
 * The name a site goes by in a CI matrix: its folder name, or its path with `-` for `/` when
 * another site of the fleet has that folder name. Names are decided over `fleet` (every site),
 * so a site keeps its name whichever sites a change selects; two sites with one name (`a/east`
 * and `a-east` both `a-east`) are an error naming both: CI jobs and artifacts go by the name.
 */
export function matrixEntries(sites: SitePackage[], fleet: SitePackage[] = sites): { site: string; path: string; kind: SiteKind }[] {
  const count = new Map<string, number>();
  for (const s of fleet) count.set(posix.basename(s.path), (count.get(posix.basename(s.path)) ?? 0) + 1);
  const nameOf = (s: SitePackage): string =>
    (count.get(posix.basename(s.path)) ?? 0) > 1 ? s.path.replace(/\//g, '-') : posix.basename(s.path) || '.';
  const byName = new Map<string, string>();
  for (const s of fleet) {
    const name = nameOf(s);
    const other = byName.get(name);
    if (other !== undefined)
      throw new MatrixNameError(`sites ${other || '.'} and ${s.path || '.'} both go by "${name}" in the CI matrix: rename one folder`);
    byName.set(name, s.path);
  }
  return sites.map((s) => ({ site: nameOf(s), path: s.path || '.', kind: s.kind }));
}
