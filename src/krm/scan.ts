/**
 * Splitting input into items without parsing them, so that untouched items are written back
 * byte for byte and a function only pays for parsing what it reads. Everything here is one
 * linear pass over offsets (no per-line arrays): a multi-document stream into documents, and a
 * list document (a ResourceList, or a `kind: List`) into its top-level sections and its items,
 * in block layout (kyaml's, or indented) or flow layout (`items: [...]`). Anything else returns
 * `undefined`; the caller then reads the document with the careful parser (resource-list.ts).
 */
import { balancedFrom, ContinuationScanner, hasBareCr } from './yaml-read.js';

// ---------- lines ----------

/** End of the line starting at `pos` (the index of its '\n', or text.length). */
function lineEnd(text: string, pos: number): number {
  const e = text.indexOf('\n', pos);
  return e < 0 ? text.length : e;
}

/** How many LFs `text` has before `offset` (native searches). */
export function countLines(text: string, offset: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * Lines before ascending offsets of one text (the items of a list, in order), each count going
 * on from the last: one walk of the text for all of them. countLines from the start for each item
 * made reading a list quadratic (a search for the first LF even scans a one-line text to its end).
 * An offset before the last one starts again from the top.
 */
export class LineCounter {
  /** characters searched for LFs by all counters: what tests count */
  static searched = 0;
  #offset = 0;
  #lines = 0;
  /** the last LF before #offset, -1 when there is none */
  #lastBreak = -1;
  /** the first LF at or after #offset, -1 when there is none */
  #next: number;

  constructor(private readonly text: string) {
    this.#next = this.#search(0);
  }

  #search(from: number): number {
    const at = this.text.indexOf('\n', from);
    LineCounter.searched += (at < 0 ? this.text.length : at + 1) - from;
    return at;
  }

  /** Where the line holding `offset` starts (after the last LF before it). */
  lineStart(offset: number): number {
    this.linesBefore(offset);
    return this.#lastBreak + 1;
  }

  /** The first LF at or after `offset`, -1 when there is none. */
  breakAfter(offset: number): number {
    this.linesBefore(offset);
    return this.#next;
  }

  /** How many LFs the text has before `offset` (countLines). */
  linesBefore(offset: number): number {
    if (offset < this.#offset) {
      this.#lines = 0;
      this.#lastBreak = -1;
      this.#next = this.#search(0);
    }
    this.#offset = offset;
    while (this.#next >= 0 && this.#next < offset) {
      this.#lines++;
      this.#lastBreak = this.#next;
      this.#next = this.#search(this.#next + 1);
    }
    return this.#lines;
  }
}

/** An LF, or a bare CR. */
const LINE_BREAK = /\r(?!\n)|\n/g;

/** End of the line starting at `pos` when a bare CR ends a line too (the index of its LF or CR, or text.length). */
function lineEndAnyBreak(text: string, pos: number): number {
  LINE_BREAK.lastIndex = pos;
  const m = LINE_BREAK.exec(text);
  return m ? m.index : text.length;
}

/**
 * How lines of `text` end: at an LF (CRLF included), or, when the text has bare CRs (old Mac
 * line ends, alone or mixed with others), at a bare CR too. One regular-expression scan decides,
 * so that LF text keeps the plain `indexOf` search.
 */
type LineEnds = (text: string, pos: number) => number;

function lineEndsOf(text: string): LineEnds {
  return hasBareCr(text) ? lineEndAnyBreak : lineEnd;
}

/** Whether a text ends a line (LF, CRLF or a bare CR), or is empty. */
export function endsLine(text: string): boolean {
  const c = text.charCodeAt(text.length - 1);
  return text === '' || c === 10 || c === 13;
}

function indentAt(text: string, pos: number): number {
  let i = pos;
  while (text.charCodeAt(i) === 32) i++;
  return i - pos;
}

/** Blank: only spaces, tabs and a CR before the line end. */
function isBlankLine(text: string, pos: number, end: number): boolean {
  for (let i = pos; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return true;
}

/** Blank, or a comment (its first non-white character is '#'). */
function isSkipLine(text: string, pos: number, end: number): boolean {
  for (let i = pos; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 35) return true;
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return true;
}

/** `---` or `...` at column 0, alone or followed by white space; `---#...` too (kubectl splits documents there). */
function isMarker(text: string, pos: number): boolean {
  const c = text.charCodeAt(pos);
  if (c !== 45 && c !== 46) return false;
  if (text.charCodeAt(pos + 1) !== c || text.charCodeAt(pos + 2) !== c) return false;
  const n = text.charCodeAt(pos + 3);
  return Number.isNaN(n) || n === 10 || n === 13 || n === 32 || n === 9 || (c === 45 && n === 35);
}

// ---------- streams ----------

interface StreamDoc {
  /** what stands before the document: `---` and `...` lines, comment-only documents, its own leading comments */
  lead: string;
  /** where the document's own leading comments start in `lead` */
  comments: number;
  /** the document verbatim, from its first line of content (or the `---` line's inline content) */
  body: string;
  /** offset of `body` in the text */
  offset: number;
  /** 1-based line of `body`'s first line in the text */
  line: number;
  /** the document follows a document end (`...`) with no `---` between (kubectl reads only the one before) */
  bare?: true;
}

/**
 * Splits a multi-document YAML stream into documents, verbatim: joining each document's lead
 * and body, then the tail, gives the text back. A line starting with `---` or `...` always ends
 * a document (YAML forbids either at column 0 inside one, even in a block scalar). A document
 * starts at its first line of content: comments above it are its lead, so that its line is
 * where its content is. Lines end where the readers end them: at an LF, and at a bare CR
 * (`\r---\r` separates old-Mac documents, as go-yaml reads them).
 */
export function splitDocuments(text: string): { docs: StreamDoc[]; tail: string } {
  const lineEndAt = lineEndsOf(text);
  const docs: StreamDoc[] = [];
  let lead = '';
  let start = 0;
  let content = -1; // offset of the current document's first line of content
  let contentLine = 0;
  let afterEnd = false; // the last marker was `...`
  let bare = false; // the current document started after `...` with no `---` between
  const close = (end: number): void => {
    if (content >= 0 && !isNullDocument(text, content, end)) {
      const comments = lead.length;
      const doc: StreamDoc = {
        lead: lead + text.slice(start, content),
        comments,
        body: text.slice(content, end),
        offset: content,
        line: contentLine,
      };
      if (bare) doc.bare = true;
      docs.push(doc);
      lead = '';
    } else lead += text.slice(start, end);
  };
  let pos = 0;
  let line = 1;
  if (text.charCodeAt(0) === 0xfeff) {
    lead = '\ufeff';
    start = pos = 1;
  }
  while (pos < text.length) {
    const end = lineEndAt(text, pos);
    const next = end + 1;
    if (isMarker(text, pos)) {
      close(pos);
      content = -1;
      afterEnd = text.charCodeAt(pos) === 46;
      // `---` followed by content on its line (`--- |`, `--- {a: 1}`): the document starts after `--- `
      if (text.charCodeAt(pos) === 45 && !isSkipLine(text, pos + 3, end)) {
        lead += text.slice(pos, pos + 4);
        start = content = pos + 4;
        contentLine = line;
      } else {
        lead += text.slice(pos, Math.min(next, text.length));
        start = next;
      }
    } else if (content < 0 && !isSkipLine(text, pos, end) && text.charCodeAt(pos) !== 37) {
      // `%` directives are no content
      content = pos;
      contentLine = line;
      bare = afterEnd;
    }
    pos = next;
    line++;
  }
  close(text.length);
  return { docs, tail: lead };
}

/**
 * A document that is only `null` (or `~`, `Null`, `NULL`) and comments: kubectl, kustomize and kpt
 * skip it as they skip an empty one (what a template that rendered nothing writes), so it is
 * no resource; kept with the text around it.
 */
function isNullDocument(text: string, start: number, end: number): boolean {
  const c = text.charCodeAt(start);
  return (c === 110 || c === 78 || c === 126) && NULL_DOCUMENT.test(text.slice(start, end)); // n N ~
}
const NULL_DOCUMENT = /^(?:null|Null|NULL|~)[ \t]*(?:#[^\n\r]*)?(?:(?:\r?\n|\r)[ \t]*(?:#[^\n\r]*)?)*$/;

/** Splits a multi-document YAML stream into its documents' text, each with its leading comments (comment-only documents dropped). */
export function splitStream(text: string): string[] {
  return splitDocuments(text).docs.map((d) => d.lead.slice(d.comments) + d.body);
}

// ---------- list documents: sections ----------

interface ListEntry {
  /** comment and blank lines before the entry (block), or white space and comments (flow) */
  lead: string;
  /** block: the entry verbatim, from its `-` line; flow: the item's text */
  raw: string;
  /** offset of `raw` in the text */
  offset: number;
  /** 1-based line of `raw`'s first line */
  line: number;
  /** names of aliases in the entry without an anchor in it (may over-match: the tokens may sit in strings) */
  foreignAliases?: string[];
}

export interface ScannedList {
  /** top-level sections (`apiVersion: ...`, `kind: ...`, `functionConfig:` ...) in order, verbatim */
  sections: { key: string; text: string }[];
  /** index of the `items` section in `sections` */
  itemsAt: number;
  /** how the items are written: block entries, a flow sequence, or none (`items: []`, `items:`) */
  style: 'block' | 'flow' | 'empty';
  /** the items section up to its first entry (block: the `items:` line and comments) */
  itemsHead: string;
  /** what stands before the `items:` line (comments) */
  itemsPreamble: string;
  entries: ListEntry[];
  /** the items section after its last entry (column-0 comments; the flow sequence's `]` and the rest of its line) */
  itemsTail: string;
  /** column of the entries' `-` (0 for kpt and kustomize) */
  seqIndent: number;
}

/** `key:` at column 0 (plain, or quoted without escapes), with the offset after the colon. */
const TOP_KEY = /^(?:([A-Za-z_][A-Za-z0-9_./-]*)|"([^"\\\n]*)"|'([^'\n]*)') *:(?=[ \t\r]|$)/;

function topKey(text: string, pos: number, end: number): { key: string; after: number } | undefined {
  const c = text.charCodeAt(pos);
  if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 34 || c === 39)) return undefined;
  const m = TOP_KEY.exec(text.slice(pos, end));
  if (!m) return undefined;
  return { key: m[1] ?? m[2] ?? m[3]!, after: pos + m[0].length };
}

/** Start of the run of column-0 comments (and blank lines between them) that ends right before `pos`. */
function commentRunStart(text: string, from: number, pos: number, starts: number[], eol: LineEnds): number {
  let start = pos;
  for (let k = starts.length - 1; k >= 0; k--) {
    const s = starts[k]!;
    if (s < from) break;
    const end = eol(text, s);
    if (text.charCodeAt(s) === 35) start = s;
    else if (!isBlankLine(text, s, end)) break;
  }
  return start;
}

/**
 * Splits a list document (one YAML document: a block mapping at column 0 with an `items`
 * sequence) into sections and entries. `undefined` when the layout is anything else. Lines
 * end at an LF, and at a bare CR too (as in splitDocuments).
 */
export function scanList(text: string, baseLine = 1): ScannedList | undefined {
  const eol = lineEndsOf(text);
  const sections: { key: string; start: number; end: number }[] = [];
  let items: ItemsScan | undefined;
  let pos = 0;
  let line = baseLine;
  let sectionStart = 0;
  let current: { key: string; start: number; scanner: ContinuationScanner } | undefined;
  let skipStarts: number[] = []; // skip lines since the last content line of the current section
  while (pos < text.length) {
    const end = eol(text, pos);
    const c = text.charCodeAt(pos);
    const open = current?.scanner.continuationIndent() !== undefined;
    if (!open && c !== 32 && c !== 9 && !isSkipLine(text, pos, end) && !(c === 45 && current && isDashLine(text, pos, end))) {
      // a top-level key starts a section; column-0 comments just before it belong to it
      const k = topKey(text, pos, end);
      if (!k) return undefined;
      const start = current ? commentRunStart(text, sectionStart, pos, skipStarts, eol) : sectionStart;
      if (current) sections.push({ key: current.key, start: current.start, end: start });
      sectionStart = start;
      skipStarts = [];
      if (k.key === 'items') {
        if (items) return undefined;
        items = scanItems(text, pos, k.after, line, keepChompAt(text), eol);
        if (!items) return undefined;
        current = undefined;
        sections.push({ key: 'items', start, end: items.end });
        pos = items.end;
        line = items.endLine;
        sectionStart = items.end;
        continue;
      }
      current = { key: k.key, start, scanner: new ContinuationScanner() };
      current.scanner.line(text.slice(k.after, end));
    } else if (!current) {
      // before the first key, or right after the items: comments and blank lines only
      if (!isSkipLine(text, pos, end)) return undefined;
      skipStarts.push(pos);
    } else {
      if (isSkipLine(text, pos, end)) skipStarts.push(pos);
      else skipStarts = [];
      current.scanner.line(text.slice(pos, end));
    }
    pos = end + 1;
    line++;
  }
  if (current) sections.push({ key: current.key, start: current.start, end: text.length });
  if (!items) return undefined;
  // text after the items with no section to hold it (comments at the end) joins the items section
  const last = sections[sections.length - 1]!;
  if (last.end < text.length) last.end = text.length;
  if (sections[0]!.start > 0) sections[0]!.start = 0;
  const keys = new Set(sections.map((s) => s.key));
  if (keys.size !== sections.length) return undefined; // duplicate keys: the careful reader reports them
  const itemsAt = sections.findIndex((s) => s.key === 'items');
  const sec = sections[itemsAt]!;
  const itemsHead = text.slice(sec.start, items.headEnd);
  const itemsPreamble = text.slice(sec.start, items.keyPos);
  const itemsTail = text.slice(items.tailStart, sec.end);
  markForeignAliases(text, items.entries);
  return {
    sections: sections.map((s) => ({ key: s.key, text: text.slice(s.start, s.end) })),
    itemsAt,
    style: items.style,
    itemsHead,
    itemsPreamble,
    entries: items.entries,
    itemsTail,
    seqIndent: items.seqIndent,
  };
}

function isDashLine(text: string, pos: number, end: number): boolean {
  const n = text.charCodeAt(pos + 1);
  return text.charCodeAt(pos) === 45 && (pos + 1 >= end || n === 32 || n === 13 || n === 9);
}

// ---------- list documents: items ----------

/** A quote or a bracket: what may open a string or flow collection that goes on past its line. */
const OPENERS = ['"', "'", '[', '{'];

/**
 * For entries in order: whether the text `[start, end)` ends inside a quoted string or flow
 * collection. Only a quote or bracket that starts a value can open one, and a line that
 * balances its quotes and brackets from there does not (`index: '0'`): the common entry is
 * decided by one forward search for such characters, shared by all entries (linear in the
 * list). An entry with a line unbalanced from there (`x: 'it''s`, `"a\"b"`, `args: [a,`) is
 * read line by line from its start, as the section scanner reads (block scalars, comments and
 * plain scalars known).
 */
function openAtEnd(text: string, eol: LineEnds): (start: number, end: number) => boolean {
  // by opener: its next offset at or after the last search's start (-1: none left, -2: not
  // searched); each search starts past the last one found: every character searched once
  const next = [-2, -2, -2, -2];
  const opener = (from: number): number => {
    let first = -1;
    for (let k = 0; k < 4; k++) {
      let at = next[k]!;
      if (at !== -1 && at < from) at = next[k] = text.indexOf(OPENERS[k]!, from);
      if (at >= 0 && (first < 0 || at < first)) first = at;
    }
    return first;
  };
  return (start, end) => {
    for (let at = opener(start); at >= 0 && at < end; ) {
      // only a value's first character opens (`x: "`, `- [`, `!!str '`); inside a plain scalar
      // (`ENC[AES256_GCM,...]`, `it's`) a quote or bracket is text
      const before = text.charCodeAt(at - 1);
      if (at > start && before !== 32 && before !== 9 && before !== 10 && before !== 13) {
        at = opener(at + 1);
        continue;
      }
      const lineStop = eol(text, at);
      if (!balancedFrom(text, at, lineStop)) return endsOpen(text, start, end, eol);
      at = opener(lineStop);
    }
    return false;
  };
}

/** Whether `[start, end)` read line by line leaves a quoted string or flow collection open. */
function endsOpen(text: string, start: number, end: number, eol: LineEnds): boolean {
  const scanner = new ContinuationScanner();
  for (let pos = start; pos < end; ) {
    const stop = Math.min(eol(text, pos), end);
    scanner.line(text.slice(pos, stop));
    pos = stop + 1;
  }
  return scanner.continuationIndent() !== undefined;
}

interface ItemsScan {
  style: 'block' | 'flow' | 'empty';
  entries: ListEntry[];
  /** end of the items section (start of the next top-level key's comment run, or the text end) */
  end: number;
  endLine: number;
  headEnd: number;
  tailStart: number;
  seqIndent: number;
  /** offset of the `items:` line */
  keyPos: number;
}

/** The items section whose `items:` line starts at `keyPos`; `after` is the offset after the colon. */
function scanItems(text: string, keyPos: number, after: number, keyLine: number, keep: number[], eol: LineEnds): ItemsScan | undefined {
  const end = eol(text, keyPos);
  let v = after;
  while (text.charCodeAt(v) === 32 || text.charCodeAt(v) === 9) v++;
  const c = text.charCodeAt(v);
  let scan: Omit<ItemsScan, 'keyPos'> | undefined;
  if (v >= end || c === 35 || c === 13 || /^(?:null|Null|NULL|~)[ \t\r]*(?:#.*)?$/.test(text.slice(v, end)))
    scan = scanBlockItems(text, Math.min(end + 1, text.length), keyLine + 1, keep, eol);
  else if (c === 91) scan = scanFlowItems(text, v, keyLine, eol); // [
  // else an anchor, a tag, a scalar: the careful reader decides
  return scan && { ...scan, keyPos };
}

/**
 * Offsets of every possible keep-chomping block scalar header (`|+`, `>2+` ...), in order: where
 * /[|>][0-9]?\+/g matches. Found from each `+` (native search; most inputs have few or none).
 */
function keepChompAt(text: string): number[] {
  const out: number[] = [];
  for (let i = text.indexOf('+'); i >= 0; i = text.indexOf('+', i + 1)) {
    const c = text.charCodeAt(i - 1);
    if (c === 124 || c === 62)
      out.push(i - 1); // |+ >+
    else if (c >= 48 && c <= 57 && (text.charCodeAt(i - 2) === 124 || text.charCodeAt(i - 2) === 62)) out.push(i - 2); // |2+
  }
  return out;
}

/** Whether a line of an entry is a block scalar header with keep chomping (`|+`): its trailing blank lines are content. */
const KEEP_CHOMP = /(?:^|[\s:-])[|>][0-9]?\+[0-9]?\s*(?:#.*)?$/;

/**
 * Block entries from `start`: each begins at a `-` at the first entry's column; comment lines
 * no deeper than an entry's keys and blank lines at the end of an entry go to the next entry's
 * lead (deeper ones, and blank lines after a keep-chomping block scalar, may be content and
 * stay); column-0 comments after the last entry are the section's tail.
 */
function scanBlockItems(
  text: string,
  start: number,
  startLine: number,
  keepAt: number[],
  eol: LineEnds,
): Omit<ItemsScan, 'keyPos'> | undefined {
  const entries: ListEntry[] = [];
  let seqIndent = -1;
  let pos = start;
  let line = startLine;
  let cur: { start: number; line: number; leadStart: number } | undefined;
  const leadStart = start;
  let movable = -1; // start of the entry's trailing lines that move to the next lead
  let col0 = -1; // start of the entry's trailing column-0 comment lines
  let keep = false;
  let k = 0; // next keep-chomp candidate
  const keepOn = (from: number, end: number): boolean => {
    while (k < keepAt.length && keepAt[k]! < from) k++;
    return k < keepAt.length && keepAt[k]! < end && KEEP_CHOMP.test(text.slice(from, end));
  };
  const continuesPast = openAtEnd(text, eol);
  const close = (to: number): void => {
    if (!cur) return;
    entries.push({ lead: text.slice(cur.leadStart, cur.start), raw: text.slice(cur.start, to), offset: cur.start, line: cur.line });
  };
  for (; pos < text.length; line++) {
    const end = eol(text, pos);
    const next = Math.min(end + 1, text.length);
    // the indentation and the blank test in one pass over the line's start, here rather than in
    // small helpers called for every line: V8 optimises a small function as soon as its calls
    // have run ~66 KB of bytecode (a few hundred lines), and that compilation costs a short run
    // more than all its lines (~200 page faults, ~10 ms of CPU)
    let at = pos;
    while (text.charCodeAt(at) === 32) at++;
    const ind = at - pos;
    const c = text.charCodeAt(at);
    if (at >= end || ((c === 9 || c === 13) && isBlankLine(text, at, end))) {
      if (cur && movable < 0 && !keep) movable = pos;
      col0 = -1;
      pos = next;
      continue;
    }
    if (c === 35) {
      // a comment
      if (cur && ind <= seqIndent + 2) {
        if (movable < 0) movable = pos;
      } else if (cur) movable = -1;
      if (ind === 0) {
        if (col0 < 0) col0 = pos;
      } else col0 = -1;
      pos = next;
      continue;
    }
    const dash = c === 45 && isDashLine(text, pos + ind, end);
    if (seqIndent < 0) {
      if (!dash) break; // `items:` followed by a key or a mapping: not a list
      seqIndent = ind;
    }
    if (dash && ind === seqIndent) {
      const to = movable >= 0 ? movable : pos;
      // the entry ends at its last line of content, unless its last value is a quoted string or
      // flow collection still open there: go-yaml (kpt, kubectl) reads the lines after it (a `- `
      // line, a `#` line, at any indentation) as more of that value; the careful reader reads it so
      if (cur && continuesPast(cur.start, to)) return undefined;
      close(to);
      cur = { start: pos, line, leadStart: cur ? to : leadStart };
      movable = -1;
      col0 = -1;
      keep = keepOn(pos, end);
      pos = next;
      continue;
    }
    if (ind === 0) break; // a top-level key
    if (!cur) return undefined;
    if (!keep && keepOn(pos, end)) keep = true;
    movable = -1;
    col0 = -1;
    pos = next;
  }
  // the last entry ends before its trailing column-0 comments (they belong to what follows),
  // unless it is open there (a `key:` or `#` line at column 0 is then more of its value; open at
  // the end of the text, it is unreadable alone as in the list: its own error says where)
  const entryEnd = col0 >= 0 ? col0 : pos;
  if (cur && entryEnd < text.length && continuesPast(cur.start, entryEnd)) return undefined;
  if (cur) close(entryEnd);
  const first = entries[0];
  return {
    style: first ? 'block' : 'empty',
    entries,
    end: pos,
    endLine: line,
    headEnd: first ? first.offset - first.lead.length : start,
    tailStart: cur ? entryEnd : start,
    seqIndent: Math.max(0, seqIndent),
  };
}

/** Items of a flow sequence `[a, {b: c}, ...]` starting at `open`, split at top-level commas. */
function scanFlowItems(text: string, open: number, openLine: number, eol: LineEnds): Omit<ItemsScan, 'keyPos'> | undefined {
  const entries: ListEntry[] = [];
  let depth = 0;
  let line = openLine;
  let itemStart = -1;
  let itemLine = 0;
  let leadStart = open + 1;
  let lastEnd = -1; // end of the current item's last token
  let prev = 91; // the last significant character
  const push = (): void => {
    if (itemStart < 0) return;
    entries.push({ lead: text.slice(leadStart, itemStart), raw: text.slice(itemStart, lastEnd), offset: itemStart, line: itemLine });
  };
  let i = open;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) {
      line++; // an LF, or a bare CR
      continue;
    }
    if (c === 32 || c === 9 || c === 13) continue;
    if (c === 35 && /[\s[,]/.test(text[i - 1] ?? ' ')) {
      i = eol(text, i) - 1; // a comment
      continue;
    }
    if (depth === 1 && itemStart < 0 && c !== 44 && c !== 93) {
      itemStart = i;
      itemLine = line;
    }
    const tokenStart = prev === 91 || prev === 123 || prev === 44 || prev === 58;
    prev = c;
    if ((c === 34 || c === 39) && tokenStart) {
      const close = closeQuoteAt(text, i);
      if (close < 0) return undefined;
      for (let k = i; k < close; k++) if (text.charCodeAt(k) === 10 || (text.charCodeAt(k) === 13 && text.charCodeAt(k + 1) !== 10)) line++;
      i = close - 1;
      lastEnd = close;
      continue;
    }
    if (c === 91 || c === 123) depth++;
    else if (c === 93 || c === 125) {
      depth--;
      if (depth === 0) {
        push();
        break;
      }
    } else if (c === 44 && depth === 1) {
      if (itemStart < 0) return undefined; // an empty entry: the careful reader reports it
      push();
      itemStart = -1;
      leadStart = i + 1;
      continue;
    }
    lastEnd = i + 1;
  }
  if (depth !== 0) return undefined;
  const close = i; // the `]`
  const end = eol(text, close);
  if (!isSkipLine(text, close + 1, end)) return undefined; // more on the `]` line
  const after = Math.min(end + 1, text.length);
  return {
    style: entries.length ? 'flow' : 'empty',
    entries,
    end: after,
    endLine: line + 1,
    headEnd: open,
    tailStart: after,
    seqIndent: 0,
  };
}

/** Offset after the quote closing the string that opens at `open`, or -1. */
function closeQuoteAt(text: string, open: number): number {
  const q = text.charCodeAt(open);
  for (let i = open + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (q === 34 && c === 92) {
      i++;
      continue;
    }
    if (c === q) {
      if (q === 39 && text.charCodeAt(i + 1) === 39) {
        i++;
        continue;
      }
      return i + 1;
    }
  }
  return -1;
}

// ---------- aliases across entries ----------

/** `*name` or `&name` where YAML could read an alias or anchor (conservative: may over-match). */
const ANCHOR_OR_ALIAS_G = /(?:^|[\s[{,:-])([&*])([^\s,[\]{}]+)/g;

/** Whether a text has alias tokens (`*name` where YAML could read an alias; may over-match). */
export function hasAliasTokens(text: string): boolean {
  return text.includes('*') && /(?:^|[\s[{,:-])\*[^\s,[\]{}]/.test(text);
}

/**
 * Whether an item's text could be hostile to a reader: aliases (an alias bomb), indentation or
 * runs of `[`, `{` or `- ` deep enough to near the nesting limit. Such items are read whole at
 * input, so that every function reports them, not only one that reads them. Cheap; may over-match.
 */
export function readWholeAtInput(text: string): boolean {
  // three tests, each behind a cheap substring check: one regex with the three alternatives
  // tried a match at every space of the text (~3 µs on a BareMetalHost, 10% of a pass-through)
  return (
    hasAliasTokens(text) ||
    text.includes(DEEP_INDENT) ||
    ((text.includes('[') || text.includes('{')) && DEEP_FLOW.test(text)) ||
    (DASH_SPACE_DASH.test(text) && DEEP_DASHES.test(text))
  );
}
const DEEP_INDENT = ' '.repeat(200);
const DEEP_FLOW = /(?:[[{][^[\]{}\n]{0,64}){32}/;
const DASH_SPACE_DASH = /- +-/;
const DEEP_DASHES = /(?:- +){32}/;

/**
 * Marks the entries that use an alias without an anchor of that name in the entry: they may
 * need the rest of the list to be read (and must not be written alone after what holds the
 * anchor changed). One pass over the text; nothing to do in the usual list without `*`.
 */
function markForeignAliases(text: string, entries: ListEntry[]): void {
  if (entries.length === 0 || !text.includes('*')) return;
  let k = 0;
  let anchors = new Set<string>();
  let aliases: string[] = [];
  const flush = (): void => {
    const foreign = aliases.filter((a) => !anchors.has(a));
    if (foreign.length) entries[k]!.foreignAliases = foreign;
    anchors = new Set();
    aliases = [];
  };
  for (const m of text.matchAll(ANCHOR_OR_ALIAS_G)) {
    const at = m.index + m[0].length - m[2]!.length - 1;
    while (k < entries.length && at >= entries[k]!.offset + entries[k]!.raw.length) {
      flush();
      k++;
    }
    if (k >= entries.length) break;
    if (at < entries[k]!.offset) continue;
    if (m[1] === '&') anchors.add(m[2]!);
    else aliases.push(m[2]!);
  }
  if (k < entries.length) flush();
}

// ---------- entries as documents ----------

/** The entry's text as a standalone YAML document (its `- ` and indentation removed; lines end at LF, bare CRs made LF). */
export function dedentItem(raw: string, seqIndent: number): string {
  const cut = seqIndent + 2;
  if (raw === '' || hasBareCr(raw)) return dedentLines(raw, cut);
  // what dedentLines does, in two slices and one replace (no string per line, no loop over the
  // lines in the interpreter): the first line loses its `- `, each other line `cut` spaces, or
  // else its leading white space (a blank line, or a comment indented less than the entry)
  const nl = raw.indexOf('\n');
  const firstEnd = nl < 0 ? raw.length : nl;
  const first = firstEnd >= cut ? raw.slice(cut, firstEnd) : raw.slice(0, firstEnd).trimStart();
  if (nl < 0) return first + '\n';
  const rest = raw.slice(nl).replace((DEDENT_BREAK[cut] ??= new RegExp(`\\n(?: {${cut}}|[^\\S\\n]*)`, 'g')), '\n');
  return raw.charCodeAt(raw.length - 1) === 10 ? first + rest : first + rest + '\n';
}

/** By cut: a line break with the next line's first `cut` spaces, or else all its leading white space (what trimStart drops). */
const DEDENT_BREAK: RegExp[] = [];

/** dedentItem line by line: any text, lines ending at an LF or a bare CR. */
export function dedentLines(raw: string, cut: number): string {
  const eol = lineEndsOf(raw);
  let out = '';
  let pos = 0;
  let first = true;
  while (pos < raw.length) {
    const end = eol(raw, pos);
    const l = raw.slice(pos, end);
    if (end - pos >= cut && (first || indentAt(raw, pos) >= cut)) out += l.slice(cut) + '\n';
    else out += l.trimStart() + '\n'; // blank, or a comment indented less than the entry
    first = false;
    pos = end + 1;
  }
  return out;
}

/** The break of a line followed by a line that is not empty: an LF, or a bare CR (a CR before an LF is half of a CRLF). */
const LINE_STARTS = /[\r\n](?=[^\n])/g;

/** Inverse of `dedentItem`: the document as an entry of a block sequence at `seqIndent`. */
export function indentItem(body: string, seqIndent: number): string {
  if (body === '') return ' '.repeat(seqIndent) + '-\n';
  const text = endsLine(body) ? body : body + '\n';
  // one pass, one flat string (no rope of a few pieces per line to flatten when written): every
  // line but the first indented past the `- `, empty lines left empty (a bare CR ends a line too)
  const pad = ' '.repeat(seqIndent + 2);
  return ' '.repeat(seqIndent) + '- ' + text.replace(LINE_STARTS, (br) => br + pad);
}

/**
 * Where the header of an item ends: the offset after its leading top-level `apiVersion`,
 * `kind` and `metadata` sections (an entry: `col` = seqIndent + 2, first line after `- `; a
 * document: `col` = 0). The fast reader then reads that prefix of the item's own text, so
 * that what the header holds costs no copy. `undefined` when a header key comes after another
 * key, or a top-level line is not a plain `key:` line: the whole item is read then.
 */
export function headerEnd(raw: string, col: number): number | undefined {
  let end = -1;
  let pos = 0;
  const shallow = shallowLineBreak(col);
  for (let first = true; pos < raw.length; first = false) {
    const lineStop = lineEnd(raw, pos);
    let top: boolean;
    if (first && col > 0) {
      // `<seqIndent spaces>- key: ...`
      if (raw.charCodeAt(pos + col - 2) !== 45 || raw.charCodeAt(pos + col - 1) !== 32 || raw.charCodeAt(pos + col) === 32)
        return undefined;
      top = true;
    } else if (isSkipLine(raw, pos, lineStop)) top = false;
    else {
      const ind = indentAt(raw, pos);
      if (ind < col) return undefined;
      top = ind === col;
    }
    if (top) {
      const c = raw.charCodeAt(pos + col);
      // a quoted key or `kind :` may be a header key too: leave such items to the full parser
      if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95)) return undefined;
      const keyStop = headerLineKeyEnd(raw, pos + col, Math.min(lineStop, pos + col + 64));
      if (keyStop < 0) return undefined;
      const header = isHeaderKey(raw, pos + col, keyStop);
      if (header && end >= 0) return undefined;
      if (!header && end < 0) end = pos;
    }
    // on to the next line indented `col` or less (one search, in the regular-expression engine):
    // the lines between are inside a top-level value, nothing to look at
    shallow.lastIndex = lineStop;
    if (!shallow.test(raw)) break;
    pos = shallow.lastIndex;
  }
  return end < 0 ? raw.length : end;
}

/**
 * A top-level `key:` line of an item (headerEnd), within `[start, stop)`: `[A-Za-z_][A-Za-z0-9_./-]*`,
 * then `:` and a space, a CR or `stop`. Returns where the key ends, or -1. Written out, not a
 * regular expression on a slice of the line: headerEnd meets every top-level line of every item,
 * and a match array with its slices per line was ~5% of all intent-validate allocated at 20k objects.
 */
function headerLineKeyEnd(raw: string, start: number, stop: number): number {
  let i = start;
  for (; i < stop; i++) {
    const c = raw.charCodeAt(i);
    const word = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
    if (!(word || (i > start && ((c >= 48 && c <= 57) || c === 46 || c === 47 || c === 45)))) break;
  }
  if (i === start || i >= stop || raw.charCodeAt(i) !== 58) return -1;
  const after = i + 1 < stop ? raw.charCodeAt(i + 1) : -1;
  return after === -1 || after === 32 || after === 13 ? i : -1;
}

/** Whether `raw[start, end)` is `apiVersion`, `kind` or `metadata` (no slice made). */
function isHeaderKey(raw: string, start: number, end: number): boolean {
  const n = end - start;
  return (
    (n === 10 && raw.startsWith('apiVersion', start)) ||
    (n === 4 && raw.startsWith('kind', start)) ||
    (n === 8 && raw.startsWith('metadata', start))
  );
}

/** By column: a line break whose next line is indented that many spaces or less (headerEnd's top-level lines). */
const SHALLOW_LINE_BREAK: RegExp[] = [];
function shallowLineBreak(col: number): RegExp {
  return (SHALLOW_LINE_BREAK[col] ??= new RegExp(`\\n(?! {${col + 1}})`, 'g'));
}
