/**
 * JSON input without parsing it whole: the members of the top-level object and the elements
 * of its `items` array as offsets, so that each item is parsed only when read and written back
 * as its own bytes (numbers such as `12345678901234567890123` or `1.0` stay as they are). One
 * iterative pass; nesting deeper than MAX_DEPTH is a positioned error, and the pass finds the
 * first key written twice in one object (JSON.parse keeps the last one silently).
 */
import { escapeNotPrintable } from './printable.js';
import { lineCol, MAX_DEPTH, YamlReadError } from './yaml-read.js';

interface JsonSpan {
  start: number;
  end: number;
}

interface JsonMember extends JsonSpan {
  key: string;
  /** start of the member (its key's quote) */
  keyStart: number;
}

export interface JsonObjectScan {
  members: JsonMember[];
  /** offset of the closing `}` */
  close: number;
  /** elements of the `items` array, when it is one */
  items?: JsonSpan[];
  /** the first key written twice in one object, anywhere in the text */
  duplicate?: DuplicateKey;
}

/** A key written twice in one object: where (offsets of the quotes), and the key as JSON.parse decodes it. */
export interface DuplicateKey {
  at: number;
  first: number;
  key: string;
  /** the element of `items` holding it, when one does */
  item?: number;
  /** the top-level member holding it, when one does (and it is not `items`) */
  member?: string;
}

/** Keys of one object past which they are looked up in a map, not compared one by one. */
const SMALL_OBJECT = 16;

/**
 * The keys of the objects open in a scan, one list per depth, to find a key written twice in
 * one object: JSON.parse keeps the last silently, so a function would check a value that
 * kubectl and kustomize (which refuse the input) never apply. Keys compare as JSON.parse
 * decodes them (`"kind"` and `"\u006bind"` are one key). A small object's keys are compared
 * as offsets in the text, character by character, with no string made (the scan of 100,000
 * items stays within a few per cent); an object with an escaped key, or past SMALL_OBJECT keys
 * (a ConfigMap with 10,000 keys stays linear), is looked up in a map of decoded keys. Only the
 * first duplicate is kept: the input is refused for it.
 */
class ObjectKeys {
  /** per depth: the quotes' offsets of the object's keys so far (start, end, start, end ...) */
  readonly #spans: number[][] = [];
  /** per depth: the decoded keys, once the object is looked up by map */
  readonly #maps: (Map<string, number> | undefined)[] = [];
  duplicate: DuplicateKey | undefined;

  /** An object opens at `depth`: the list of that depth is reused, not made anew. */
  open(depth: number): void {
    const spans = this.#spans[depth];
    if (spans === undefined) this.#spans[depth] = [];
    else spans.length = 0;
    this.#maps[depth] = undefined;
  }

  /** The key spelled at [start, end) (quotes included) in the object open at `depth`. */
  add(text: string, start: number, end: number, depth: number): void {
    if (this.duplicate) return;
    const spans = this.#spans[depth]!;
    let map = this.#maps[depth];
    if (map === undefined && (spans.length >= 2 * SMALL_OBJECT || hasEscape(text, start, end))) {
      map = new Map();
      for (let j = 0; j < spans.length; j += 2) map.set(keyText(text, spans[j]!, spans[j + 1]!), spans[j]!);
      this.#maps[depth] = map;
    }
    if (map !== undefined) {
      const name = keyText(text, start, end);
      const first = map.get(name);
      if (first === undefined) map.set(name, start);
      else this.duplicate = { at: start, first, key: name };
      return;
    }
    const length = end - start;
    for (let j = 0; j < spans.length; j += 2) {
      const other = spans[j]!;
      if (spans[j + 1]! - other === length && sameText(text, other, start, length)) {
        this.duplicate = { at: start, first: other, key: keyText(text, start, end) };
        return;
      }
    }
    spans.push(start, end);
  }
}

/** A key as JSON.parse decodes it, from its quoted text. */
function keyText(text: string, start: number, end: number): string {
  const raw = text.slice(start + 1, end - 1);
  return raw.indexOf('\\') < 0 ? raw : (JSON.parse(text.slice(start, end)) as string);
}

/** Whether the text in [start, end) holds a backslash (an indexOf would search past `end`, to the end of the input). */
function hasEscape(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (text.charCodeAt(i) === 92) return true;
  return false;
}

/** Whether the text at `a` and at `b` is the same for `length` characters. */
function sameText(text: string, a: number, b: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (text.charCodeAt(a + i) !== text.charCodeAt(b + i)) return false;
  return true;
}

class NotJson extends Error {}
const NOT_JSON = new NotJson();

/** The end of the JSON white space at `i` (space, LF, CR, tab). */
export function ws(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 10 || c === 13 || c === 9) i++;
    else return i;
  }
}

function stringEnd(text: string, i: number): number {
  for (let k = i + 1; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === 92) k++;
    else if (c === 34) return k + 1;
    else if (c < 32) throw NOT_JSON;
  }
  throw NOT_JSON;
}

/** End of the value starting at `i` (depth = nesting of the value's container); its objects' keys go to `keys`. */
function valueEnd(text: string, i: number, depth: number, keys: ObjectKeys): number {
  const c = text.charCodeAt(i);
  if (c === 34) return stringEnd(text, i);
  if (c !== 123 && c !== 91) {
    let k = i;
    while (k < text.length && !/[\s,}\]]/.test(text[k]!)) k++;
    if (k === i) throw NOT_JSON;
    return k;
  }
  let d = 0;
  for (let k = i; k < text.length; k++) {
    const x = text.charCodeAt(k);
    if (x === 34) {
      const e = stringEnd(text, k);
      // a string followed by a colon is a key (of the object open at d, in JSON that parses)
      if (text.charCodeAt(ws(text, e)) === 58) keys.add(text, k, e, d);
      k = e - 1;
    } else if (x === 123 || x === 91) {
      d++;
      if (depth + d > MAX_DEPTH) {
        const { line, col } = lineCol(text, k);
        throw new YamlReadError(`nesting deeper than ${MAX_DEPTH} levels is not accepted`, line, col, 'DEPTH');
      }
      if (x === 123) keys.open(d);
    } else if (x === 125 || x === 93) {
      d--;
      if (d === 0) return k + 1;
    }
  }
  throw NOT_JSON;
}

/** The elements of the array opening at `open` (depth = nesting of its elements' container), and the end of the array. */
function arrayEnd(text: string, open: number, depth: number, keys: ObjectKeys): { elements: JsonSpan[]; end: number } {
  const elements: JsonSpan[] = [];
  let i = ws(text, open + 1);
  if (text.charCodeAt(i) === 93) return { elements, end: i + 1 };
  for (;;) {
    const e = valueEnd(text, i, depth, keys);
    if (keys.duplicate && keys.duplicate.item === undefined && keys.duplicate.at >= i) keys.duplicate.item = elements.length;
    elements.push({ start: i, end: e });
    i = ws(text, e);
    const c = text.charCodeAt(i);
    if (c === 93) return { elements, end: i + 1 };
    if (c !== 44) throw NOT_JSON;
    i = ws(text, i + 1);
  }
}

/**
 * The top-level object of a JSON text: its members and, when `items` is an array, its
 * elements. `undefined` when the text is not a JSON object (a YAML flow mapping, say).
 * Throws YamlReadError when the JSON nests deeper than MAX_DEPTH.
 */
export function scanJsonObject(text: string): JsonObjectScan | undefined {
  try {
    let i = ws(text, text.charCodeAt(0) === 0xfeff ? 1 : 0);
    if (text.charCodeAt(i) !== 123) return undefined;
    const members: JsonMember[] = [];
    let items: JsonSpan[] | undefined;
    const keys = new ObjectKeys();
    keys.open(0);
    i = ws(text, i + 1);
    if (text.charCodeAt(i) !== 125) {
      for (;;) {
        if (text.charCodeAt(i) !== 34) throw NOT_JSON;
        const keyStart = i;
        const keyEnd = stringEnd(text, i);
        const key = JSON.parse(text.slice(i, keyEnd)) as string;
        keys.add(text, keyStart, keyEnd, 0);
        i = ws(text, keyEnd);
        if (text.charCodeAt(i) !== 58) throw NOT_JSON;
        const start = ws(text, i + 1);
        if (key === 'items' && text.charCodeAt(start) === 91) {
          // the elements are the array's values: walked once, as elements (valueEnd would walk them all again)
          const array = arrayEnd(text, start, 2, keys);
          items = array.elements;
          members.push({ key, keyStart, start, end: array.end });
          i = ws(text, array.end);
        } else {
          const end = valueEnd(text, start, 1, keys);
          if (keys.duplicate && keys.duplicate.member === undefined && keys.duplicate.at >= start) keys.duplicate.member = key;
          members.push({ key, keyStart, start, end });
          i = ws(text, end);
        }
        if (text.charCodeAt(i) === 125) break;
        if (text.charCodeAt(i) !== 44) throw NOT_JSON;
        i = ws(text, i + 1);
      }
    }
    const close = i;
    if (ws(text, close + 1) !== text.length) return undefined;
    return { members, close, items, duplicate: keys.duplicate };
  } catch (e) {
    if (e instanceof NotJson || e instanceof SyntaxError) return undefined;
    throw e;
  }
}

/** The value of a member as plain data (for small members: kind, apiVersion, functionConfig). */
export function memberValue(text: string, scan: JsonObjectScan, key: string): unknown {
  const m = scan.members.find((x) => x.key === key);
  return m ? JSON.parse(text.slice(m.start, m.end)) : undefined;
}

// ---------- numbers as written ----------

/**
 * Numbers of a JSON text that JavaScript cannot write back as they were written (`1.0`,
 * `12345678901234567890123`, `1e3`), by path (JSON of the path array).
 */
export function writtenNumbers(text: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!/[0-9][.eE]|[0-9]{16}|-0/.test(text)) return out;
  const path: (string | number)[] = [];
  const stack: ('o' | 'a')[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '{' || c === '[') {
      stack.push(c === '{' ? 'o' : 'a');
      path.push(c === '[' ? 0 : '');
      expectKey = c === '{';
    } else if (c === '}' || c === ']') {
      stack.pop();
      path.pop();
    } else if (c === ',') {
      const top = path.length - 1;
      if (stack[stack.length - 1] === 'a') path[top] = (path[top] as number) + 1;
      else expectKey = true;
    } else if (c === '"') {
      const e = stringEnd(text, i);
      if (expectKey) {
        path[path.length - 1] = JSON.parse(text.slice(i, e)) as string;
        expectKey = false;
      }
      i = e - 1;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      let e = i;
      while (e < text.length && /[-+.eE0-9]/.test(text[e]!)) e++;
      const src = text.slice(i, e);
      if (String(Number(src)) !== src) out.set(JSON.stringify(path), src);
      i = e - 1;
    }
  }
  return out;
}

/** JSON of `value` (2-space indented from `indent`), numbers from `written` kept as written when unchanged, characters YAML does not allow escaped. */
export function stringifyJson(value: unknown, written: Map<string, string>, indent = ''): string {
  const path: (string | number)[] = [];
  const write = (v: unknown, ind: string): string => {
    if (typeof v === 'number' && written.size) {
      const src = written.get(JSON.stringify(path));
      if (src !== undefined && Number(src) === v) return src;
    }
    if (v === null || typeof v !== 'object') return escapeNotPrintable(JSON.stringify(v) ?? 'null');
    const inner = ind + '  ';
    if (Array.isArray(v)) {
      if (v.length === 0) return '[]';
      const parts = v.map((x, i) => {
        path.push(i);
        const s = inner + write(x, inner);
        path.pop();
        return s;
      });
      return `[\n${parts.join(',\n')}\n${ind}]`;
    }
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    if (entries.length === 0) return '{}';
    const parts = entries.map(([k, x]) => {
      path.push(k);
      const s = `${inner}${escapeNotPrintable(JSON.stringify(k))}: ${write(x, inner)}`;
      path.pop();
      return s;
    });
    return `{\n${parts.join(',\n')}\n${ind}}`;
  };
  return write(value, indent);
}
