/**
 * Where an item's fields are, from its parsed text: one walk of the `yaml` Document records the
 * offset of every key and sequence entry, and line starts turn offsets into lines by binary
 * search. Asking for many fields of one item (thousands of findings on one ConfigMap) then
 * costs one parse, not one parse and one scan of the text per field.
 */
import type { Document } from 'yaml';
import type { KubeObject, Path } from './kube-object.js';
import { yamlLib } from './lazy.js';
import { yamlDocument } from './yaml-read.js';

interface Place {
  /** offset of the key (or the entry) in the item's text */
  pos: number | undefined;
  /** whether the node there is a mapping or sequence (a path goes on only through one) */
  collection: boolean;
}

/** Path segments as one map key (a segment never holds NUL in a path a caller builds). */
function keyOf(parent: string, seg: string | number): string {
  return parent + '\u0000' + String(seg);
}

/** 0-based offsets of the starts of the text's lines. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** 1-based line of an offset. */
function lineAt(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

function places(doc: Document): Map<string, Place> {
  const Y = yamlLib();
  const out = new Map<string, Place>();
  const visit = (node: unknown, key: string, pos: number | undefined): void => {
    if (out.has(key)) return; // the first of duplicate keys, as a search from the start finds it
    out.set(key, { pos, collection: Y.isCollection(node) });
    if (Y.isMap(node)) {
      for (const pair of node.items) {
        if (!Y.isScalar(pair.key)) continue;
        visit(pair.value, keyOf(key, String(pair.key.value)), (pair.key as { range?: number[] }).range?.[0]);
      }
    } else if (Y.isSeq(node)) {
      node.items.forEach((item, i) => visit(item, keyOf(key, i), (item as { range?: number[] } | null)?.range?.[0]));
    }
  };
  visit(doc.contents, '', (doc.contents as { range?: number[] } | null)?.range?.[0]);
  return out;
}

/**
 * A lookup of field lines in `o` (1-based, in the item's source file when its first line is
 * known, else in its text): the line of the path's key or entry; for a path that goes past
 * what exists, the line of the deepest part that does; undefined when the path goes through a
 * scalar or the item does not parse. The item is parsed once, when the first field is asked.
 */
export function parsedFieldLines(o: KubeObject): (path: Path | string) => number | undefined {
  let index: { places: Map<string, Place>; starts: number[] } | null | undefined;
  return (path) => {
    if (index === undefined) {
      const body = o.body;
      try {
        index = { places: places(yamlDocument(body)), starts: lineStarts(body) };
      } catch {
        index = null;
      }
    }
    if (index === null) return undefined;
    const segs = typeof path === 'string' ? path.split('.').filter((p) => p !== '') : path;
    let key = '';
    let at = index.places.get(key);
    for (const seg of segs) {
      if (!at?.collection) return undefined;
      const next = index.places.get(keyOf(key, seg));
      if (!next) break;
      key = keyOf(key, seg);
      at = next;
    }
    if (at?.pos === undefined) return undefined;
    return (o.sourceLine ?? 1) + lineAt(index.starts, at.pos) - 1;
  };
}
