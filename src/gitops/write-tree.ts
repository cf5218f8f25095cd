/**
 * Writing a generated folder safely: only inside it (no `..`, no absolute paths, no symbolic link
 * out), only into a folder that is new, empty (but for dot-entries) or written by a render before,
 * only files whose bytes change, and of the files earlier renders wrote (their kustomizations list
 * them) those it no longer holds removed. Nothing else is touched: a Git checkout keeps its `.git`,
 * `.sops.yaml`, `.github/`, README. Everything is checked before the first write.
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';
import { blockedParent, isInside, targetInside } from '../krm/index.js';

export class WriteError extends Error {}

export interface WriteSummary {
  written: string[];
  removed: string[];
  unchanged: number;
}

/** A dot-file or dot-folder (`.git`, `.sops.yaml`, `.github/`): never read, written or removed. */
const isDotEntry = (name: string): boolean => name.startsWith('.');

/** The folders that held a removed file, emptied by the removal: removed, up to (not) the root. */
function removeEmptiedDirs(root: string, removed: readonly string[]): void {
  const dirs = new Set(removed.map((f) => dirname(join(root, f))));
  for (const start of [...dirs].sort((a, b) => b.length - a.length))
    for (let d = start; d !== root && existsSync(d) && readdirSync(d).length === 0; d = dirname(d)) rmdirSync(d);
}

/** The `- entry` lines of a kustomization.yaml a render wrote (flatten.ts writes them one per line, unquoted). */
const listedResources = (text: string): string[] =>
  text
    .split('\n')
    .map((l) => /^- (.+)$/.exec(l)?.[1])
    .filter((r): r is string => r !== undefined);

/**
 * What earlier renders wrote, read back from their own output: every `kustomization.yaml` that
 * starts with `ownedMarker`, and the files it lists (entry folders list their objects; the root
 * lists folders, which are not files). No separate record to lose or forget: a render's
 * kustomizations are its list. Dot-entries are never entered; listed paths that leave the folder
 * or are not plain files are not ours.
 */
function renderedFiles(root: string, ownedMarker: string): Set<string> {
  const realRoot = realpathSync(root);
  const owned = new Set<string>();
  // a listed file through a linked folder is outside: never ours to remove
  const realFolderInside = (f: string): boolean => {
    const real = realpathSync(dirname(join(root, f)));
    return real === realRoot || isInside(realRoot, real);
  };
  const walk = (rel: string): void => {
    for (const e of readdirSync(join(root, rel), { withFileTypes: true })) {
      if (isDotEntry(e.name)) continue;
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && e.name === 'kustomization.yaml') {
        const text = readFileSync(join(root, p), 'utf8');
        if (!text.startsWith(ownedMarker)) continue;
        owned.add(p);
        for (const r of listedResources(text)) {
          const f = posix.normalize(posix.join(rel || '.', r));
          if (f.startsWith('..') || posix.isAbsolute(f) || f.split('/').some(isDotEntry)) continue;
          const st = lstatSync(join(root, f), { throwIfNoEntry: false });
          if (st?.isFile() && realFolderInside(f)) owned.add(f);
        }
      }
    }
  };
  walk('');
  return owned;
}

/** The folder is new, empty but for dot-entries (a fresh Git checkout), or has a root kustomization a render wrote. */
function checkOwned(dir: string, root: string, ownedMarker: string): void {
  if (!existsSync(root)) return;
  if (!lstatSync(root).isDirectory()) throw new WriteError(`${dir} exists and is not a folder`);
  const existing = readdirSync(root).filter((n) => !isDotEntry(n));
  const k = join(root, 'kustomization.yaml');
  if (existing.length && !(existsSync(k) && readFileSync(k, 'utf8').startsWith(ownedMarker)))
    throw new WriteError(
      `${dir} holds files that baremetal-krm render did not write (no kustomization.yaml of ours): give a new folder, or one empty but for dot-files (.git, .sops.yaml)`,
    );
}

/** Every target is inside root, not a dot-entry, not through or onto a link, and not over a file no render wrote. */
function checkTargets(dir: string, root: string, files: ReadonlyMap<string, string>, owned: ReadonlySet<string>): void {
  for (const [rel, text] of files) {
    const inside = targetInside(root, rel);
    if ('problem' in inside && inside.problem === 'unusable name')
      throw new WriteError(`${rel}: not a usable file name, refusing to write it`);
    if ('problem' in inside || rel.split('/').includes('..')) throw new WriteError(`${rel}: outside ${dir}, refusing to write it`);
    const { target } = inside;
    if (rel.split('/').some(isDotEntry)) throw new WriteError(`${rel}: a dot-file or dot-folder, which render never writes`);
    const blocked = blockedParent(root, target);
    if (blocked)
      throw new WriteError(`${blocked} is not a folder inside ${root} (a file or a symbolic link): refusing to write through it`);
    const st = lstatSync(target, { throwIfNoEntry: false });
    if (st?.isSymbolicLink()) throw new WriteError(`${target} is a symbolic link: refusing to write through it`);
    if (st && !owned.has(rel) && !(st.isFile() && readFileSync(target, 'utf8') === text))
      throw new WriteError(`${target} exists and no earlier render wrote it: move it away, render would overwrite it`);
  }
}

/**
 * Makes `dir` hold `files` (relative `/` paths -> content) and no longer hold the files earlier
 * renders wrote that `files` lacks; every other file (README.md, dot-entries such as `.git`,
 * `.sops.yaml`, `.github/`) is left alone. `ownedMarker`: the content a render's
 * `kustomization.yaml` starts with; a non-empty `dir` must have one at its root.
 */
export function writeTree(dir: string, files: ReadonlyMap<string, string>, ownedMarker: string): WriteSummary {
  const root = resolve(dir);
  checkOwned(dir, root, ownedMarker);
  mkdirSync(root, { recursive: true });
  const owned = renderedFiles(root, ownedMarker);
  checkTargets(dir, root, files, owned);
  const summary: WriteSummary = { written: [], removed: [], unchanged: 0 };
  for (const f of [...owned].sort()) {
    if (files.has(f)) continue;
    rmSync(join(root, f));
    summary.removed.push(f);
  }
  for (const [rel, text] of files) {
    const target = join(root, rel);
    if (existsSync(target) && readFileSync(target, 'utf8') === text) {
      summary.unchanged++;
      continue;
    }
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
    summary.written.push(rel);
  }
  removeEmptiedDirs(root, summary.removed);
  return summary;
}
