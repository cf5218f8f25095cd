/**
 * Sprig's `toYaml` (sigs.k8s.io/yaml: JSON, then Go yaml.v2) for plain data, as the airshipctl
 * host generator template uses it: keys in yaml.v2 order, block sequences not indented inside
 * mappings, yaml.v2's scalar styles (plain; double quotes when the text would resolve to another
 * type; single quotes when plain is not allowed; `|-` blocks for multi-line text). No trailing
 * newline, like sprig (which trims it).
 *
 * Not reproduced: yaml.v2 folds plain and quoted scalars with spaces past column 80 onto the next
 * line (the values of a networkData catalogue are short).
 */
import { isRecord as isMap, YAML11_FALSE, YAML11_NULL, YAML11_SPECIAL_FLOAT, YAML11_TRUE } from '../../src/krm/index.js';

// --- yaml.v2 resolve.go: which plain texts resolve to something other than a string ---------

const RESOLVE_MAP: ReadonlySet<string> = new Set([...YAML11_TRUE, ...YAML11_FALSE, ...YAML11_NULL, ...YAML11_SPECIAL_FLOAT, '<<']);
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
const MAX_U64 = (1n << 64n) - 1n;

/** Go strconv.ParseInt/ParseUint with base 0 (sign, 0x, 0o, 0b, leading-0 octal), within 64 bits. */
function goInt(s: string): boolean {
  const m = /^([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (!m) return false;
  const body = m[2]!;
  let v: bigint;
  if (/^0[oO]/.test(body)) v = BigInt('0o' + body.slice(2));
  else if (/^0[0-7]+$/.test(body)) v = BigInt('0o' + body.slice(1));
  else v = BigInt(body.toLowerCase());
  return m[1] === '-' ? v <= 1n << 63n : v <= MAX_U64;
}

/** Go time.Parse of the yaml.v2 timestamp formats (2006-1-2, with an optional time). */
function goTimestamp(s: string): boolean {
  const m =
    /^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}))|(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?))?$/.exec(
      s,
    );
  if (!m) return false;
  const [mo, d] = [Number(m[2]), Number(m[3])];
  const h = Number(m[4] ?? m[7] ?? 0),
    mi = Number(m[5] ?? m[8] ?? 0),
    se = Number(m[6] ?? m[9] ?? 0);
  const days = new Date(Date.UTC(Number(m[1]), mo, 0)).getUTCDate();
  return mo >= 1 && mo <= 12 && d >= 1 && d <= days && h < 24 && mi < 60 && se < 60;
}

/** yaml.v2 encoder: a string may be written plain only when it resolves to a string again. */
function resolvesToString(s: string): boolean {
  if (s === '') return false;
  const c = s[0]!;
  const hint = /[0-9]/.test(c) ? 'D' : c === '+' || c === '-' ? 'S' : /[yYnNtTfFoO~<]/.test(c) ? 'M' : c === '.' ? '.' : '';
  if (BASE60_FLOAT.test(s)) return false;
  if (!hint) return true;
  if (RESOLVE_MAP.has(s)) return false;
  if (hint === '.') return !/^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(s);
  if (hint === 'D' || hint === 'S') {
    if (goTimestamp(s)) return false;
    const plain = s.replace(/_/g, '');
    if (goInt(plain) || YAML_STYLE_FLOAT.test(plain)) return false;
    if (/^-?0b[01]+$/.test(plain)) return false;
  }
  return true;
}

// --- yaml.v2 emitterc.go: analyze_scalar and select_scalar_style -----------------------------

const isBreak = (c: number) => c === 0x0a || c === 0x0d || c === 0x85 || c === 0x2028 || c === 0x2029;
const isPrintable = (c: number) =>
  c === 0x0a ||
  (c >= 0x20 && c <= 0x7e) ||
  c === 0x85 ||
  (c >= 0xa0 && c <= 0xd7ff) ||
  (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff) ||
  (c >= 0x10000 && c <= 0x10ffff);

interface Analysis {
  multiline: boolean;
  blockPlain: boolean;
  singleQuoted: boolean;
  block: boolean;
}

function analyze(s: string): Analysis {
  if (s === '') return { multiline: false, blockPlain: true, singleQuoted: true, block: false };
  const cs = Array.from(s, (ch) => ch.codePointAt(0)!);
  let blockIndicators = s.startsWith('---') || s.startsWith('...');
  let lineBreaks = false,
    special = false,
    leadingSpace = false,
    leadingBreak = false,
    trailingSpace = false,
    trailingBreak = false;
  let breakSpace = false,
    spaceBreak = false,
    previousSpace = false,
    previousBreak = false,
    precededByWs = true;
  for (let i = 0; i < cs.length; i++) {
    const c = cs[i]!;
    const next = cs[i + 1];
    const followedByWs = next === undefined || next === 0x20 || next === 0x09;
    const ch = String.fromCodePoint(c);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(ch)) blockIndicators = true;
      else if ((ch === '?' || ch === ':' || ch === '-') && followedByWs) blockIndicators = true;
    } else if ((ch === ':' && followedByWs) || (ch === '#' && precededByWs)) blockIndicators = true;
    if (!isPrintable(c)) special = true;
    if (c === 0x20) {
      if (i === 0) leadingSpace = true;
      if (i === cs.length - 1) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(c)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i === cs.length - 1) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWs = c === 0x20 || c === 0x09 || isBreak(c) || c === 0;
  }
  const a: Analysis = { multiline: lineBreaks, blockPlain: true, singleQuoted: true, block: true };
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) a.blockPlain = false;
  if (trailingSpace) a.block = false;
  if (breakSpace) a.blockPlain = a.singleQuoted = false;
  if (spaceBreak || special) a.blockPlain = a.singleQuoted = a.block = false;
  if (lineBreaks) a.blockPlain = false;
  if (blockIndicators) a.blockPlain = false;
  return a;
}

const ESCAPES: Record<number, string> = {
  0x00: '0',
  0x07: 'a',
  0x08: 'b',
  0x09: 't',
  0x0a: 'n',
  0x0b: 'v',
  0x0c: 'f',
  0x0d: 'r',
  0x1b: 'e',
  0x22: '"',
  0x5c: '\\',
  0x85: 'N',
  0x2028: 'L',
  0x2029: 'P',
};

function doubleQuoted(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (!isPrintable(c) || c === 0xfeff || isBreak(c) || c === 0x22 || c === 0x5c) {
      const e = ESCAPES[c];
      if (e !== undefined) out += '\\' + e;
      else if (c <= 0xff) out += '\\x' + c.toString(16).toUpperCase().padStart(2, '0');
      else if (c <= 0xffff) out += '\\u' + c.toString(16).toUpperCase().padStart(4, '0');
      else out += '\\U' + c.toString(16).toUpperCase().padStart(8, '0');
    } else out += ch;
  }
  return out + '"';
}

/** A literal block (`|-`, `|`, `|+`, with an indentation hint when the text starts with a space or break): header line, then content lines indented by 2. */
function literal(s: string): string[] {
  const cs = Array.from(s, (ch) => ch.codePointAt(0)!);
  let header = '|';
  if (cs[0] === 0x20 || isBreak(cs[0]!)) header += '2';
  const last = cs[cs.length - 1]!;
  if (!isBreak(last)) header += '-';
  else if (cs.length === 1 || isBreak(cs[cs.length - 2]!)) header += '+';
  const body = isBreak(last) ? s.slice(0, -1) : s;
  return [header, ...body.split('\n').map((l) => (l === '' ? '' : '  ' + l))];
}

/** A Go float64 as strconv.FormatFloat(f, 'g', -1, 64) writes it. */
function goFloat(v: number): string {
  if (Number.isNaN(v)) return '.NaN';
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf';
  const [mant, expText] = v.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  // shortest form: exponent notation below 1e-4 and from 1e6 (integers never get here below 2^63)
  if (exp < -4 || exp >= 6) return `${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(v);
}

/** One scalar as yaml.v2 writes it; a literal block comes back as several lines. `key`: a mapping key (simple-key context). */
function scalarLines(v: unknown, key = false): string[] {
  if (v === null || v === undefined) return ['null'];
  if (typeof v === 'boolean') return [v ? 'true' : 'false'];
  // JSON integers come back as Go ints; other numbers as float64 ('g' format)
  if (typeof v === 'number') return [Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? String(v) : goFloat(v)];
  const s = String(v);
  const a = analyze(s);
  // a carriage return or a Unicode line break: yaml.v2 writes it raw inside quotes or blocks; written escaped here
  if (!resolvesToString(s) || /[\r\u0085\u2028\u2029]/.test(s)) return [doubleQuoted(s)];
  if (s.includes('\n')) return !a.block || key ? [doubleQuoted(s)] : literal(s);
  if (a.blockPlain && !(s === '' && key)) return [s];
  if (a.singleQuoted && !(key && a.multiline)) return [`'${s.replace(/'/g, "''")}'`];
  return [doubleQuoted(s)];
}

/** A scalar on one line (keys, and values that are never multi-line). */
export function goScalar(v: unknown): string {
  return scalarLines(v, true)[0]!;
}

// --- yaml.v2 sorter.go: the order of map keys ------------------------------------------------

const isLetter = (ch: string) => /\p{L}/u.test(ch);
const isDigit = (ch: string) => /\p{Nd}/u.test(ch);

/** yaml.v2 keyList.Less for string keys: runs of digits compare as numbers, non-letters before letters. */
function goKeyLess(a: string, b: string): boolean {
  const ar = Array.from(a);
  const br = Array.from(b);
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = isLetter(ar[i]!);
    const bl = isLetter(br[i]!);
    if (al && bl) return ar[i]!.codePointAt(0)! < br[i]!.codePointAt(0)!;
    if (al || bl) return bl;
    let an = 0;
    let bn = 0;
    if (ar[i] === '0' || br[i] === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]!); j--) {
        if (ar[j] !== '0') {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    let ai = i;
    let bi = i;
    for (; ai < ar.length && isDigit(ar[ai]!); ai++) an = an * 10 + (ar[ai]!.codePointAt(0)! - 48);
    for (; bi < br.length && isDigit(br[bi]!); bi++) bn = bn * 10 + (br[bi]!.codePointAt(0)! - 48);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ar[i]!.codePointAt(0)! < br[i]!.codePointAt(0)!;
  }
  return ar.length < br.length;
}

export function goKeyOrder(keys: string[]): string[] {
  return [...keys].sort((x, y) => (goKeyLess(x, y) ? -1 : goKeyLess(y, x) ? 1 : 0));
}

function lines(v: unknown): string[] {
  if (Array.isArray(v)) {
    if (v.length === 0) return ['[]'];
    const out: string[] = [];
    for (const item of v) {
      const inner = lines(item);
      // nested maps and lists are indented under the dash; a block scalar's lines carry their own indent
      const nested = (isMap(item) && Object.keys(item).length) || (Array.isArray(item) && item.length);
      out.push('- ' + inner[0], ...inner.slice(1).map((l) => (nested && l !== '' ? '  ' + l : l)));
    }
    return out;
  }
  if (isMap(v)) {
    const keys = goKeyOrder(Object.keys(v));
    if (keys.length === 0) return ['{}'];
    const out: string[] = [];
    for (const k of keys) {
      const val = v[k];
      const key = goScalar(k);
      if (isMap(val) && Object.keys(val).length) out.push(key + ':', ...lines(val).map((l) => (l === '' ? '' : '  ' + l)));
      else if (Array.isArray(val) && val.length) out.push(key + ':', ...lines(val));
      else {
        const inner = lines(val);
        out.push(`${key}: ${inner[0]}`, ...inner.slice(1));
      }
    }
    return out;
  }
  return scalarLines(v);
}

/** `toYaml v` */
export function toYaml(v: unknown): string {
  return lines(v).join('\n');
}

/** `toYaml v | indent n` (sprig pads every line, empty ones too) */
export function indent(text: string, n: number): string {
  const pad = ' '.repeat(n);
  return text
    .split('\n')
    .map((l) => pad + l)
    .join('\n');
}

/** Keys in yaml.v2 order, recursively, as toYaml writes maps (for BareMetalHost fields from profiles). */
export function sortedKeys<T>(v: T): T {
  if (Array.isArray(v)) return v.map(sortedKeys) as T;
  if (isMap(v)) {
    const out: Record<string, unknown> = {};
    for (const k of goKeyOrder(Object.keys(v))) out[k] = sortedKeys(v[k]);
    return out as T;
  }
  return v;
}
