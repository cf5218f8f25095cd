/** Type guards for plain data read from items (`obj.data`, `obj.get(...)`). */

/** A YAML mapping as plain data: an object that is neither null nor an array. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A field path as messages write it: `spec.bmc.address`, `items[2].name`. */
export function dotted(path: readonly (string | number)[]): string {
  let s = '';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : (s ? '.' : '') + p;
  return s;
}

/** The value at a path in plain data, or undefined. */
export function dig(v: unknown, ...path: (string | number)[]): unknown {
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[p];
  }
  return v;
}

/** A scalar read as text: a string as it is, a number written out; anything else undefined. */
export function scalarText(v: unknown): string | undefined {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}

/** Like `scalarText`, but an empty string counts as absent. */
export function nonEmptyText(v: unknown): string | undefined {
  return typeof v === 'string' ? (v === '' ? undefined : v) : typeof v === 'number' ? String(v) : undefined;
}

/** Deep equality of plain data (maps compared by keys whatever their order, lists by position). */
export function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => sameData(x, bb[i]));
  }
  const ka = Object.keys(a);
  const bo = b as Record<string, unknown>;
  if (ka.length !== Object.keys(bo).length) return false;
  return ka.every((k) => Object.hasOwn(bo, k) && sameData((a as Record<string, unknown>)[k], bo[k]));
}

/** Words held once: apiVersions, kinds, namespaces (a few dozen values over 100k objects). */
const interned = new Map<string, string>();
/** Bounded: an input of unique words keeps its own copies past this many. */
const MAX_INTERNED = 4096;

/**
 * One copy of a short word that many objects repeat (`v1`, `Secret`, a namespace): every
 * object's header would otherwise hold its own copy (~30 bytes each, ~10 MiB at 100k objects).
 */
export function intern(word: string): string {
  const held = interned.get(word);
  if (held !== undefined) return held;
  if (word.length <= 64 && interned.size < MAX_INTERNED) interned.set(word, word);
  return word;
}

/**
 * Appends every item to `target`. `target.push(...items)` passes each item as an argument, and
 * V8 throws "Maximum call stack size exceeded" past ~120k of them (a file of 150k objects, a
 * BMC listing 200k members): lists whose length the input decides are appended with this.
 */
export function pushAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item);
  return target;
}
