/**
 * Findings as KRM results: a stable order, and lines counted in the file an item came from
 * (what the function and `baremetal-krm validate` both print).
 */
import { compareStrings, countLines, type KubeObject } from '../krm/index.js';
import type { Finding } from './analyse.js';
import { FieldLines } from './schema.js';

const SEVERITY_ORDER = { error: 0, warning: 1, info: 2 } as const;

/** Findings as KRM results, in a stable order (input order, then rule, then field). */
export function toResults(
  findings: Finding[],
  ctx: { results: { add(s: Finding['severity'], m: string, o: object): unknown } },
  order: Map<KubeObject, number>,
  /** filled with counts of work ('lines walked', 'items parsed for lines'): what tests count */
  work?: Map<string, number>,
): void {
  const sorted = [...findings].sort((a, b) => {
    const ia = a.object ? (order.get(a.object) ?? 1e9) : -1;
    const ib = b.object ? (order.get(b.object) ?? 1e9) : -1;
    return (
      ia - ib ||
      SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
      compareStrings(a.rule, b.rule) ||
      compareStrings(a.field ?? '', b.field ?? '') ||
      compareStrings(a.message, b.message)
    );
  });
  // an item's findings are next to each other: its lines are worked out once for all of them
  // (thousands of findings on one item stay linear), and not kept after its last one
  let current: { o: KubeObject; fields: FieldLines; inFile: (line: number) => number | undefined } | undefined;
  const linesOf = (o: KubeObject) => {
    if (current?.o !== o) {
      const fields = new FieldLines(o, work);
      current = { o, fields, inFile: fileLines(o, () => fields.body) };
    }
    return current;
  };
  for (const f of sorted) {
    let line = f.line;
    // from the item's text first; the YAML parser (KubeObject.lineOf) only when that cannot tell
    if (line === undefined && f.object && f.path) line = linesOf(f.object).fields.lineOf(f.path);
    if (line !== undefined && f.object) line = linesOf(f.object).inFile(line);
    ctx.results.add(f.severity, f.message, { object: f.object, field: f.field, rule: f.rule, line });
  }
}

/** Annotation lines kpt and kustomize add to an item; they are not in the file. */
const INJECTED = /^\s+['"]?(?:internal\.config\.kubernetes\.io\/[^'":]+|config\.kubernetes\.io\/(?:path|index)|config\.k8s\.io\/id)['"]?:/;

/**
 * A line in the input as a line in the item's file. Items read from files by kpt or kustomize
 * (with a config.kubernetes.io/path annotation) count from their document's start, less the
 * annotation lines the tool added; the first document of a file starts on line 1, a later one
 * at an offset the function cannot know, so its line is left out. Items without a path (a piped
 * stream, a bare ResourceList) keep their line in the input. Worked out once per item.
 */
function fileLines(o: KubeObject, bodyOf = () => o.body): (line: number) => number | undefined {
  const file = o.file();
  if (!file) return (line) => line;
  // the runtime read the file itself (--source): any document's lines are known (none when it
  // wrote the document anew); else only the first document's, from line 1
  const start = o.fileLine ?? 1;
  if (o.fileLine === null || (o.fileLine === undefined && (file.index ?? 0) !== 0)) return () => undefined;
  // the annotation lines the tool added (ascending), metadata's `annotations:` line, and whether it holds any of the file's own
  const injected: number[] = [];
  let annotationsAt = -1;
  let own = 0;
  // the lines of the top-level metadata: block only, to its end (another top-level mapping may
  // have an annotations: key of its own; the lines after metadata hold none of the tool's)
  const body = bodyOf();
  const meta = METADATA_LINE.exec(body);
  if (meta) {
    let at = meta.index + meta[0].length; // the end of the metadata: line
    let i = countLines(body, at);
    let inAnnotations = false;
    while (at < body.length) {
      at++; // past the line break: the next line
      i++;
      const nl = body.indexOf('\n', at);
      const stop = nl < 0 ? body.length : nl;
      const l = body.slice(at, stop);
      at = stop;
      if (TOP_LEVEL_KEY.test(l)) break; // metadata: ends
      if (/^ {2}annotations:\s*$/.test(l)) {
        annotationsAt = i;
        inAnnotations = true;
        continue;
      }
      if (!inAnnotations) continue;
      if (/^ {4}\S/.test(l)) {
        if (!INJECTED.test(l)) own++;
        else injected.push(i);
      } else if (!/^ {5}/.test(l)) inAnnotations = false;
    }
  }
  return (line) => {
    const rel = line - (o.sourceLine ?? 1); // 0-based in the item
    let skip = injectedBefore(injected, rel);
    // an annotations: key holding only what the tool added is not in the file either
    if (annotationsAt >= 0 && own === 0 && annotationsAt < rel) skip++;
    return rel - skip + start;
  };
}

/** The top-level `metadata:` line (to its end, before the line break). */
const METADATA_LINE = /(?:^|\n)metadata:[^\n]*/;

/** A line at column 0 that is not a comment: the next top-level key (or a document marker). */
const TOP_LEVEL_KEY = /^[^\s#]/;

/** How many of the ascending `lines` are before `rel` (binary search). */
function injectedBefore(lines: readonly number[], rel: number): number {
  let lo = 0;
  let hi = lines.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (lines[mid]! < rel) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
