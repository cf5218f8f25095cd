/**
 * Writing a generated folder safely: only inside it (no `..`, no absolute paths, no symbolic link
 * out), only into a folder that is new, empty or written by us before, only files whose bytes
 * change, and files it no longer holds removed. Everything is checked before the first write.
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

export class WriteError extends Error {}

export interface WriteSummary {
  written: string[];
  removed: string[];
  unchanged: number;
}

function listFiles(dir: string, root = dir, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) listFiles(p, root, out);
    else out.push(relative(root, p).split(sep).join('/'));
  }
  return out;
}

function removeEmptyDirs(dir: string, root: string): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) removeEmptyDirs(join(dir, e.name), root);
  if (dir !== root && readdirSync(dir).length === 0) rmdirSync(dir);
}

const inside = (root: string, p: string): boolean => {
  const rel = relative(root, p);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
};

/** Every parent of `target` up to `root` that exists is a real folder inside root (no link out). */
function checkParents(root: string, realRoot: string, target: string): void {
  for (let d = dirname(target); d !== root && inside(root, d); d = dirname(d)) {
    if (!existsSync(d)) continue;
    const st = lstatSync(d);
    if (st.isSymbolicLink() || !st.isDirectory() || !inside(realRoot, realpathSync(d)))
      throw new WriteError(`${d} is not a folder inside ${root} (a file or a symbolic link): refusing to write through it`);
  }
}

/**
 * Makes `dir` hold exactly `files` (relative `/` paths -> content). `ownedMarker`: the content a
 * non-empty `dir` must start its `kustomization.yaml` with to prove an earlier run wrote it.
 */
export function writeTree(dir: string, files: ReadonlyMap<string, string>, ownedMarker: string): WriteSummary {
  const root = resolve(dir);
  if (existsSync(root)) {
    if (!lstatSync(root).isDirectory()) throw new WriteError(`${dir} exists and is not a folder`);
    const existing = readdirSync(root);
    const k = join(root, 'kustomization.yaml');
    if (existing.length && !(existsSync(k) && readFileSync(k, 'utf8').startsWith(ownedMarker)))
      throw new WriteError(
        `${dir} holds files that baremetal-krm render did not write (no kustomization.yaml of ours): give a new or empty folder`,
      );
  }
  mkdirSync(root, { recursive: true });
  const realRoot = realpathSync(root);
  const targets = new Map<string, string>();
  for (const [rel, text] of files) {
    const target = resolve(root, rel);
    if (isAbsolute(rel) || rel.split('/').includes('..') || !inside(root, target))
      throw new WriteError(`${rel}: outside ${dir}, refusing to write it`);
    checkParents(root, realRoot, target);
    if (existsSync(target) && lstatSync(target).isSymbolicLink())
      throw new WriteError(`${target} is a symbolic link: refusing to write through it`);
    targets.set(rel, text);
  }
  const summary: WriteSummary = { written: [], removed: [], unchanged: 0 };
  for (const f of listFiles(root).sort()) {
    if (targets.has(f)) continue;
    rmSync(join(root, f));
    summary.removed.push(f);
  }
  for (const [rel, text] of targets) {
    const target = join(root, rel);
    if (existsSync(target) && readFileSync(target, 'utf8') === text) {
      summary.unchanged++;
      continue;
    }
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
    summary.written.push(rel);
  }
  removeEmptyDirs(root, root);
  return summary;
}
