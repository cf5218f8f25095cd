/**
 * KRM function results (kpt's `results` field): message, severity, resourceRef, field, file
 * and tags. A stable rule id goes in `tags.rule` so that tools and tests can match on it.
 */
import { KrmError, type KubeObject, type ResourceRef } from './kube-object.js';

export type Severity = 'error' | 'warning' | 'info';

export interface Result {
  message: string;
  severity: Severity;
  resourceRef?: ResourceRef;
  field?: { path: string; currentValue?: unknown; proposedValue?: unknown };
  file?: { path: string; index?: number };
  tags?: Record<string, string>;
}

export interface ResultOptions {
  /** the item the result is about: fills resourceRef and file */
  object?: KubeObject;
  /** dotted field path, e.g. `spec.bmc.address` */
  field?: string;
  /** stable rule id, e.g. `references/bmc-secret` */
  rule?: string;
  /** extra tags */
  tags?: Record<string, string>;
  /** 1-based line in the file, when known */
  line?: number;
  /** the file the result is about, when there is no object (or its identity cannot be read) */
  file?: { path: string; index?: number };
}

/**
 * The item's resourceRef and file, or neither when it cannot be read as a KRM resource (a
 * result about such an item, e.g. a note of the reader on a document that is a plain string,
 * then names it in its message only).
 */
function placeOf(o: KubeObject): { ref?: ResourceRef; file?: { path: string; index?: number } } {
  try {
    return { ref: o.ref(), file: o.file() };
  } catch (e) {
    if (e instanceof KrmError) return {};
    throw e;
  }
}

export class Results {
  readonly list: Result[] = [];

  add(severity: Severity, message: string, opts: ResultOptions = {}): Result {
    const r: Result = { message, severity };
    if (opts.object) {
      const at = placeOf(opts.object);
      if (at.ref) r.resourceRef = at.ref;
      if (at.file) r.file = at.file;
    }
    if (opts.file && !r.file) r.file = opts.file;
    if (opts.field) r.field = { path: opts.field };
    const tags: Record<string, string> = { ...(opts.tags ?? {}) };
    if (opts.rule) tags.rule = opts.rule;
    if (opts.line !== undefined) tags.line = String(opts.line);
    if (Object.keys(tags).length > 0) r.tags = tags;
    this.list.push(r);
    return r;
  }
  error(message: string, opts?: ResultOptions): Result {
    return this.add('error', message, opts);
  }
  warning(message: string, opts?: ResultOptions): Result {
    return this.add('warning', message, opts);
  }
  info(message: string, opts?: ResultOptions): Result {
    return this.add('info', message, opts);
  }
  get hasErrors(): boolean {
    return this.list.some((r) => r.severity === 'error');
  }
  count(severity: Severity): number {
    return this.list.filter((r) => r.severity === severity).length;
  }
}

/** What one printed finding holds: where (file and line, when known), how bad, what, which rule. */
export interface FindingLine {
  file?: string;
  line?: number;
  severity: string;
  message: string;
  rule?: string;
}

/**
 * The one line format every command prints a finding in, the GNU/GCC form that CI problem
 * matchers read: `file:line: severity: message [rule]` (`file: ...` without a line, just
 * `severity: ...` without a file).
 */
export function formatLine(f: FindingLine): string {
  const where = f.file ? `${f.file}${f.line !== undefined ? `:${f.line}` : ''}: ` : '';
  const line = `${where}${f.severity}: ${f.message}${f.rule ? ` [${f.rule}]` : ''}`;
  return LINE_BREAKING.test(line) ? line.replace(LINE_BREAKING_ALL, escapeControl) : line;
}

/**
 * Characters that would end or redraw a line (a newline in a resource or file name): one finding
 * is one line, or a name could forge another (`::error file=...::` at the start of a line is a
 * GitHub workflow command; a problem matcher would read a second finding). Written escaped.
 */
const LINE_BREAKING = /[\u0000-\u0008\u000a-\u001f\u007f\u0085\u2028\u2029]/;
const LINE_BREAKING_ALL = new RegExp(LINE_BREAKING.source, 'g');
const escapeControl = (c: string): string =>
  c === '\n' ? '\\n' : c === '\r' ? '\\r' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** A result as one line for stderr: `file:line: error: Kind/name spec.x: message [rule]`. */
export function formatResult(r: Result): string {
  const where: string[] = [];
  const id = r.resourceRef
    ? `${r.resourceRef.kind}/${r.resourceRef.namespace ? r.resourceRef.namespace + '/' : ''}${r.resourceRef.name}`
    : '';
  // messages that already start with the object (or name the field) are not prefixed again
  if (id && !r.message.startsWith(id)) where.push(id);
  if (r.field && !r.message.includes(r.field.path)) where.push(r.field.path);
  const line = r.tags?.line !== undefined && /^\d+$/.test(r.tags.line) ? Number(r.tags.line) : undefined;
  return formatLine({
    file: r.file?.path,
    line: r.file ? line : undefined,
    severity: r.severity,
    message: `${where.length ? where.join(' ') + ': ' : ''}${r.message}`,
    rule: r.tags?.rule,
  });
}
