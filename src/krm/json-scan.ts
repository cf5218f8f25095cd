/**
 * JSON input without parsing it whole: the members of the top-level object and the elements
 * of its `items` array as offsets, so that each item is parsed only when read and written back
 * as its own bytes (numbers such as `12345678901234567890123` or `1.0` stay as they are). One
 * iterative pass; nesting deeper than MAX_DEPTH is a positioned error.
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
}

class NotJson extends Error {}
const NOT_JSON = new NotJson();

function ws(text: string, i: number): number {
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

/** End of the value starting at `i` (depth = nesting of the value's container). */
function valueEnd(text: string, i: number, depth: number): number {
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
    if (x === 34) k = stringEnd(text, k) - 1;
    else if (x === 123 || x === 91) {
      d++;
      if (depth + d > MAX_DEPTH) {
        const { line, col } = lineCol(text, k);
        throw new YamlReadError(`nesting deeper than ${MAX_DEPTH} levels is not accepted`, line, col, 'DEPTH');
      }
    } else if (x === 125 || x === 93) {
      d--;
      if (d === 0) return k + 1;
    }
  }
  throw NOT_JSON;
}

function arrayElements(text: string, open: number, end: number, depth: number): JsonSpan[] {
  const out: JsonSpan[] = [];
  let i = ws(text, open + 1);
  if (text.charCodeAt(i) === 93) return out;
  for (;;) {
    const e = valueEnd(text, i, depth);
    out.push({ start: i, end: e });
    i = ws(text, e);
    const c = text.charCodeAt(i);
    if (c === 93) {
      if (i !== end - 1) throw NOT_JSON;
      return out;
    }
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
    i = ws(text, i + 1);
    if (text.charCodeAt(i) !== 125) {
      for (;;) {
        if (text.charCodeAt(i) !== 34) throw NOT_JSON;
        const keyStart = i;
        const keyEnd = stringEnd(text, i);
        const key = JSON.parse(text.slice(i, keyEnd)) as string;
        i = ws(text, keyEnd);
        if (text.charCodeAt(i) !== 58) throw NOT_JSON;
        const start = ws(text, i + 1);
        const end = valueEnd(text, start, 1);
        members.push({ key, keyStart, start, end });
        if (key === 'items' && text.charCodeAt(start) === 91) items = arrayElements(text, start, end, 2);
        i = ws(text, end);
        if (text.charCodeAt(i) === 125) break;
        if (text.charCodeAt(i) !== 44) throw NOT_JSON;
        i = ws(text, i + 1);
      }
    }
    const close = i;
    if (ws(text, close + 1) !== text.length) return undefined;
    return { members, close, items };
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
