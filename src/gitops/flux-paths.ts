/**
 * Where a Flux Kustomization's `spec.path` (relative to the root of its GitRepository) lands in
 * a local folder: through the Git repository that holds the folder when there is one, else by
 * the longest tail of the path that exists under the folder (a copy outside any repository).
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import type { KubeObject } from '../krm/index.js';

/**
 * A Kustomization `spec.path` -> folder relative to the local root (`''` = the root itself),
 * undefined when outside it. `produced`: the folders the root will hold (for a root outside any
 * repository, whose place in Flux's repository can only be told by the folders' names).
 */
export type FluxPathMapper = (specPath: string, produced: ReadonlySet<string>) => string | undefined;

export function fluxKustomizationPaths(objects: readonly KubeObject[]): { object: KubeObject; path: string }[] {
  const out: { object: KubeObject; path: string }[] = [];
  for (const o of objects) {
    const p = o.get('spec.path');
    if (typeof p === 'string' && p.trim() !== '') out.push({ object: o, path: p });
  }
  return out;
}

/** The folder holding `.git` above `dir` (a worktree's `.git` file counts), if any. */
export function gitRoot(dir: string): string | undefined {
  let d = resolve(dir);
  for (;;) {
    if (existsSync(join(d, '.git'))) return d;
    const up = dirname(d);
    if (up === d) return undefined;
    d = up;
  }
}

const parts = (p: string): string[] => p.split('/').filter((x) => x !== '' && x !== '.');

/** Maps Kustomization paths onto `root` (the folder Flux's paths reach through the repository). */
export function fluxPathMapper(root: string): FluxPathMapper {
  const abs = resolve(root);
  const repo = gitRoot(abs);
  const inRoot = (p: string): string | undefined => {
    const rel = relative(abs, p);
    if (rel === '') return '';
    return rel.startsWith('..') || rel.startsWith(sep) ? undefined : rel.split(sep).join('/');
  };
  return (specPath, produced) => {
    const ps = parts(specPath);
    if (repo) return inRoot(resolve(repo, ...ps));
    // no repository: the longest tail of the path that the root will hold, else undefined
    if (ps.length && ps[ps.length - 1] === basename(abs)) return '';
    for (let i = 0; i < ps.length; i++) {
      const tail = ps.slice(i).join('/');
      if (produced.has(tail)) return tail;
    }
    return undefined;
  };
}

/** Every folder (and parent folder) of a set of file paths. */
export function foldersOf(files: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const f of files) {
    const ps = f.split('/');
    for (let i = 1; i < ps.length; i++) out.add(ps.slice(0, i).join('/'));
  }
  return out;
}

/** The folders under `root` (relative, `/`-separated; dot-folders skipped). */
export function existingFolders(root: string): Set<string> {
  const out = new Set<string>();
  const walk = (d: string, rel: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (!e.isDirectory() || e.name.startsWith('.')) continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      out.add(r);
      walk(join(d, e.name), r);
    }
  };
  if (existsSync(root)) walk(root, '');
  return out;
}

/**
 * What Flux applies from a root folder: the root, then every folder inside it that a Flux
 * Kustomization found so far names (`spec.path`), each once, in the order they are found.
 * `build(folder)` returns the objects of one folder (e.g. `kubectl kustomize`).
 */
export function followFluxPaths(root: string, build: (folder: string) => KubeObject[]): { folder: string; objects: KubeObject[] }[] {
  const map = fluxPathMapper(root);
  const produced = existingFolders(root);
  const seen = new Set<string>(['']);
  const out = [{ folder: '', objects: build(root) }];
  for (let i = 0; i < out.length; i++) {
    const flux = out[i]!.objects.filter((o) => o.kind === 'Kustomization' && o.group === 'kustomize.toolkit.fluxcd.io');
    for (const { path } of fluxKustomizationPaths(flux)) {
      const local = map(path, produced);
      if (local === undefined || seen.has(local) || !produced.has(local)) continue;
      seen.add(local);
      out.push({ folder: local, objects: build(join(root, ...local.split('/'))) });
    }
  }
  return out;
}
