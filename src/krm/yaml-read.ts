/**
 * The careful YAML reader behind the fast one: what `yaml` can tell that the fast reader
 * cannot, read the way kubectl and kustomize (go-yaml) read it, in linear time and bounded
 * memory whatever the input.
 *
 * - Depth is bounded (MAX_DEPTH) before anything recurses: one positioned error, never a
 *   stack overflow.
 * - Aliases are expanded once, in document order, with a budget (MAX_ALIAS_EXPANSION nodes):
 *   an alias bomb is one positioned error. (`yaml`'s own toJS walks the document for every
 *   alias, which is quadratic.)
 * - Duplicate keys are found with a set per mapping (`yaml`'s check is quadratic) and are an
 *   error naming both lines, as kustomize reports them.
 * - What go-yaml accepts and strict YAML does not (a flow collection or quoted string
 *   continued at less indentation than its key, old Mac line ends, a comment glued to a
 *   value) is read as go-yaml reads it, with a note the caller reports as `info`.
 */
import type { Document, Node as YamlNode } from 'yaml';
import { PARSE_OPTIONS, yamlLib } from './lazy.js';
import { notPrintableDetail, UNSAFE } from './printable.js';

/** Deepest nesting of collections accepted; deeper input is an error, not a stack overflow. */
export const MAX_DEPTH = 256;
/** Nodes that aliases may add to a document when expanded (a "billion laughs" stops here). */
const MAX_ALIAS_EXPANSION = 100_000;

/** A YAML document that cannot be read, with the 1-based line and column in its text. */
export class YamlReadError extends Error {
  constructor(
    readonly detail: string,
    readonly line: number | undefined,
    readonly col: number | undefined,
    readonly code: string,
  ) {
    super(line !== undefined ? `line ${line}, column ${col ?? 1}: ${detail}` : detail);
  }
}

/** 1-based line and column of a character offset. */
export function lineCol(src: string, offset: number): { line: number; col: number } {
  let line = 1;
  let start = 0;
  for (let i = src.indexOf('\n'); i >= 0 && i < offset; i = src.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, col: offset - start + 1 };
}

/** What an error about a key written twice says after its position, in YAML and JSON input alike (`key` undefined: not shown). */
export function duplicateKeyDetail(key: string | undefined, firstAt: string | undefined): string {
  return `duplicate key${key === undefined ? '' : ` "${key}"`}${firstAt ? ` (first at ${firstAt})` : ''}: kustomize rejects it and kubectl keeps the last without a word; keep one`;
}

function errorAt(src: string, offset: number, detail: string, code: string): YamlReadError {
  const { line, col } = lineCol(src, Math.max(0, Math.min(offset, src.length)));
  return new YamlReadError(detail, line, col, code);
}

/** How `yaml` composes for us: PARSE_OPTIONS, duplicate keys left to us, comments glued to values allowed. */
const COMPOSE_OPTIONS = { ...PARSE_OPTIONS, strict: false, uniqueKeys: false, maxAliasCount: -1 };

/** How many collections (block mappings and sequences, flow collections) are open on the parser's stack. */
function openCollections(stack: readonly import('yaml').CST.Token[]): number {
  let n = 0;
  for (const t of stack) if (t.type === 'block-map' || t.type === 'block-seq' || t.type === 'flow-collection') n++;
  return n;
}

/** `yaml`'s documents of `src`, with the nesting depth checked while the parser runs (iterative). */
function composeDocuments(src: string): Document.Parsed[] {
  const Y = yamlLib();
  const parser = new Y.Parser();
  const tokens: import('yaml').CST.Token[] = [];
  for (const lexeme of new Y.Lexer().lex(src)) {
    for (const t of parser.next(lexeme)) tokens.push(t);
    // the stack holds the document, each open collection and, in block context, the node being
    // read: count the collections themselves, as the fast reader does (flow and block alike)
    if (parser.stack.length > MAX_DEPTH && openCollections(parser.stack) > MAX_DEPTH)
      throw errorAt(src, parser.offset, `nesting deeper than ${MAX_DEPTH} levels is not accepted`, 'DEPTH');
  }
  for (const t of parser.end()) tokens.push(t);
  return [...new Y.Composer(COMPOSE_OPTIONS).compose(tokens)] as Document.Parsed[];
}

// ---------- conversion to plain data ----------

/**
 * A `!!binary` scalar as go-yaml reads it into interface{} (what kubectl and kustomize see): the
 * decoded bytes as a string, not `yaml`'s Uint8Array (a Buffer would be walked as a mapping of
 * methods and numbers).
 */
function binaryText(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/** YAML 1.1 collection types `yaml` reads into Sets and Maps: converted by `yaml` itself. */
const SPECIAL_COLLECTIONS = new Set(['tag:yaml.org,2002:set', 'tag:yaml.org,2002:omap', 'tag:yaml.org,2002:pairs']);

interface Anchor {
  value: unknown;
  /** nodes the anchored value stands for, its own aliases expanded */
  size: number;
}

/** An anchor whose value is being read: an alias to it inside it would make the value contain itself. */
const OPEN: Anchor = { value: undefined, size: 0 };

class Converter {
  readonly anchors = new Map<string, Anchor>();
  /** nodes converted so far, aliases counted at their expanded size */
  count = 0;
  literal = 0;
  constructor(
    readonly src: string,
    readonly doc: Document.Parsed,
  ) {}

  fail(node: { range?: readonly number[] | null } | null | undefined, detail: string, code: string): never {
    throw errorAt(this.src, node?.range?.[0] ?? 0, detail, code);
  }

  value(node: YamlNode | null | undefined): unknown {
    const Y = yamlLib();
    if (node === null || node === undefined) return null;
    if (!Y.isNode(node)) return node; // a plain value set by an edit (yaml keeps keys so)
    const before = this.count;
    let out: unknown;
    if (Y.isAlias(node)) {
      const a = this.anchors.get(node.source);
      // the alias is not named: an unquoted value that starts with `*` is an alias (`password: *s3cr3t`)
      if (!a) this.fail(node, 'an alias (*name) with no anchor (&name) of its name before it', 'UNKNOWN_ANCHOR');
      if (a === OPEN)
        this.fail(
          node,
          'an alias stands inside the value its anchor names (a value that contains itself): kubectl and kustomize cannot read it either',
          'RECURSIVE_ALIAS',
        );
      this.count += a.size;
      if (this.count - this.literal > MAX_ALIAS_EXPANSION)
        this.fail(
          node,
          `aliases expand to more than ${MAX_ALIAS_EXPANSION.toLocaleString('en-US')} nodes (an alias bomb?): not accepted`,
          'ALIAS_BOMB',
        );
      return a.value;
    }
    this.count++;
    this.literal++;
    // an alias inside the anchored value refers to that value (YAML: the anchor comes first), as go-yaml reads it
    if (node.anchor && !Y.isScalar(node)) this.anchors.set(node.anchor, OPEN);
    if (Y.isScalar(node))
      out =
        node.type === 'QUOTE_DOUBLE' && node.range && needsGoYamlDecoding(this.src, node.range[0], node.range[1])
          ? this.doubleQuoted(node)
          : node.value instanceof Uint8Array
            ? binaryText(node.value)
            : node.value;
    else if (SPECIAL_COLLECTIONS.has(node.tag ?? ''))
      out = (node as unknown as { toJS(doc: Document, opts: object): unknown }).toJS(this.doc, { maxAliasCount: 100 });
    else if (Y.isMap(node)) out = this.map(node.items as import('yaml').Pair<YamlNode, YamlNode>[]);
    else if (Y.isSeq(node)) out = node.items.map((it) => this.value(it as YamlNode));
    else out = null;
    if (node.anchor) this.anchors.set(node.anchor, { value: out, size: this.count - before });
    return out;
  }

  /** A double-quoted string yaml reads otherwise than go-yaml: read as go-yaml does, an error at the string. */
  doubleQuoted(node: { range?: readonly number[] | null }): string {
    try {
      return decodeDoubleQuoted(this.src.slice(node.range![0], node.range![1]));
    } catch (e) {
      if (e instanceof YamlReadError) this.fail(node, e.detail, e.code);
      throw e;
    }
  }

  key(node: YamlNode | null): string {
    const v = this.value(node);
    // kubectl refuses a null key ("unsupported map key of type: <nil>"): `~: x`, `null: x`, `? : x`
    if (v === null || v === undefined)
      this.fail(
        node ?? undefined,
        'a mapping key that is null (~, null or nothing): kubectl refuses it ("unsupported map key"); quote it ("null") or remove it',
        'NULL_KEY',
      );
    // a Kubernetes object is JSON, whose keys are strings: kubectl and Flux refuse the object
    // ("invalid map key"); kpt and kustomize keep it, so it would pass every step before the apply
    if (typeof v === 'object')
      this.fail(
        node,
        `a mapping key that is ${Array.isArray(v) ? 'a list' : 'a mapping'}: Kubernetes objects are JSON, whose keys are strings, and kubectl and Flux refuse it ("invalid map key"); write the key as a string`,
        'COLLECTION_KEY',
      );
    return String(v);
  }

  map(pairs: import('yaml').Pair<YamlNode, YamlNode>[]): Record<string, unknown> {
    const Y = yamlLib();
    const out: Record<string, unknown> = {};
    const seen = new Map<string, YamlNode | null>();
    for (const pair of pairs) {
      const k = pair.key;
      if (Y.isScalar(k) && typeof k.value === 'symbol') {
        this.merge(out, pair.value);
        continue;
      }
      const key = this.key(k);
      if (seen.has(key)) {
        const first = seen.get(key);
        const at = first?.range ? lineCol(this.src, first.range[0]).line : undefined;
        this.fail(k, duplicateKeyDetail(key, at ? `line ${at}` : undefined), 'DUPLICATE_KEY');
      }
      seen.set(key, k);
      const v = this.value(pair.value);
      if (key === '__proto__') Object.defineProperty(out, key, { value: v, writable: true, enumerable: true, configurable: true });
      else out[key] = v;
    }
    return out;
  }

  /** YAML 1.1 merge key `<<`: keys of the merged maps that the map does not have yet. */
  merge(out: Record<string, unknown>, node: YamlNode | null): void {
    const Y = yamlLib();
    const sources = Y.isSeq(node) ? node.items.map((n) => this.value(n as YamlNode)) : [this.value(node)];
    for (const s of sources) {
      if (s === null || typeof s !== 'object' || Array.isArray(s))
        this.fail(node, 'a merge key (<<) takes a mapping or a list of mappings', 'BAD_MERGE');
      for (const [k, v] of Object.entries(s as Record<string, unknown>))
        if (!Object.hasOwn(out, k)) Object.defineProperty(out, k, { value: v, writable: true, enumerable: true, configurable: true });
    }
  }
}

// ---------- go-yaml leniency ----------

/**
 * Re-indents lines that continue a flow collection or a quoted string at less indentation
 * than strict YAML allows (go-yaml ignores indentation there): every such line gets at least
 * the indentation of the column where the collection or string started. Leading white space
 * on those lines carries no meaning, so the value read is what go-yaml reads. Returns the new
 * text and the 1-based numbers of the lines changed, or undefined when there were none.
 */
function relaxContinuationIndent(src: string): Relaxed | undefined {
  const lines = src.split('\n');
  const changed: number[] = [];
  const inserts: { at: number; total: number }[] = []; // where spaces were put in, and how many up to there
  const st = new ContinuationScanner();
  let offset = 0; // of the line in the relaxed text
  for (let n = 0; n < lines.length; n++) {
    let line = lines[n]!;
    const need = st.continuationIndent();
    if (need !== undefined) {
      let ind = 0;
      while (line.charCodeAt(ind) === 32) ind++;
      if (ind < need && line.trim() !== '') {
        line = ' '.repeat(need - ind) + line;
        lines[n] = line;
        changed.push(n + 1);
        inserts.push({ at: offset, total: (inserts[inserts.length - 1]?.total ?? 0) + need - ind });
      }
    }
    st.line(line);
    offset += line.length + 1;
  }
  if (!changed.length) return undefined;
  return {
    text: lines.join('\n'),
    lines: changed,
    // an offset of the relaxed text in the source: less the spaces put in before it (a binary
    // search of the insertions, each with the spaces up to it: every item of a list asks)
    toSource: (offset) => {
      let lo = 0;
      let hi = inserts.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (inserts[mid]!.at < offset) lo = mid + 1;
        else hi = mid;
      }
      return offset - (lo > 0 ? inserts[lo - 1]!.total : 0);
    },
  };
}

interface Relaxed {
  text: string;
  /** 1-based numbers of the lines indented */
  lines: number[];
  toSource: (offset: number) => number;
}

/**
 * Whether a line of `src` has a quote or bracket that starts a value (`k: "`, `- [`, a line's
 * first character) and is not balanced on the rest of the line: only then can a quoted string or
 * flow collection go on past its line. Cheap, linear; may over-match.
 */
export function mayContinue(src: string): boolean {
  VALUE_OPENER.lastIndex = 0;
  for (let m = VALUE_OPENER.exec(src); m; m = VALUE_OPENER.exec(src)) {
    const at = m.index + m[0].length - 1;
    let stop = src.indexOf('\n', at);
    if (stop < 0) stop = src.length;
    if (!balancedFrom(src, at, stop)) return true;
    VALUE_OPENER.lastIndex = stop;
  }
  return false;
}
const VALUE_OPENER = /(?:^|[ \t])["'[{]/gm;

/**
 * Whether `text[start, stop)` (a line from a quote or bracket on) closes what it opens: every
 * quoted string on it (an escaped `\"`, a doubled `''` inside) and every flow bracket outside
 * strings. May say no of a line that is balanced (a quote in a plain scalar: `it's`); the caller
 * then reads the lines with the scanner.
 */
export function balancedFrom(text: string, start: number, stop: number): boolean {
  let square = 0;
  let curly = 0;
  for (let i = start; i < stop; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 || c === 39) {
      // on to the quote that closes it, on this line
      let j = i + 1;
      for (; j < stop; j++) {
        const d = text.charCodeAt(j);
        if (c === 34 && d === 92) j++;
        else if (d === c) {
          if (c === 39 && text.charCodeAt(j + 1) === 39) j++;
          else break;
        }
      }
      if (j >= stop) return false;
      i = j;
    } else if (c === 91) square++;
    else if (c === 93) square--;
    else if (c === 123) curly++;
    else if (c === 125) curly--;
    else if (c === 35 && (i === start || text.charCodeAt(i - 1) === 32 || text.charCodeAt(i - 1) === 9)) break; // a comment
  }
  return square === 0 && curly === 0;
}

/**
 * Whether a double-quoted scalar's text `src[start, end)` is one `yaml` reads otherwise than
 * go-yaml (kubectl, kustomize, kpt): it has `\'` (go-yaml's escape for `'`; `yaml` refuses it),
 * an escaped line break (`\` at a line's end; with an empty line after it `yaml` folds that
 * line into a space, go-yaml and the YAML spec keep it as a line feed), or an escape go-yaml
 * refuses and `yaml` reads (`\/`, a `\u` surrogate). May over-match: decodeDoubleQuoted reads
 * any double-quoted string.
 */
function needsGoYamlDecoding(src: string, start: number, end: number): boolean {
  // searched within the string only (a search of the whole text for each string is quadratic)
  const s = src.slice(start, end);
  for (let i = s.indexOf('\\'); i >= 0; i = s.indexOf('\\', i + 2)) {
    const n = s.charCodeAt(i + 1);
    if (n === 39 || n === 10 || n === 13 || n === 47) return true; // \' \<break> \/
    if ((n === 117 || n === 85) && /^[uU](?:0{4})?[dD][89a-fA-F]/.test(s.slice(i + 1, i + 7 + (n === 85 ? 4 : 0)))) return true; // a surrogate
  }
  return false;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  t: '\t',
  '\t': '\t',
  n: '\n',
  v: '\v',
  f: '\f',
  r: '\r',
  e: '\x1b',
  ' ': ' ',
  '"': '"',
  "'": "'",
  '\\': '\\',
  N: '\x85',
  _: '\xa0',
  L: '\u2028',
  P: '\u2029',
};
const HEX_ESCAPES: Record<string, number> = { x: 2, u: 4, U: 8 };
const HEX_DIGITS = /^[0-9A-Fa-f]+$/;

/**
 * The value of a double-quoted scalar (`raw` with its quotes) as go-yaml reads it: escapes
 * (with `\'`), line folding (a line break between text is a space, each empty line a line feed,
 * white space around a break dropped), an escaped line break joining its lines, the empty lines
 * after it each a line feed. Only for what needsGoYamlDecoding finds (`yaml` reads the rest).
 */
export function decodeDoubleQuoted(raw: string): string {
  let out = '';
  let pending = ''; // white space not yet known to be content (a line's trailing white space is not)
  const end = raw.length - 1;
  const isBreak = (i: number): number => (raw[i] === '\n' ? 1 : raw[i] === '\r' && raw[i + 1] === '\n' ? 2 : raw[i] === '\r' ? 1 : 0);
  /** from a line's start: past its leading white space and the empty lines after it, counting them */
  const skipEmpty = (from: number): [number, number] => {
    let i = from;
    let empty = 0;
    for (;;) {
      while (raw[i] === ' ' || raw[i] === '\t') i++;
      const b = i < end ? isBreak(i) : 0;
      if (b === 0) return [i, empty];
      empty++;
      i += b;
    }
  };
  for (let i = 1; i < end; ) {
    const c = raw[i]!;
    const br = isBreak(i);
    if (br) {
      const [next, empty] = skipEmpty(i + br);
      out += empty > 0 ? '\n'.repeat(empty) : ' ';
      pending = '';
      i = next;
      continue;
    }
    if (c === ' ' || c === '\t') {
      pending += c;
      i++;
      continue;
    }
    out += pending;
    pending = '';
    if (c !== '\\') {
      out += c;
      i++;
      continue;
    }
    const e = raw[i + 1]!;
    const eb = isBreak(i + 1);
    if (eb) {
      const [next, empty] = skipEmpty(i + 1 + eb);
      out += '\n'.repeat(empty);
      i = next;
      continue;
    }
    const hex = HEX_ESCAPES[e];
    if (hex !== undefined) {
      const digits = raw.slice(i + 2, i + 2 + hex);
      if (digits.length !== hex || !HEX_DIGITS.test(digits))
        throw new YamlReadError('an invalid escape sequence in a double-quoted string', undefined, undefined, 'BAD_DQ_ESCAPE');
      const code = Number.parseInt(digits, 16);
      if ((code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff)
        throw new YamlReadError(
          `an escape of no Unicode character (\\${e}${digits}: a surrogate, of a pair or alone, or past U+10FFFF): kubectl and kustomize (go-yaml) refuse it ("found invalid Unicode character escape code"); write the character itself, or \\U and its code point in eight digits`,
          undefined,
          undefined,
          'BAD_DQ_ESCAPE',
        );
      out += String.fromCodePoint(code);
      i += 2 + hex;
      continue;
    }
    const simple = SIMPLE_ESCAPES[e];
    if (simple === undefined)
      throw new YamlReadError(
        `an escape go-yaml does not know (\\${e}): kubectl and kustomize refuse it ("found unknown escape character")${e === '/' ? '; write / alone' : ''}`,
        undefined,
        undefined,
        'BAD_DQ_ESCAPE',
      );
    out += simple;
    i += 2;
  }
  return out + pending;
}

/** Just enough of a YAML lexer to know, line by line, whether a flow collection or quoted string is open. */
export class ContinuationScanner {
  flow = 0;
  quote = '';
  /** column where the open flow collection or quoted string started */
  openCol = 0;
  /** while a block scalar runs: the indentation its lines must exceed */
  blockParent = -1;

  continuationIndent(): number | undefined {
    return this.flow > 0 || this.quote ? this.openCol : undefined;
  }

  line(l: string): void {
    let i = 0;
    while (l.charCodeAt(i) === 32) i++;
    if (this.blockParent >= 0) {
      if (l.trim() === '' || i > this.blockParent) return;
      this.blockParent = -1;
    }
    if (this.flow > 0 || this.quote) {
      this.inFlow(l, i);
      return;
    }
    this.block(l, i);
  }

  /** Block context: indicators, keys, then a value that may open a flow collection, string or block scalar. */
  block(l: string, start: number): void {
    let i = start;
    let owner = start;
    for (;;) {
      while (l[i] === ' ') i++;
      const c = l[i];
      if (c === undefined || c === '#') return;
      if ((c === '-' || c === '?' || c === ':') && (l[i + 1] === ' ' || l[i + 1] === undefined)) {
        owner = i;
        i += 2;
        continue;
      }
      if ((c === '&' || c === '!') && /\S/.test(l[i + 1] ?? '')) {
        while (i < l.length && l[i] !== ' ') i++;
        continue;
      }
      if (c === '"' || c === "'") {
        const end = closeQuote(l, i);
        if (end < 0) {
          this.quote = c;
          this.openCol = i;
          return;
        }
        i = end;
        while (l[i] === ' ') i++;
        if (l[i] === ':' && (l[i + 1] === ' ' || l[i + 1] === undefined)) {
          owner = start;
          i++;
          continue;
        }
        return;
      }
      if (c === '[' || c === '{') {
        this.openCol = i;
        this.inFlow(l, i);
        return;
      }
      if (c === '|' || c === '>') {
        this.blockParent = owner;
        return;
      }
      // a plain scalar: a key if `: ` follows on this line
      const colon = plainKeyEnd(l, i);
      if (colon < 0) return;
      i = colon + 1;
    }
  }

  inFlow(l: string, from: number): void {
    for (let i = from; i < l.length; i++) {
      const c = l[i];
      if (this.quote) {
        const end = closeQuote(l, i - 1, this.quote);
        if (end < 0) return;
        this.quote = '';
        i = end - 1;
        continue;
      }
      if (c === '"' || c === "'") {
        const prev = l[i - 1];
        if (prev === undefined || prev === ' ' || prev === '[' || prev === '{' || prev === ',' || prev === ':') {
          const end = closeQuote(l, i);
          if (end < 0) {
            this.quote = c;
            if (this.flow === 0) this.openCol = i;
            return;
          }
          i = end - 1;
        }
      } else if (c === '[' || c === '{') this.flow++;
      else if (c === ']' || c === '}') this.flow = Math.max(0, this.flow - 1);
      else if (c === '#' && (i === 0 || l[i - 1] === ' ')) return;
    }
  }
}

/** Index after the quote closing the string opened at `open` (or continued, with `q`), or -1. */
function closeQuote(l: string, open: number, q = l[open]!): number {
  for (let i = open + 1; i < l.length; i++) {
    const c = l[i];
    if (q === '"' && c === '\\') {
      i++;
      continue;
    }
    if (c === q) {
      if (q === "'" && l[i + 1] === "'") {
        i++;
        continue;
      }
      return i + 1;
    }
  }
  return -1;
}

/** Index of the `:` ending a plain key that starts at `i`, or -1 (no key, or a comment first). */
function plainKeyEnd(l: string, i: number): number {
  for (let j = i; j < l.length; j++) {
    if (l[j] === ':' && (l[j + 1] === ' ' || l[j + 1] === undefined)) return j;
    if (l[j] === '#' && l[j - 1] === ' ') return -1;
  }
  return -1;
}

// ---------- public ----------

/** A non-standard construct read as go-yaml reads it: the 1-based lines, and what was accepted. */
interface ReadNote {
  lines: number[];
  message: string;
}

interface YamlRead {
  value: unknown;
  /** non-standard constructs accepted as go-yaml accepts them, for `info` results */
  notes: ReadNote[];
}

function firstError(src: string, docs: Document.Parsed[], relaxed?: Relaxed, source = src): YamlReadError | undefined {
  for (const d of docs) {
    // go-yaml reads `\'` in a double-quoted string as `'` (the Converter reads such strings so)
    const e = d.errors.find((x) => !(x.code === 'BAD_DQ_ESCAPE' && src.startsWith("\\'", x.pos[0])));
    if (e) {
      const { line, col } = lineCol(source, relaxed ? relaxed.toSource(e.pos[0]) : e.pos[0]);
      return new YamlReadError(withoutText(e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')), line, col, e.code);
    }
  }
  return undefined;
}

/**
 * `yaml`'s messages that quote the text (a tag, an escape, a directive, a block scalar's header),
 * said without it: the text may be a credential (`password: !s3cr3t`), and the message has its
 * line and column. Others name only YAML's own indicators and token types.
 */
const QUOTING_MESSAGES: [RegExp, string][] = [
  [/\btags?\b/i, 'a tag this reader does not resolve (the core tags !!str, !!int ..., and local tags defined by a %TAG directive)'],
  [/^Invalid escape sequence/, 'an invalid escape sequence in a double-quoted string'],
  [/^Block scalar header includes extra characters/, 'a block scalar header with more than | or > and its indicators'],
  [/^Unknown directive/, 'an unknown directive (YAML has %YAML and %TAG)'],
  [/^Unsupported YAML version/, 'an unsupported YAML version in a %YAML directive'],
];

function withoutText(message: string): string {
  for (const [quoting, said] of QUOTING_MESSAGES) if (quoting.test(message)) return said;
  return message;
}

/** A CR that is not half of a CRLF: a line break of its own (old Mac line ends), to go-yaml and to both readers. */
const BARE_CR = /\r(?!\n)/;

/** Whether `text` holds a bare CR; most texts hold no CR at all: one native character search decides then. */
export function hasBareCr(text: string): boolean {
  return text.indexOf('\r') >= 0 && BARE_CR.test(text);
}

/** Documents of `src` read strictly, then (on an error) as go-yaml would, with notes saying how. */
function lenientDocuments(src: string): {
  docs: Document.Parsed[];
  text: string;
  notes: ReadNote[];
  toSource?: (offset: number) => number;
} {
  const bad = UNSAFE.exec(src);
  if (bad) throw errorAt(src, bad.index, notPrintableDetail(bad[0]), 'NOT_PRINTABLE');
  const notes: ReadNote[] = [];
  // a bare CR is a line break to go-yaml (and to the fast reader): read it so from the start, or
  // `a: 0644\r` would be a string here and 420 there, and 300 CR-only lines one 300-deep line
  let text = src;
  if (hasBareCr(src)) {
    text = src.replace(/\r(?!\n)/g, '\n'); // same length: positions stay
    // a CRLF file missing only its last LF is no old-Mac file: nothing to say
    if (/\r(?!\n)[\s\S]/.test(src))
      notes.push({
        lines: [],
        message: 'line breaks are bare carriage returns (old Mac style): read as line breaks, as go-yaml does (non-standard but accepted)',
      });
  }
  // a quoted string or flow collection that goes on at less indentation than YAML allows: go-yaml
  // reads such lines as more of the value, at any indentation. Indented before composing, not
  // only after an error: `yaml` reads some such texts wrongly without one (`k: "a\"` then a
  // column-0 line ends the string there)
  let relaxed = mayContinue(text) ? relaxContinuationIndent(text) : undefined;
  const asWritten = text;
  if (relaxed) text = relaxed.text;
  let docs = composeDocuments(text);
  // an error is positioned in the text as written (a relaxed line's columns moved)
  let err = firstError(text, docs, relaxed, asWritten);
  if (err && !relaxed) {
    const late = relaxContinuationIndent(text);
    if (late) {
      const again = composeDocuments(late.text);
      err = firstError(late.text, again, late, asWritten);
      if (!err) {
        relaxed = late;
        text = late.text;
        docs = again;
      }
    }
  }
  if (err) throw err;
  if (relaxed)
    notes.push({
      lines: relaxed.lines,
      message:
        'a flow collection or quoted string continues at less indentation than YAML allows; read as kubectl and kustomize (go-yaml) read it (non-standard but accepted)',
    });
  return { docs, text, notes, toSource: relaxed?.toSource };
}

/** Plain data of a `yaml` Document (after an edit): aliases expanded once, duplicate keys refused. */
export function documentData(doc: Document): unknown {
  return new Converter('', doc as Document.Parsed).value(doc.contents as YamlNode | null);
}

/**
 * One document composed as go-yaml would read it (lenient, depth checked), with the text its
 * ranges refer to and the notes on what was accepted. Throws YamlReadError.
 */
export function composeDocument(src: string): {
  doc: Document.Parsed | undefined;
  text: string;
  notes: ReadNote[];
  /** where an offset of `text` is in `src` (`text` is `src` when undefined) */
  toSource?: (offset: number) => number;
} {
  const { docs, text, notes, toSource } = lenientDocuments(src);
  if (docs.length > 1)
    throw new YamlReadError('more than one YAML document (`---`) where one was expected', undefined, undefined, 'MULTIPLE_DOCS');
  return { doc: docs[0], text, notes, toSource };
}

/** Plain data of a composed document, `src` being the text its ranges refer to. */
export function composedData(src: string, doc: Document.Parsed): unknown {
  return new Converter(src, doc).value(doc.contents as YamlNode | null);
}

/** Reads every document of a YAML stream as plain data. Throws YamlReadError, positioned. */
function readYamlAll(src: string): YamlRead[] {
  const { docs, text, notes } = lenientDocuments(src);
  return docs.map((d, i) => ({ value: new Converter(text, d).value(d.contents as YamlNode | null), notes: i === 0 ? notes : [] }));
}

/**
 * The `%TAG` directives of a stream document's lead (what stands before it: the last document's
 * end, comments, directives, `---`), as a prologue to read the document with: a tag handle they
 * define (`!e!str`) resolves only with them, and the document is read apart from its lead.
 * '' when there are none (almost always).
 */
export function tagPrologue(lead: string): string {
  if (!lead.includes('%TAG')) return '';
  const lines = lead.match(/^%TAG[ \t][^\r\n]*/gm);
  return lines ? `${lines.join('\n')}\n---\n` : '';
}

/**
 * Reads one YAML document as plain data (null when empty), after `prologue` (tagPrologue) when
 * given: lines in errors and notes are the document's own. Throws YamlReadError, positioned.
 */
export function readYaml(src: string, prologue = ''): YamlRead {
  if (prologue !== '') {
    const shift = lineCol(prologue, prologue.length).line - 1; // its lines: the document's first is the one after
    try {
      const r = readYaml(prologue + src);
      return { value: r.value, notes: r.notes.map((n) => ({ ...n, lines: n.lines.map((l) => l - shift) })) };
    } catch (e) {
      if (!(e instanceof YamlReadError) || e.line === undefined) throw e;
      throw new YamlReadError(e.detail, Math.max(1, e.line - shift), e.col, e.code);
    }
  }
  const all = readYamlAll(src);
  if (all.length > 1)
    throw new YamlReadError('more than one YAML document (`---`) where one was expected', undefined, undefined, 'MULTIPLE_DOCS');
  return all[0] ?? { value: null, notes: [] };
}

/** A `yaml` Document of one YAML document, for edits (depth checked, read as go-yaml reads it). */
export function yamlDocument(src: string): Document.Parsed {
  const { docs, text } = lenientDocuments(src);
  if (docs.length > 1)
    throw new YamlReadError('more than one YAML document (`---`) where one was expected', undefined, undefined, 'MULTIPLE_DOCS');
  if (docs[0]) {
    new Converter(text, docs[0]).value(docs[0].contents as YamlNode | null); // duplicate keys, alias bombs
    return docs[0];
  }
  return yamlLib().parseDocument('', COMPOSE_OPTIONS) as Document.Parsed;
}
