/**
 * Where a file a command writes lands, checked before anything is written: the one home for the
 * path rules of `--sink DIR` (local-package.ts) and `render --out` (src/gitops/write-tree.ts).
 * A relative path must stay inside the folder (no `..` out, not absolute, no NUL or backslash),
 * and no folder on the way may be a file or a symbolic link (a link could lead out of it).
 */
import { lstatSync, realpathSync, type Stats } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

/** Why a relative path cannot be written under a folder. */
export type TargetProblem = 'unusable name' | 'outside';

/** The absolute target of `rel` under `root`, or why it has none (`rel === ''` or `.` is outside: it is the folder itself). */
export function targetInside(root: string, rel: string): { target: string } | { problem: TargetProblem } {
  if (rel.includes('\0') || rel.includes('\\')) return { problem: 'unusable name' };
  const target = resolve(root, rel);
  return isAbsolute(rel) || !isInside(root, target) ? { problem: 'outside' } : { target };
}

/** Whether `p` is below `root` (not `root` itself). */
export function isInside(root: string, p: string): boolean {
  const r = relative(root, p);
  return r !== '' && r !== '..' && !r.startsWith(`..${sep}`) && !isAbsolute(r);
}

/**
 * Whether anything is at `p`, a link included, whatever it points at: existsSync follows a link
 * and says no for one whose target is missing, and a write would then go through it.
 */
export function isPresent(p: string): boolean {
  return lstatIfPresent(p) !== undefined;
}

/** What is at `p` itself (a link not followed), or undefined when nothing is (or a folder on the way is a file). */
export function lstatIfPresent(p: string): Stats | undefined {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}

/**
 * The first folder on the way from `root` to `target` that exists and is not a real folder inside
 * `root` (a file, a symbolic link, or a folder whose real path is elsewhere), if any. A link is
 * there even when its target is missing (lstat, not existsSync).
 */
export function blockedParent(root: string, target: string): string | undefined {
  const realRoot = realpathSync(root);
  for (let d = dirname(target); d !== root && isInside(root, d); d = dirname(d)) {
    const st = lstatIfPresent(d);
    if (!st) continue;
    if (st.isSymbolicLink() || !st.isDirectory()) return d;
    const real = realpathSync(d);
    if (real !== realRoot && !isInside(realRoot, real)) return d;
  }
  return undefined;
}
