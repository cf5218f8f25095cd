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
  // the annotation lines the tool added (ascending), the last `annotations:` line, and whether it holds any of the file's own
  const injected: number[] = [];
  let annotationsAt = -1;
  let inAnnotations = false;
  let own = 0;
  // the lines from the first `annotations:` on (the lines above it hold none)
  const body = bodyOf();
  const found = ANNOTATIONS_LINE.exec(body);
  const from = found ? found.index + found[0].length : -1;
  const lines = from < 0 ? [] : body.slice(from).split('\n');
  const before = from < 0 ? 0 : countLines(body, from);
  for (let j = 0; j < lines.length; j++) {
    const l = lines[j]!;
    const i = before + j;
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
  return (line) => {
    const rel = line - (o.sourceLine ?? 1); // 0-based in the item
    let skip = injectedBefore(injected, rel);
    // an annotations: key holding only what the tool added is not in the file either
    if (annotationsAt >= 0 && own === 0 && annotationsAt < rel) skip++;
    return rel - skip + start;
  };
}

/** Up to the start of a line `  annotations:...` (the loop below decides whether it is metadata's). */
const ANNOTATIONS_LINE = /(?:^|\n)(?= {2}annotations:)/;

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
