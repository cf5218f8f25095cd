/**
 * Loading the two sides of a plan: folders, files or kustomizations as given, or paths of a
 * git commit (materialised by git.ts into a temporary folder, shown by their repository path).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join, posix, relative, resolve, sep } from 'node:path';
import { repoRelative, repoRootOf } from '../cli/ci-finding.js';
import { loadSite, type Site } from '../report/load.js';
import { materialize } from './git.js';
import { indexTree, type Tree } from './tree.js';

const toPosix = (p: string): string => p.split(sep).join('/');

function emptySite(name: string, source: string): Site {
  return { name, source, mode: 'folder', objects: [], files: new Map(), skipped: [], unreadable: 0, notes: [] };
}

/** One side of a plan: its objects, the lines that say what was skipped, and how many documents could not be read. */
export interface Loaded {
  tree: Tree;
  skipped: string[];
  /** documents that could not be read, and files that are no regular file (a FIFO at a .yaml path) */
  unreadable: number;
}

/** A folder, file or kustomization as given on the command line. */
export function loadPath(path: string, cwd = process.cwd()): Loaded {
  const site = loadSite(path, resolve(cwd, path), { lazy: true });
  const inRepo = repoRootOf(resolve(cwd, path)) !== undefined;
  const shown = (rel: string): string => (site.mode === 'file' ? path : toPosix(join(path, rel)));
  const tree = indexTree(site, {
    display: shown,
    match: (rel) => `/${inRepo ? repoRelative(shown(rel), cwd) : toPosix(resolve(cwd, shown(rel)))}`,
    repoRelative: inRepo,
  });
  return { tree, skipped: [...site.skipped, ...site.notes], unreadable: site.unreadable + (site.specialFiles ?? 0) };
}

/**
 * `repoPath` of a commit (or of the work tree when `commit` is undefined); a path missing from
 * the commit is an empty tree (a site added or removed by the change).
 */
export function loadGitPath(commit: string | undefined, repoPath: string, top: string, cwd = process.cwd()): Loaded {
  const index = (site: Site): Loaded => {
    // a single file is its own path; files of a folder are under it
    const inRepo = (rel: string): string => (site.mode === 'file' ? repoPath : posix.join(repoPath, toPosix(rel)));
    const files = {
      display: (rel: string) => toPosix(relative(cwd, join(top, inRepo(rel)))) || '.',
      match: (rel: string) => `/${inRepo(rel)}`,
      repoRelative: true,
    };
    return {
      tree: indexTree(site, files),
      skipped: [...site.skipped, ...site.notes],
      unreadable: site.unreadable + (site.specialFiles ?? 0),
    };
  };
  if (commit === undefined) return index(loadSite(repoPath || '.', join(top, repoPath), { lazy: true }));
  const dest = mkdtempSync(join(process.getBuiltinModule('node:os').tmpdir(), 'baremetal-krm-plan-'));
  try {
    const n = materialize(commit, repoPath, dest, top);
    return index(n === 0 ? emptySite(repoPath, repoPath) : loadSite(repoPath || '.', join(dest, repoPath), { lazy: true }));
  } finally {
    rmSync(dest, { recursive: true, force: true });
  }
}
