/**
 * Findings as KRM results: a stable order, and lines counted in the file an item came from
 * (what the function and `baremetal-krm validate` both print).
 */
import { compareStrings, type KubeObject } from '../krm/index.js';
import type { Finding } from './analyse.js';
import { lineOfPath } from './schema.js';

const SEVERITY_ORDER = { error: 0, warning: 1, info: 2 } as const;

/** Findings as KRM results, in a stable order (input order, then rule, then field). */
export function toResults(
  findings: Finding[],
  ctx: { results: { add(s: Finding['severity'], m: string, o: object): unknown } },
  order: Map<KubeObject, number>,
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
  // an item's findings are next to each other: its text is made once for them, and not kept after
  let textOf: { o: KubeObject; text: string } | undefined;
  const text = (o: KubeObject): string => {
    if (textOf?.o !== o) textOf = { o, text: o.body };
    return textOf.text;
  };
  for (const f of sorted) {
    let line = f.line;
    if (line === undefined && f.object && f.path) {
      // from the item's text first; the YAML parser (KubeObject.lineOf) only when that cannot tell
      line = lineOfPath(f.object, f.path, text(f.object));
      if (line === undefined)
        try {
          line = f.object.lineOf(f.path as (string | number)[]);
        } catch {
          line = undefined;
        }
    }
    if (line !== undefined && f.object) line = fileLine(f.object, line, text);
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
 * stream, a bare ResourceList) keep their line in the input.
 */
function fileLine(o: KubeObject, line: number, text: (o: KubeObject) => string): number | undefined {
  const file = o.file();
  if (!file) return line;
  if ((file.index ?? 0) !== 0) return undefined;
  const lines = text(o).split('\n');
  const rel = line - (o.sourceLine ?? 1); // 0-based in the item
  let skip = 0;
  let annotationsAt = -1;
  let inAnnotations = false;
  let own = 0;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (/^ {2}annotations:\s*$/.test(l)) {
      annotationsAt = i;
      inAnnotations = true;
      continue;
    }
    if (!inAnnotations) continue;
    if (/^ {4}\S/.test(l)) {
      if (!INJECTED.test(l)) own++;
      else if (i < rel) skip++;
    } else if (!/^ {5}/.test(l)) inAnnotations = false;
  }
  // an annotations: key holding only what the tool added is not in the file either
  if (annotationsAt >= 0 && own === 0 && annotationsAt < rel) skip++;
  return rel - skip + 1;
}
