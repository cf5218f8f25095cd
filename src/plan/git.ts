/**
 * Both sides of `plan --git BASE..HEAD` read from git objects, never from the work tree: the
 * files of a commit under a path are listed (`git ls-tree`), read in one `git cat-file --batch`
 * and written to a temporary folder, which the tree loader then reads like any folder. A path
 * with a kustomization gets the whole commit (its kustomization may reach outside the path).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { redactToolOutput } from '../secrets/redact.js';
import { dirname, join, relative, resolve, sep } from 'node:path';

export class GitError extends Error {}

function git(args: string[], cwd: string, input?: string): Buffer {
  // node:child_process on first use: loading it (with net and stream) costs every CLI start ~10 ms
  const r = process.getBuiltinModule('node:child_process').spawnSync('git', args, { cwd, input, maxBuffer: 1 << 30 });
  if (r.error) throw new GitError(`cannot run git (${r.error.message}): install git or compare folders instead (plan BASE HEAD)`);
  if (r.status !== 0)
    throw new GitError(redactToolOutput(`git ${args.join(' ')}: ${r.stderr.toString().trim().split('\n').slice(-2).join(' | ')}`));
  return r.stdout;
}

export function repoTop(cwd: string): string {
  try {
    return git(['rev-parse', '--show-toplevel'], cwd).toString().trim();
  } catch (e) {
    throw new GitError(`--git needs a git repository: ${(e as Error).message}`);
  }
}

function commitOf(ref: string, cwd: string): string {
  try {
    return git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], cwd)
      .toString()
      .trim();
  } catch {
    throw new GitError(
      `--git: ${ref} is not a commit of this repository (a branch, tag or commit; for a pull request e.g. origin/main...HEAD)`,
    );
  }
}

export interface GitRange {
  /** commit ids */
  base: string;
  /** undefined: the work tree */
  head?: string;
  baseLabel: string;
  headLabel: string;
}

/**
 * What to do when history is missing: a shallow clone (CI's default checkout) holds too few
 * commits for a merge base.
 */
export function shallowHint(cwd: string): string {
  let shallow = false;
  try {
    shallow = git(['rev-parse', '--is-shallow-repository'], cwd).toString().trim() === 'true';
  } catch {
    // not a repository, or an old git: no hint
  }
  return shallow
    ? ': this is a shallow clone, which lacks the history: fetch it (actions/checkout with fetch-depth: 0, GitLab GIT_DEPTH: 0, or git fetch --unshallow)'
    : ': the branches share no commit (an unrelated history?)';
}

/** `A..B` (A against B), `A...B` (the merge base of A and B against B), `A` (A against the work tree). */
export function parseRange(spec: string, cwd: string): GitRange {
  const three = spec.indexOf('...');
  const two = spec.indexOf('..');
  if (three >= 0) {
    const a = spec.slice(0, three) || 'HEAD';
    const b = spec.slice(three + 3) || 'HEAD';
    let base: string;
    try {
      base = git(['merge-base', commitOf(a, cwd), commitOf(b, cwd)], cwd)
        .toString()
        .trim();
    } catch (e) {
      if (!(e instanceof GitError)) throw e;
      throw new GitError(`${spec}: ${a} and ${b} have no merge base here${shallowHint(cwd)}`);
    }
    return { base, head: commitOf(b, cwd), baseLabel: `merge-base(${a}, ${b})`, headLabel: b };
  }
  if (two >= 0) {
    const a = spec.slice(0, two) || 'HEAD';
    const b = spec.slice(two + 2) || 'HEAD';
    return { base: commitOf(a, cwd), head: commitOf(b, cwd), baseLabel: a, headLabel: b };
  }
  return { base: commitOf(spec, cwd), baseLabel: spec, headLabel: 'work tree' };
}

/** A path given on the command line as a path of the repository (`sites/east`; '' for the root). */
export function repoPathOf(top: string, path: string, cwd: string): string {
  const rel = relative(top, resolve(cwd, path)).split(sep).join('/');
  if (rel.startsWith('..')) throw new GitError(`${path} is outside the repository ${top}`);
  return rel;
}

interface TreeEntry {
  mode: string;
  oid: string;
  path: string;
}

function listTree(commit: string, path: string, cwd: string): TreeEntry[] {
  const args = ['ls-tree', '-r', '-z', '--full-tree', commit];
  if (path) args.push('--', path);
  const out: TreeEntry[] = [];
  for (const rec of git(args, cwd).toString('utf8').split('\0')) {
    if (!rec) continue;
    const tab = rec.indexOf('\t');
    const [mode, type, oid] = rec.slice(0, tab).split(' ');
    if (type === 'blob' && (mode === '100644' || mode === '100755')) out.push({ mode: mode!, oid: oid!, path: rec.slice(tab + 1) });
  }
  return out;
}

const KUSTOMIZATION = /(^|\/)(kustomization\.ya?ml|Kustomization)$/;

/**
 * Writes the files of `commit` under `path` (all of them when `path` holds a kustomization at
 * its top) into `dest`. Returns how many files were written (0: the path is not in the commit).
 */
export function materialize(commit: string, path: string, dest: string, cwd: string): number {
  let entries = listTree(commit, path, cwd);
  const top = path ? `${path}/` : '';
  if (entries.some((e) => KUSTOMIZATION.test(e.path) && e.path.slice(top.length).indexOf('/') < 0)) entries = listTree(commit, '', cwd);
  if (entries.length === 0) return 0;
  const out = git(['cat-file', '--batch'], cwd, entries.map((e) => e.oid).join('\n') + '\n');
  let at = 0;
  for (const e of entries) {
    const nl = out.indexOf(10, at);
    const header = out.subarray(at, nl).toString('utf8').split(' ');
    const size = Number(header[2]);
    if (header[0] !== e.oid || !Number.isFinite(size)) throw new GitError(`git cat-file: unexpected answer for ${e.path}`);
    const file = join(dest, ...e.path.split('/'));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, out.subarray(nl + 1, nl + 1 + size));
    at = nl + 1 + size + 1;
  }
  return entries.length;
}
