/**
 * Findings as CI systems read them, one shape for every command (validate, report, plan) and
 * every CI format: the problem-matcher line (`formatLine` of the runtime), SARIF 2.1.0 and JUnit
 * XML. A command turns what it found into `CiFinding`s plus the metadata of its rules; the
 * writers here do the rest, so the three formats can never disagree.
 */
import { existsSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { formatLine } from '../krm/index.js';

export type CiSeverity = 'error' | 'warning' | 'info';

export interface CiRule {
  id: string;
  /** severity when nothing overrides it */
  severity: CiSeverity;
  /** one line */
  short: string;
  /** what the rule checks and why it matters */
  full: string;
  /** how to fix or silence a finding */
  help: string;
}

export interface CiFinding {
  rule: string;
  severity: CiSeverity;
  message: string;
  /** path as given on the command line or read from git (made repository-relative for SARIF) */
  file?: string;
  line?: number;
  /** `Kind/namespace/name`: what the finding is about, part of its fingerprint */
  resource?: string;
  field?: string;
  /**
   * What identifies the finding across commits when it has no resource (never line numbers
   * or counts that change while the problem stays the same). Default: the message.
   */
  identity?: string;
  /** set when an operator accepted the finding (an allow annotation): why */
  suppressed?: string;
}

export interface CiTool {
  /** the command: `validate`, `report`, `plan` */
  command: string;
  rules: readonly CiRule[];
}

/** The problem-matcher line of a finding (the one format of `formatLine`). */
export function findingLine(f: CiFinding): string {
  return formatLine({ file: f.file, line: f.line, severity: f.severity, message: f.message, rule: f.rule });
}

const roots = new Map<string, string | undefined>();

/** The enclosing git work tree of a folder (a `.git` folder or file), if any. */
export function repoRootOf(dir: string): string | undefined {
  const start = resolve(dir);
  if (roots.has(start)) return roots.get(start);
  let d = start;
  let found: string | undefined;
  for (;;) {
    if (existsSync(resolve(d, '.git'))) {
      found = d;
      break;
    }
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  roots.set(start, found);
  return found;
}

/**
 * A path relative to the repository the current folder is in (or to the current folder outside
 * a repository), with `/` separators: what code scanning matches against the checked-out tree.
 */
export function repoRelative(path: string, cwd = process.cwd()): string {
  const base = repoRootOf(cwd) ?? resolve(cwd);
  return relative(base, resolve(cwd, path)).split(sep).join('/');
}

const byCodeUnits = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);

/**
 * Findings in a stable order: file, line, rule, resource, message. Field by field (the order of
 * the NUL-joined keys it replaces: no joined string per comparison, 60k findings made millions).
 */
export function sortFindings(list: CiFinding[]): CiFinding[] {
  return [...list].sort((a, b) => {
    const ra = a.resource ?? '';
    const rb = b.resource ?? '';
    return (
      byCodeUnits(a.file ?? '', b.file ?? '') ||
      (a.line ?? 0) - (b.line ?? 0) ||
      byCodeUnits(a.rule, b.rule) ||
      // a NUL in a name would have sorted as the joined key's separator
      (ra.includes('\u0000') || rb.includes('\u0000') ? byCodeUnits(`${ra}\u0000${a.message}`, `${rb}\u0000${b.message}`) : 0) ||
      byCodeUnits(ra, rb) ||
      byCodeUnits(a.message, b.message)
    );
  });
}
