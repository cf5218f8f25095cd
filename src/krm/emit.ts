/**
 * A small block-YAML writer for plain data (results, reports): strings are written plain
 * when no YAML reader could take them for anything else, else as JSON strings (valid YAML
 * double-quoted scalars, characters YAML does not allow escaped). It saves loading the `yaml` package just to write results.
 */
import { printableQuoted } from './printable.js';
import { isYaml11Word, wordsPattern, YAML11_FALSE, YAML11_NULL, YAML11_TRUE } from './yaml11.js';

// YAML 1.1 words for booleans and null, and `e0`/`E+5`, which the yaml package's 1.1 float reads as numbers
const AMBIGUOUS = new RegExp(`^(?:${wordsPattern([...YAML11_TRUE, ...YAML11_FALSE, ...YAML11_NULL])}|[eE][-+]?[0-9].*)$`);

function safePlain(s: string): boolean {
  return /^[A-Za-z_/][A-Za-z0-9_ ./()-]*$/.test(s) && !s.endsWith(' ') && !AMBIGUOUS.test(s);
}

function key(k: string): string {
  return /^[A-Za-z_][A-Za-z0-9_./-]*$/.test(k) && !AMBIGUOUS.test(k) ? k : printableQuoted(k);
}

function scalar(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return safePlain(v) ? v : printableQuoted(v);
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : JSON.stringify(String(v));
  if (typeof v === 'boolean') return String(v);
  return printableQuoted(String(v));
}

function isCollection(v: unknown): v is Record<string, unknown> | unknown[] {
  return v !== null && typeof v === 'object' && !(v instanceof Date);
}

/** Block YAML for `value` (an object or array), each line prefixed by `indent`. */
export function plainYaml(value: unknown, indent = ''): string {
  const out: string[] = [];
  writePlain(value, indent, out);
  return out.join('');
}

/**
 * Appends the lines of `value` to `out`, each prefixed by `indent`, the first by `first` instead
 * (`- ` for a collection in a list: its first line goes on the dash's line). Pieces into one
 * array, joined once: results are written by the thousand, and nested concatenations that were
 * sliced (a rope flattened at every level) cost more memory than the output.
 */
function writePlain(value: unknown, indent: string, out: string[], first = indent): void {
  let lead = first;
  if (Array.isArray(value)) {
    if (value.length === 0) {
      out.push(lead, '[]\n');
      return;
    }
    for (const item of value) {
      if (isCollection(item) && (Array.isArray(item) ? item.length : Object.keys(item).length))
        writePlain(item, indent + '  ', out, lead + '- ');
      else out.push(lead, '- ', isCollection(item) ? (Array.isArray(item) ? '[]' : '{}') : scalar(item), '\n');
      lead = indent;
    }
    return;
  }
  if (isCollection(value)) {
    const map = value as Record<string, unknown>;
    let empty = true;
    for (const k in map) {
      if (!Object.hasOwn(map, k)) continue;
      const v = map[k];
      if (v === undefined) continue;
      empty = false;
      if (isCollection(v) && (Array.isArray(v) ? v.length : Object.keys(v).length)) {
        // kyaml's compact style: a sequence under a key sits at the key's indentation
        out.push(lead, key(k), ':\n');
        writePlain(v, Array.isArray(v) ? indent : indent + '  ', out);
      } else out.push(lead, key(k), ': ', isCollection(v) ? (Array.isArray(v) ? '[]' : '{}') : scalar(v), '\n');
      lead = indent;
    }
    if (empty) out.push(lead, '{}\n');
    return;
  }
  out.push(lead, scalar(value), '\n');
}

/**
 * The block YAML of a list, one piece per item, made as the pieces are asked for: joined, the
 * pieces are `plainYaml(values)`. A run's results are written this way, so that 60k results
 * never exist as one string (nor as the tree of concatenations that builds it).
 */
export function* plainYamlItems(values: readonly unknown[]): Generator<string> {
  for (const v of values) yield plainYaml([v]);
}

// ---------------------------------------------------------------------------------------------
// A fast path for new items: `emitLikeYaml(v)` writes exactly what `yaml.stringify(v,
// EMIT_OPTIONS)` writes (kyaml layout, YAML 1.1 quoting, no folding) for the common case —
// maps, sequences of scalars or maps, printable one-line ASCII strings, safe integers,
// booleans, null — and returns `undefined` for anything else, so the caller uses `yaml`. The
// property tests hold the two to the same bytes. Writing 1,000 inventories drops from ~350 ms
// to a few ms.

/** Every default tag test of the `yaml` package's yaml-1.1 schema other than str (stringify checks them). */
const YAML11_NON_STRING: { test(s: string): boolean }[] = [
  { test: (s: string): boolean => isYaml11Word(s) },
  /^[-+]?0b[0-1_]+$/,
  /^[-+]?0[0-7_]+$/,
  /^[-+]?[0-9][0-9_]*$/,
  /^[-+]?0x[0-9a-fA-F_]+$/,
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
  /^[-+]?(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?[eE][-+]?[0-9]+$/,
  /^[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*$/,
  /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+$/,
  /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*$/,
  /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:t|T|[ \t]+)([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2}(\.[0-9]+)?)(?:[ \t]*(Z|[-+][012]?[0-9](?::[0-9]{2})?))?)?$/,
];

/** yaml's plainString refusals (stringifyString.js), for one-line strings in block context. */
const NOT_PLAIN = /^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/;

class Fallback extends Error {}
const FALLBACK = new Fallback();

/**
 * Whether a YAML 1.1 reader could take `s` for something other than a string. Only a word
 * (`yes`, `null` ...) or text starting with `-+.0-9eE` can match a number, timestamp or
 * base-60 pattern: anything else is asked only about the words.
 */
function nonString(s: string): boolean {
  const c = s.charCodeAt(0);
  const numberLike = (c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46 || c === 101 || c === 69;
  return numberLike ? YAML11_NON_STRING.some((re) => re.test(s)) : isYaml11Word(s);
}

/** How strings were written (keys and values repeat from item to item), up to a bound. */
const written = new Map<string, string>();

function fastString(s: string): string {
  const known = written.get(s);
  if (known !== undefined) return known;
  // printable ASCII, one line: anything else (block literals, escapes) is yaml's to write
  if (!/^[\x20-\x7e]*$/.test(s)) throw FALLBACK;
  if (/^(?:%|---|\.\.\.)/.test(s)) throw FALLBACK; // document markers: yaml's rules depend on the indentation
  const plain = s !== '' && !NOT_PLAIN.test(s) && !nonString(s);
  // quotedString: double quotes unless the string holds a double quote and no single one
  if (!plain && (s.includes('"') || s.includes('\\'))) throw FALLBACK;
  const out = plain ? s : `"${s}"`;
  if (written.size < 8192 && s.length <= 256) written.set(s, out);
  return out;
}

function fastScalar(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return fastString(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number' && Number.isSafeInteger(v) && !Object.is(v, -0)) return String(v);
  throw FALLBACK;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

function fastMap(m: Record<string, unknown>, ind: string, out: string[], first?: string): void {
  let lead = first;
  for (const [k, v] of Object.entries(m)) {
    if (v === undefined || k.length > 1024) throw FALLBACK; // yaml writes long keys as `? key`
    const key = fastString(k);
    const prefix = lead ?? ind;
    lead = undefined;
    if (Array.isArray(v)) {
      if (v.length === 0) out.push(`${prefix}${key}: []\n`);
      else {
        out.push(`${prefix}${key}:\n`);
        fastSeq(v, ind, out);
      }
    } else if (isPlainObject(v)) {
      if (Object.keys(v).length === 0) out.push(`${prefix}${key}: {}\n`);
      else {
        out.push(`${prefix}${key}:\n`);
        fastMap(v, ind + '  ', out);
      }
    } else if (v !== null && typeof v === 'object') throw FALLBACK;
    else out.push(`${prefix}${key}: ${fastScalar(v)}\n`);
  }
}

function fastSeq(a: unknown[], ind: string, out: string[]): void {
  for (const v of a) {
    if (Array.isArray(v)) throw FALLBACK; // "- - x": yaml's to write
    if (isPlainObject(v)) {
      if (Object.keys(v).length === 0) out.push(`${ind}- {}\n`);
      else fastMap(v, ind + '  ', out, `${ind}- `);
    } else if (v !== null && typeof v === 'object') throw FALLBACK;
    else if (v === undefined) throw FALLBACK;
    else out.push(`${ind}- ${fastScalar(v)}\n`);
  }
}

/** `yaml.stringify(value, EMIT_OPTIONS)` for plain data, or `undefined` when unsure. */
export function emitLikeYaml(value: unknown): string | undefined {
  if (!isPlainObject(value) || Object.keys(value).length === 0) return undefined;
  const out: string[] = [];
  try {
    fastMap(value, '', out);
  } catch (e) {
    if (e instanceof Fallback) return undefined;
    throw e;
  }
  return out.join('');
}
