/**
 * A fast reader for the block-YAML subset that Kubernetes tools write (kyaml, kpt, kustomize,
 * hand-written manifests): block mappings and sequences, plain and quoted one-line scalars,
 * literal block scalars, one-line flow collections and comments.
 *
 * It returns exactly what `yaml`'s `parse(text, PARSE_OPTIONS)` returns (YAML 1.1 scalars as Go
 * reads them, see lazy.ts), or `undefined`
 * whenever it meets anything it is not sure about (anchors, tags, folded or multi-line scalars,
 * duplicate keys, odd indentation ...). Callers then fall back to the `yaml` package, so the
 * fast path can only ever be faster, never different. A property test holds it to that.
 */
import { YAML11_FALSE, YAML11_FLOAT, YAML11_FLOAT_EXP, YAML11_NULL, YAML11_TRUE } from './yaml11.js';
import { UNSAFE_CLASS } from './printable.js';
import { MAX_DEPTH, readYaml } from './yaml-read.js';

/** Thrown internally when the input leaves the subset; never escapes this module. */
class Unsure extends Error {}
const UNSURE = new Unsure();

/**
 * YAML 1.1 numbers exactly as the `yaml` package's yaml-1.1 schema resolves them with
 * PARSE_OPTIONS (int.js, float.js: same patterns, same order, same arithmetic), minus the
 * base-60 and timestamp types PARSE_OPTIONS leaves out, and with the float patterns Go uses. Anything else is a string. The property tests hold this to
 * `yaml` itself.
 */
function intResolve(text: string, offset: number, radix: number): number {
  const sign = text[0];
  if (sign === '-' || sign === '+') offset += 1;
  const digits = offset === 0 ? text : text.substring(offset);
  const n = parseInt(digits.includes('_') ? digits.replace(/_/g, '') : digits, radix);
  return sign === '-' ? -1 * n : n;
}

function resolveNumber(text: string): unknown {
  if (/^[-+]?0b[0-1_]+$/.test(text)) return intResolve(text, 2, 2);
  if (/^[-+]?0[0-7_]+$/.test(text)) return intResolve(text, 1, 8);
  if (/^[-+]?[0-9][0-9_]*$/.test(text)) return intResolve(text, 0, 10);
  if (/^[-+]?0x[0-9a-fA-F_]+$/.test(text)) return intResolve(text, 2, 16);
  if (/^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/.test(text))
    return text.slice(-3).toLowerCase() === 'nan' ? NaN : text[0] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  if (YAML11_FLOAT_EXP.test(text)) return parseFloat(text.replace(/_/g, ''));
  if (YAML11_FLOAT.test(text)) return parseFloat(text.replace(/_/g, ''));
  return text;
}

function resolvePlain(text: string): unknown {
  if (YAML11_NULL.has(text)) return null;
  if (YAML11_TRUE.has(text)) return true;
  if (YAML11_FALSE.has(text)) return false;
  const c = text.charCodeAt(0);
  // digits, '+', '-', '.': what a number starts with (`e0` is a string, as in Go: yaml11.ts)
  if ((c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46) return resolveNumber(text);
  return text;
}

/** Characters that cannot start a plain scalar in block context (YAML 1.2 §7.3.3). */
function badPlainStart(s: string): boolean {
  const c = s[0];
  if (c === undefined) return false;
  if ('[]{},#&*!|>\'"%@`'.includes(c)) return true;
  if ((c === '-' || c === '?' || c === ':') && (s.length === 1 || s[1] === ' ')) return true;
  return false;
}

function parseDoubleQuoted(s: string): string {
  // JSON escapes are a subset of YAML's; anything else (\x, \e, \N, \0 ...) is left to yaml.
  for (let i = 0; i < s.length; i++) {
    const ch = s.charCodeAt(i);
    if (ch < 0x20 && ch !== 9) throw UNSURE;
    if (ch === 92) {
      const n = s[i + 1];
      // not \/ (go-yaml refuses it) nor a \u surrogate (go-yaml refuses pairs too): the careful reader says so
      if (n === undefined || !'"\\bfnrtu'.includes(n) || (n === 'u' && /^[dD][89a-fA-F]/.test(s.slice(i + 2, i + 4)))) throw UNSURE;
      i++;
    }
  }
  try {
    return JSON.parse(s.replace(/\t/g, '\\t')) as string;
  } catch {
    throw UNSURE;
  }
}

/** Reads a quoted scalar starting at s[i]; returns [value, index after the closing quote]. */
function readQuoted(s: string, i: number): [string, number] {
  const q = s[i]!;
  const k = closingQuote(s, i + 1, q);
  if (k < 0) throw UNSURE; // a quoted scalar over several lines (BlockReader.quotedLines), or none
  // (the double-quoted one read in place: a slice of the line, not a new string with its quotes)
  return [q === "'" ? quotedContent(q, s.slice(i + 1, k)) : parseDoubleQuoted(s.slice(i, k + 1)), k + 1];
}

/** The value of a quoted scalar's text between its quotes (one line of it): '' is ', escapes are read. */
function quotedContent(q: string, inner: string): string {
  if (q === '"') return parseDoubleQuoted(`"${inner}"`);
  return inner.includes("''") ? inner.replace(/''/g, "'") : inner;
}

/** Where the quote `q` that closes a scalar is in `s` from `from` (not a doubled ' or an escaped "), or -1. */
function closingQuote(s: string, from: number, q: string): number {
  for (let j = from; ; ) {
    const k = s.indexOf(q, j);
    if (k < 0) return -1;
    if (q === "'") {
      if (s[k + 1] !== "'") return k;
      j = k + 2;
      continue;
    }
    let bs = 0;
    for (let b = k - 1; b >= from && s[b] === '\\'; b--) bs++;
    if (bs % 2 === 0) return k;
    j = k + 1;
  }
}

/** After a value: only spaces and an optional comment may follow. */
function expectEnd(s: string, i: number): void {
  while (i < s.length && s[i] === ' ') i++;
  if (i < s.length && !(s[i] === '#' && s[i - 1] === ' ')) throw UNSURE;
}

/** YAML's white space is space and tab only (String.trim would also eat U+00A0, U+3000 ...). */
function trimEndYaml(s: string): string {
  let e = s.length;
  while (e > 0 && (s.charCodeAt(e - 1) === 32 || s.charCodeAt(e - 1) === 9)) e--;
  return s.slice(0, e);
}
function trimYaml(s: string): string {
  let b = 0;
  while (b < s.length && (s.charCodeAt(b) === 32 || s.charCodeAt(b) === 9)) b++;
  return trimEndYaml(s.slice(b));
}

/** Strips a trailing ` #comment` and spaces from a plain scalar. */
function plainText(s: string): string {
  const hash = s.indexOf(' #');
  const t = trimEndYaml(hash >= 0 ? s.slice(0, hash) : s);
  if (t.includes(': ') || t.endsWith(':') || t.includes('\t')) throw UNSURE;
  return t;
}

// ---------- flow collections on one line ----------

class FlowReader {
  i = 0;
  depth = 0;
  constructor(readonly s: string) {}
  /** White space in a flow collection: spaces and tabs. */
  ws(): void {
    while (this.s[this.i] === ' ' || this.s[this.i] === '\t') this.i++;
  }
  value(): unknown {
    this.ws();
    const c = this.s[this.i];
    if (c === '[' || c === '{') {
      if (++this.depth > MAX_DEPTH) throw UNSURE;
      const v = c === '[' ? this.seq() : this.map();
      this.depth--;
      return v;
    }
    if (c === '"' || c === "'") {
      const [v, end] = readQuoted(this.s, this.i);
      this.i = end;
      return v;
    }
    return resolvePlain(this.plain());
  }
  plain(): string {
    const start = this.i;
    const s = this.s;
    while (this.i < s.length) {
      const c = s[this.i];
      if (c === ',' || c === ']' || c === '}' || c === '[' || c === '{') break;
      const next = s[this.i + 1];
      // `key:` then white space (a tab too), or the end of the entry
      if (c === ':' && (next === ' ' || next === '\t' || next === ',' || next === '}' || next === ']')) break;
      if (c === '#' && (s[this.i - 1] === ' ' || s[this.i - 1] === '\t')) throw UNSURE;
      this.i++;
    }
    const t = trimYaml(s.slice(start, this.i));
    if (t === '' || badPlainStart(t)) throw UNSURE;
    return t;
  }
  seq(): unknown[] {
    const out: unknown[] = [];
    this.i++;
    this.ws();
    if (this.s[this.i] === ']') {
      this.i++;
      return out;
    }
    for (;;) {
      const v = this.value();
      this.ws();
      if (this.s[this.i] === ':') throw UNSURE; // implicit single-pair mapping inside a sequence
      out.push(v);
      const c = this.s[this.i];
      if (c === ',') {
        this.i++;
        this.ws();
        if (this.s[this.i] === ']') {
          this.i++;
          return out;
        }
        continue;
      }
      if (c === ']') {
        this.i++;
        return out;
      }
      throw UNSURE;
    }
  }
  map(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.i++;
    this.ws();
    if (this.s[this.i] === '}') {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      const c = this.s[this.i];
      let key: string;
      if (c === '"' || c === "'") {
        const [k, end] = readQuoted(this.s, this.i);
        this.i = end;
        key = k;
      } else if (c === '[' || c === '{') {
        throw UNSURE;
      } else {
        key = String(resolvePlain(this.plain()));
      }
      this.ws();
      let v: unknown = null;
      if (this.s[this.i] === ':') {
        this.i++;
        this.ws();
        const n = this.s[this.i];
        if (n !== ',' && n !== '}') v = this.value();
      }
      if (Object.hasOwn(out, key) || key === '<<' || key === '__proto__') throw UNSURE;
      out[key] = v;
      this.ws();
      const d = this.s[this.i];
      if (d === ',') {
        this.i++;
        this.ws();
        if (this.s[this.i] === '}') {
          this.i++;
          return out;
        }
        continue;
      }
      if (d === '}') {
        this.i++;
        return out;
      }
      throw UNSURE;
    }
  }
}

/** A flow collection on one line, `depth` collections deep already (block nesting around it counts too). */
function parseFlowLine(s: string, depth = 0): unknown {
  const r = new FlowReader(s);
  r.depth = depth;
  const v = r.value();
  expectEnd(s, r.i);
  return v;
}

// ---------- block structure ----------

/**
 * The lines of the document being read, as offsets into its text: no object and no string per
 * line. A document of 100k lines would otherwise keep 300k small objects alive until its read
 * ends, and the young-generation GC copies every one of them (twice) while the reader runs.
 * The arrays are shared by every read (reads are synchronous and never nested) and grow as needed.
 */
let lineIndent = new Int32Array(256);
/** offset of the line's content (after its indentation) */
let lineContent = new Int32Array(256);
/** offset of the line's end (its LF, or its CR of a CRLF, or the text's end) */
let lineEnd = new Int32Array(256);
/** beyond this many lines, the arrays are given back after the read */
const KEEP_LINES = 1 << 20;

/** After a very long document: the arrays go back to their first size. */
function releaseLines(): void {
  lineIndent = new Int32Array(256);
  lineContent = new Int32Array(256);
  lineEnd = new Int32Array(256);
}

function growLines(size: number): void {
  const grown = (a: Int32Array) => {
    const b = new Int32Array(size);
    b.set(a);
    return b;
  };
  lineIndent = grown(lineIndent);
  lineContent = grown(lineContent);
  lineEnd = grown(lineEnd);
}

/**
 * What this reader leaves to the careful one, found in one scan: a CR that ends no line (neither
 * before an LF nor at the end of the text; a bare CR is a line break the careful reader reads),
 * or a character YAML does not allow (printable.ts, refused there with its position). One
 * character class, then a look back at a CR: about the cost of the CR search alone.
 */
const LEFT_TO_YAML = new RegExp(`[${UNSAFE_CLASS}\\r](?<!\\r(?=\\n|$))`);

/** Runs of spaces by length (splitLines). */
const SPACE_RUNS: string[] = [];
function spaces(n: number): string {
  return (SPACE_RUNS[n] ??= ' '.repeat(n));
}

/** Splits `src` into lines (LF or CRLF) and returns how many; throws UNSURE on what structural reading leaves to yaml. */
function splitLines(src: string): number {
  const len = src.length;
  // CRLF is a line break like LF; a bare CR is one too, which this reader leaves to yaml, as it
  // does characters YAML does not allow. One regular-expression scan finds either: String#indexOf('\r')
  // here was compiled by V8 (node 20) into a path some 20-60 times slower in some states of the
  // process (40 s for a 100k-line document after a run of 20k small items), though fast in isolation
  if (LEFT_TO_YAML.test(src)) throw UNSURE;
  let count = 0;
  let pos = 0;
  let indent = 0;
  while (pos < len) {
    let nl = src.indexOf('\n', pos);
    if (nl < 0) nl = len;
    const end = nl > pos && src.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
    // most lines are indented at least as the one before: its indentation is passed with one
    // startsWith, not space by space (a loop the interpreter runs for every space of every line
    // made this function hot enough for TurboFan in a start on ten items read twice)
    let i = indent > 1 && src.startsWith(spaces(indent), pos) ? pos + indent : pos;
    while (i < end && src.charCodeAt(i) === 32) i++;
    indent = i - pos;
    // a tab after the indentation is content in a literal block scalar (a Makefile); elsewhere
    // (indentation, separation) yaml's rules are subtle: structural readers refuse such lines
    if (i === pos && i < end) {
      const c = src.charCodeAt(i);
      if (c === 37 || src.startsWith('---', i) || src.startsWith('...', i)) throw UNSURE;
    }
    if (count === lineIndent.length) growLines(count * 2);
    lineIndent[count] = i - pos;
    lineContent[count] = i;
    lineEnd[count] = end;
    count++;
    pos = nl + 1;
  }
  return count;
}

/** A structural line must not start with a tab (a tab in the indentation, or a tab-only line). */
function noTab(text: string): string {
  if (text.charCodeAt(0) === 9) throw UNSURE;
  return text;
}

class BlockReader {
  n = 0;
  depth = 0;
  constructor(
    readonly src: string,
    /** how many lines (splitLines) */
    readonly count: number,
  ) {}

  /** The content of line `k` after its indentation ('' for a blank line): a new string each time, read once where it matters. */
  text(k: number): string {
    return this.src.slice(lineContent[k]!, lineEnd[k]!);
  }

  /** Line `k` is blank (spaces only). */
  blank(k: number): boolean {
    return lineContent[k] === lineEnd[k];
  }

  /** Line `k` is blank or a comment. */
  skip(k: number): boolean {
    return lineContent[k] === lineEnd[k] || this.src.charCodeAt(lineContent[k]!) === 35;
  }

  /** Line `k` holds a block sequence entry: `- ...` or `-` alone. */
  dash(k: number): boolean {
    const at = lineContent[k]!;
    if (this.src.charCodeAt(at) !== 45) return false;
    return at + 1 === lineEnd[k] || this.src.charCodeAt(at + 1) === 32;
  }

  /**
   * One collection deeper (map and seq, around reading it): the depth counts the collections
   * open around the current line (nesting), not every collection read, so a long list of small
   * mappings stays fast. Not a helper taking a closure: that was a closure per collection read.
   */
  enter(): void {
    if (++this.depth > MAX_DEPTH) throw UNSURE; // yaml-read reports it, positioned
  }

  skipBlank(): void {
    // skip() written out: a small method called for every line is compiled by V8's optimising
    // compiler after a few hundred lines, which costs a short run more than reading them
    const src = this.src;
    let n = this.n;
    while (n < this.count && (lineContent[n] === lineEnd[n] || src.charCodeAt(lineContent[n]!) === 35)) n++;
    this.n = n;
  }

  /** Parses the node whose first line is the current line, given that it starts at column `col`. */
  node(indent: number, text: string): unknown {
    noTab(text);
    if (text.startsWith('- ') || text === '-') return this.seq(indent, text);
    if (keyEnd(text) >= 0) return this.map(indent, text);
    throw UNSURE; // a bare scalar or flow node as a block node
  }

  /** A block sequence whose first entry is `text` at column `indent`. */
  seq(indent: number, firstText: string): unknown[] {
    this.enter();
    const v = this.#entries(indent, firstText);
    this.depth--;
    return v;
  }

  #entries(indent: number, firstText: string): unknown[] {
    const out: unknown[] = [];
    let text: string | undefined = firstText;
    for (;;) {
      // text is "- ..." or "-"
      this.n++; // consume the line holding the entry indicator
      let at = 2; // past "- " (text is "-" alone: nothing past it)
      while (text.charCodeAt(at) === 32) at++;
      const rest = text === '-' ? '' : text.slice(at);
      const col = indent + at;
      if (rest.startsWith('\t')) throw UNSURE; // white space yaml skips and this reader would read
      out.push(this.entryValue(indent, rest, col, true));
      this.skipBlank();
      const next = this.n;
      if (next >= this.count || lineIndent[next] !== indent) {
        if (next < this.count && lineIndent[next]! > indent) throw UNSURE;
        return out;
      }
      if (!this.dash(next)) return out;
      text = this.text(next);
    }
  }

  /**
   * The value of a sequence entry or mapping value whose inline part is `rest` (starting at
   * column `col`), on a line already consumed. `parentIndent` is the indentation of the
   * collection holding it.
   */
  entryValue(parentIndent: number, rest: string, col: number, inSeq: boolean): unknown {
    if (rest === '' || rest[0] === '#') {
      this.skipBlank();
      const next = this.n;
      if (next >= this.count) return null;
      const indent = lineIndent[next]!;
      if (indent > parentIndent) return this.node(indent, this.text(next));
      // "key:" followed by a sequence at the same indentation (kyaml's compact style)
      if (!inSeq && indent === parentIndent && this.dash(next)) return this.seq(indent, this.text(next));
      return null;
    }
    const c = rest[0]!;
    if (inSeq && (rest.startsWith('- ') || rest === '-')) throw UNSURE; // "- - x"
    if (inSeq && keyEnd(rest) >= 0) {
      // "- key: value": a mapping whose first line is this one, indented at `col`
      this.n--; // map() consumes the line itself
      return this.map(col, rest);
    }
    if (c === '|') return this.literal(parentIndent, rest);
    if (c === '[' || c === '{') return parseFlowLine(rest, this.depth);
    if (c === '"' || c === "'") {
      if (closingQuote(rest, 1, c) < 0) return this.quotedLines(parentIndent, rest);
      const [v, end] = readQuoted(rest, 0);
      expectEnd(rest, end);
      this.noContinuation(parentIndent);
      return v;
    }
    if (badPlainStart(rest)) throw UNSURE;
    const first = plainText(rest);
    if (first.length !== trimEndYaml(rest).length) {
      this.noContinuation(parentIndent); // a comment ends the scalar: a continuation would be an error
      return resolvePlain(first);
    }
    const more = this.plainContinuation(parentIndent);
    return more === undefined ? resolvePlain(first) : first + more; // a multi-line plain scalar is a string
  }

  /**
   * The folded rest of a plain scalar continued on more-indented lines (go-yaml writes long
   * strings so: CRDs' descriptions), or undefined when it does not continue. Lines that could
   * be anything else (`-`, `?`, `:` or `#` first, `: `, ` #`, tabs) are left to yaml.
   */
  plainContinuation(parentIndent: number): string | undefined {
    let out = '';
    let blank = 0;
    let k = this.n;
    let any = false;
    for (; k < this.count; k++) {
      if (this.blank(k)) {
        blank++;
        continue;
      }
      if (lineIndent[k]! <= parentIndent) break;
      const text = this.text(k);
      const t = trimEndYaml(text);
      // spaces and a tab: blank to yaml, content here; left to yaml
      if (t === '') throw UNSURE;
      // a continuation line may start with what a plain scalar may not (quotes, brackets: "in
      // use". in a description); an entry, key or comment indicator is left to yaml
      if (/^[-?:#]/.test(text)) throw UNSURE;
      if (t.includes(': ') || t.endsWith(':') || t.includes(' #') || t.includes('\t')) throw UNSURE;
      out += blank > 0 ? '\n'.repeat(blank) : ' ';
      out += t;
      blank = 0;
      any = true;
      this.n = k + 1;
    }
    return any ? out : undefined;
  }

  /**
   * A quoted scalar over several lines, whose first line is `rest` (controller-gen writes CRD
   * descriptions so: every CRD of a site came to yaml for them). Folded as YAML folds flow
   * scalars: each line's leading and trailing white space dropped, a line break between two
   * lines a space, each empty line between them a line break. Left to yaml: a tab in it, a line
   * at or left of the parent's column, an escaped line break, no closing quote.
   */
  quotedLines(parentIndent: number, rest: string): string {
    const q = rest[0]!;
    const piece = (t: string): string => {
      if (q === '"') {
        let bs = 0;
        for (let b = t.length - 1; b >= 0 && t[b] === '\\'; b--) bs++;
        if (bs % 2 === 1) throw UNSURE; // an escaped line break
      }
      return quotedContent(q, t);
    };
    if (rest.includes('\t')) throw UNSURE;
    let value = piece(trimEndYaml(rest.slice(1)));
    let blank = 0;
    for (let k = this.n; k < this.count; k++) {
      if (this.blank(k)) {
        blank++;
        continue;
      }
      if (lineIndent[k]! <= parentIndent) throw UNSURE;
      const text = this.text(k);
      if (text.includes('\t')) throw UNSURE;
      const end = closingQuote(text, 0, q);
      value += blank > 0 ? '\n'.repeat(blank) : ' ';
      blank = 0;
      if (end < 0) {
        value += piece(trimEndYaml(text));
        continue;
      }
      value += piece(text.slice(0, end));
      expectEnd(text, end + 1);
      this.n = k + 1;
      this.noContinuation(parentIndent);
      return value;
    }
    throw UNSURE;
  }

  /** A plain or quoted scalar may continue on more-indented lines; we leave that to yaml. */
  noContinuation(parentIndent: number): void {
    const next = this.n;
    if (next >= this.count) return;
    if (!this.skip(next) && lineIndent[next]! > parentIndent) throw UNSURE;
    if (this.blank(next)) {
      // blank lines followed by a more-indented line would also continue the scalar
      let k = next;
      while (k < this.count && this.skip(k)) k++;
      if (k < this.count && lineIndent[k]! > parentIndent) throw UNSURE;
    }
  }

  map(indent: number, firstText: string): Record<string, unknown> {
    this.enter();
    const v = this.#pairs(indent, firstText);
    this.depth--;
    return v;
  }

  #pairs(indent: number, firstText: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    let text = firstText;
    for (;;) {
      noTab(text);
      const ke = keyEnd(text);
      if (ke < 0) throw UNSURE;
      const key = readKey(text.slice(0, ke));
      if (Object.hasOwn(out, key)) throw UNSURE; // yaml reports duplicates
      // past the colon and the white space after it: one slice (not one per space)
      let at = ke + 1;
      for (let c = text.charCodeAt(at); c === 32 || c === 9; c = text.charCodeAt(at)) at++;
      const rest = text.slice(at);
      const col = indent + at;
      this.n++;
      out[key] = this.entryValue(indent, rest, col, false);
      this.skipBlank();
      const next = this.n;
      if (next >= this.count || lineIndent[next]! < indent) return out;
      if (lineIndent[next]! > indent) throw UNSURE;
      if (this.dash(next)) return out; // belongs to a parent
      text = this.text(next);
    }
  }

  /** A literal block scalar `|`, `|-` or `|+` (no explicit indentation indicator). */
  literal(parentIndent: number, header: string): string {
    let chomp = '';
    let h = header.slice(1);
    if (h[0] === '-' || h[0] === '+') {
      chomp = h[0];
      h = h.slice(1);
    }
    if (h !== '' && !/^ +(#.*)?$/.test(h)) throw UNSURE;
    const src = this.src;
    let k = this.n;
    // content indentation: the first non-blank line
    let contentIndent = -1;
    let maxLeadingBlank = 0;
    for (let j = k; j < this.count; j++) {
      if (this.blank(j)) {
        maxLeadingBlank = Math.max(maxLeadingBlank, lineIndent[j]!);
        continue;
      }
      if (src.charCodeAt(lineContent[j]!) === 9) throw UNSURE; // the content indentation would start with a tab
      contentIndent = lineIndent[j]!;
      break;
    }
    if (contentIndent <= parentIndent) throw UNSURE; // empty block scalar: rare, let yaml decide
    if (maxLeadingBlank > contentIndent) throw UNSURE;
    const parts: string[] = [];
    let ignored = 0;
    for (; k < this.count; k++) {
      const indent = lineIndent[k]!;
      // the line past the content indentation (spaces beyond it are content, on blank lines too)
      const past = lineContent[k]! - indent + contentIndent;
      if (this.blank(k)) {
        // indentation at the very end of the text, no line break after it: no line, for chomping
        // too (spaces past the content indentation are content, as yaml reads them)
        if (lineEnd[k] === src.length && indent <= contentIndent) {
          ignored++;
          continue;
        }
        parts.push(indent > contentIndent ? src.slice(past, lineEnd[k]!) : '');
        continue;
      }
      if (indent < contentIndent) {
        if (src.charCodeAt(lineContent[k]!) === 9) throw UNSURE; // white space that is not indentation
        break;
      }
      parts.push(src.slice(past, lineEnd[k]!));
    }
    // trailing empty lines only matter for chomping; the reader resumes after all of them
    let end = parts.length;
    while (end > 0 && parts[end - 1] === '') end--;
    const trailing = parts.length - end;
    this.n += parts.length + ignored;
    const body = parts.slice(0, end).join('\n');
    if (chomp === '-') return body;
    if (chomp === '+') return body + '\n' + '\n'.repeat(trailing);
    return body + '\n';
  }
}

/** Index of the ':' that ends a block mapping key in `text`, or -1 when the line is not `key:`. */
function keyEnd(text: string): number {
  const c = text[0];
  if (c === '"' || c === "'") {
    let end: number;
    try {
      end = readQuoted(text, 0)[1];
    } catch {
      return -1;
    }
    return text[end] === ':' && (end + 1 === text.length || text[end + 1] === ' ' || text[end + 1] === '\t') ? end : -1;
  }
  if (c === '#' || c === '[' || c === '{' || c === '?' || c === '&' || c === '*' || c === '!' || c === '|' || c === '>') return -1;
  // the first `key:` colon, then a space or a tab (YAML separates with either; kubectl writes tabs
  // from some tools) or the end; a comment (` #`) before it means no key. Found with indexOf, not
  // a loop over every character in the interpreter (a short run reads each line once)
  let colon = text.indexOf(':');
  for (; colon >= 0; colon = text.indexOf(':', colon + 1)) {
    const next = text.charCodeAt(colon + 1);
    if (colon + 1 === text.length || next === 32 || next === 9) break;
  }
  if (colon < 0) return -1;
  for (let hash = text.indexOf('#', 1); hash >= 0 && hash < colon; hash = text.indexOf('#', hash + 1)) {
    const before = text.charCodeAt(hash - 1);
    if (before === 32 || before === 9) return -1;
  }
  return colon;
}

function readKey(k: string): string {
  const c = k[0];
  if (c === '"' || c === "'") return readQuoted(k, 0)[0];
  const t = trimEndYaml(k);
  if (t.length > 1024) throw UNSURE; // YAML limits implicit keys to 1024 characters
  if (t === '<<' || t === '__proto__' || badPlainStart(t)) throw UNSURE;
  const v = resolvePlain(t);
  if (v === null) throw UNSURE; // a null key: the careful reader refuses it, as kubectl does
  return String(v);
}

/**
 * Parses one YAML document of the block subset. Returns `undefined` when unsure; the caller
 * then uses the `yaml` package.
 */
export function fastLoad(src: string): unknown {
  if (src.charCodeAt(0) === 0xfeff) src = src.slice(1); // a byte order mark is no content
  try {
    const r = new BlockReader(src, splitLines(src));
    r.skipBlank();
    if (r.n >= r.count) return null;
    const first = r.text(r.n);
    let v: unknown;
    if (first[0] === '{' || first[0] === '[') {
      v = parseFlowLine(first);
      r.n++;
    } else {
      v = r.node(lineIndent[r.n]!, first);
    }
    r.skipBlank();
    if (r.n < r.count) return undefined; // something left over that we did not understand
    return v;
  } catch (e) {
    if (e instanceof Unsure) return undefined;
    throw e;
  } finally {
    if (lineIndent.length > KEEP_LINES) releaseLines();
  }
}

/**
 * Parses one document with the fast reader, falling back to the careful reader (yaml-read.ts:
 * YAML 1.1 scalars, go-yaml's leniency, bounded depth and aliases). Throws YamlReadError.
 */
export function loadYaml(src: string): unknown {
  const v = fastLoad(src);
  if (v !== undefined) return v;
  return readYaml(src).value;
}
