/**
 * Reading and writing function input: a `config.kubernetes.io/v1` ResourceList (YAML or JSON)
 * or, for people piping files in, a plain multi-document YAML stream, in which `kind: List`
 * documents (what `kubectl get -o yaml` writes) are unwrapped into their items as kpt and
 * kustomize do. Every byte the function leaves alone is written back as it came: the input is
 * split into items first (scan.ts, json-scan.ts) and items are parsed only when read. Output
 * is a list of text chunks (slices of the input where nothing changed).
 */
import { isRecord } from './data.js';
import { plainYamlItems } from './emit.js';
import { type DuplicateKey, type JsonObjectScan, memberValue, scanJsonObject } from './json-scan.js';
import { escapeNotPrintable } from './printable.js';
import { EMIT_OPTIONS, KrmError, KubeObject } from './kube-object.js';
import { typeOf } from './header.js';
import { yamlLib } from './lazy.js';
import type { Result } from './results.js';
import {
  countLines,
  dedentItem,
  endsLine,
  hasAliasTokens,
  LineCounter,
  readWholeAtInput,
  type ScannedList,
  scanList,
  splitDocuments,
} from './scan.js';
import { composeDocument, composedData, duplicateKeyDetail, lineCol, YamlReadError } from './yaml-read.js';
import { pushAll } from './data.js';

type InputFormat = 'list' | 'json' | 'stream';

/** A list document of the input (a ResourceList, or a `kind: List` in a stream) and how to write it back. */
interface ListDoc {
  kind: string;
  items: KubeObject[];
  functionConfig?: KubeObject;
  /** writes the document with `items` (and, for a ResourceList, `results`) */
  write(items: KubeObject[], results: Result[] | undefined, out: Output): void;
}

/** Output text made only when it is written (the results of a run: a piece per result). */
export class LazyText {
  constructor(readonly pieces: () => Iterable<string>) {}
}

/** A piece of output: text, or text made when written. */
export type OutputChunk = string | LazyText;

/** The output as one string. */
export function joinChunks(chunks: readonly OutputChunk[]): string {
  const parts: string[] = [];
  for (const c of chunks) {
    if (typeof c === 'string') parts.push(c);
    else for (const p of c.pieces()) parts.push(p);
  }
  return parts.join('');
}

/** `results:` and the results, written when the output is (the list as it is now). */
function resultsChunks(results: readonly Result[], before = ''): OutputChunk[] {
  const list = results.slice();
  return [`${before}results:\n`, new LazyText(() => plainYamlItems(list))];
}

interface Output {
  chunks: OutputChunk[];
  /** info about items that had to be written from their data */
  notes: { message: string; object: KubeObject }[];
}

export interface ParsedInput {
  format: InputFormat;
  items: KubeObject[];
  functionConfig?: KubeObject;
  /** info about how the input was read (non-standard constructs accepted) */
  notes: string[];
  /** how to write the input back */
  layout: Layout;
}

type Layout =
  | { kind: 'list'; list: ListDoc; lead: string; tail: string }
  | { kind: 'stream'; units: (KubeObject | ListDoc)[]; tail: string };

const NO_ITEMS = 'the ResourceList has no `items` field: expected `items:` with a list of resources (or `items: []`)';

/** A ResourceList whose items are missing, or something else than a list (`items: 5`). */
function itemsError(items: unknown): KrmError {
  if (items === undefined) return new KrmError(NO_ITEMS);
  return new KrmError(
    `the ResourceList's items is ${typeOf(items, false)}, not a list: expected \`items:\` with a list of resources (or \`items: []\`)`,
  );
}

/**
 * A section that holds a value but not a mapping (`functionConfig: [1]`): refused, not ignored
 * (the function would run with its defaults, as if it had been given none).
 */
function notMapping(key: string, v: unknown): KrmError | undefined {
  if (v === undefined || v === null || isRecord(v)) return undefined;
  return new KrmError(
    `${key} is ${typeOf(v, false)}, not a mapping: write the function's configuration (apiVersion, kind, spec) under ${key}:`,
  );
}

function inputError(e: unknown, what: string): KrmError {
  if (e instanceof KrmError) return e;
  if (e instanceof YamlReadError)
    return new KrmError(`${what} is not valid YAML${e.line !== undefined ? ` at line ${e.line}, column ${e.col}` : ''}: ${e.detail}`);
  throw e;
}

// ---------- YAML list documents ----------

/** The value of a `key: value` section (kind, apiVersion), quotes removed. */
function sectionValue(text: string): string | undefined {
  const m = /^(?:[A-Za-z]+|"[A-Za-z]+"|'[A-Za-z]+') *:[ \t]*(.*?)[ \t\r]*(?:#.*)?$/m.exec(text);
  if (!m) return undefined;
  return m[1]!.replace(/^(['"])(.*)\1$/, '$2');
}

/** The functionConfig section (`functionConfig:` and its block, or a flow mapping) as an item. */
function sectionObject(text: string, key: string): KubeObject | undefined {
  const at = text.search(new RegExp(`^${key} *:`, 'm'));
  const lineEnd = text.indexOf('\n', at);
  const first = text.slice(at, lineEnd < 0 ? text.length : lineEnd);
  const inline = first.slice(first.indexOf(':') + 1).trim();
  if (inline !== '' && !inline.startsWith('#')) {
    // flow style, possibly over several lines: read the section itself
    let v: unknown;
    try {
      v = (composedOf(text.slice(at)) as Record<string, unknown> | null)?.[key];
    } catch (e) {
      throw inputError(e, key);
    }
    const wrong = notMapping(key, v);
    if (wrong) throw wrong;
    return isRecord(v) && Object.keys(v).length > 0 ? KubeObject.fromData(v) : undefined;
  }
  const block = lineEnd < 0 ? '' : text.slice(lineEnd + 1);
  const ind = /^( *)\S/m.exec(block)?.[1]?.length ?? 0;
  const body = block
    .split('\n')
    .map((l) => (l.startsWith(' '.repeat(ind)) ? l.slice(ind) : l.trimStart()))
    .join('\n');
  if (body.trim() === '') return undefined;
  const o = KubeObject.fromDocument(body);
  o.where = key;
  return o;
}

function composedOf(text: string): unknown {
  const { doc, text: read } = composeDocument(text);
  return doc ? composedData(read, doc) : null;
}

/** A list document in block or flow layout, split by lines (scan.ts). */
function scannedList(text: string, scanned: ScannedList, kind: string, baseLine: number): ListDoc {
  const items = scanned.entries.map((e, i) => {
    const o =
      scanned.style === 'flow' ? KubeObject.fromNode(e.raw, 'flow', e.lead) : KubeObject.fromListEntry(e.raw, scanned.seqIndent, e.lead);
    o.listIndex = i;
    o.inputLine = baseLine + e.line - 1;
    if (e.foreignAliases) o.foreignAliases = e.foreignAliases;
    o.readWhole = readWholeAtInput(e.raw);
    return o;
  });
  // the layout without the entries: the entries' records are not kept once they are items
  const { entries: _, ...layout } = scanned;
  const doc: ListDoc = {
    kind,
    items,
    write: (out, results, o) => writeScannedList(doc, layout, out, results, o),
  };
  for (const o of items) o.container = doc;
  // aliases whose anchors are in other items: such an item is read within the whole list
  let whole: unknown[] | undefined;
  const context = (i: number) => (): unknown => {
    whole ??= (composedOf(text) as { items?: unknown[] }).items ?? [];
    return whole[i];
  };
  items.forEach((o, i) => {
    if (o.foreignAliases) o.context = context(i);
  });
  if (kind === 'ResourceList') {
    const fc = scanned.sections.find((s) => s.key === 'functionConfig');
    if (fc) doc.functionConfig = sectionObject(fc.text, 'functionConfig');
  }
  return doc;
}

/** How a scanned list is written back: its sections and the layout of its items, not the entries. */
type ListLayout = Omit<ScannedList, 'entries'>;

function writeScannedList(doc: ListDoc, scanned: ListLayout, items: KubeObject[], results: Result[] | undefined, out: Output): void {
  const resultsToo = doc.kind === 'ResourceList';
  const sections = scanned.sections;
  for (let s = 0; s < sections.length; s++) {
    const sec = sections[s]!;
    // the functionConfig is not echoed: the KRM function spec does not ask for it, orchestrators
    // drop it, and it may carry credentials (a BMC address with user info, a token in an annotation)
    if ((sec.key === 'results' || sec.key === 'functionConfig') && resultsToo) {
      out.chunks.push(leadingComments(sec.text)); // the comments above it are not its own
      continue;
    }
    if (s === scanned.itemsAt) writeBlockItems(doc, scanned, items, out);
    else out.chunks.push(sec.text);
    if (!endsLine(sec.text) && s < sections.length - 1) out.chunks.push('\n');
  }
  if (resultsToo && results?.length) {
    if (!endsWithNewline(out.chunks)) out.chunks.push('\n');
    pushAll(out.chunks, resultsChunks(results));
  }
}

/** The comment and blank lines a section's text starts with (scan.ts gives them to the key below; a bare CR ends a line too). */
function leadingComments(text: string): string {
  return /^(?:[ \t]*(?:#[^\n\r]*)?(?:\r\n|\r|\n))*/.exec(text)![0];
}

/** Whether the text written so far ends a line (or nothing was written). */
function endsWithNewline(chunks: readonly OutputChunk[]): boolean {
  for (let i = chunks.length - 1; i >= 0; i--) {
    const c = chunks[i]!;
    if (typeof c !== 'string') return true; // results: each ends a line
    if (c !== '') return endsLine(c);
  }
  return true;
}

function writeBlockItems(doc: ListDoc, scanned: ListLayout, items: KubeObject[], out: Output): void {
  const intact = items.length === doc.items.length && items.every((o, i) => o === doc.items[i] && !o.changed);
  if (intact) {
    out.chunks.push(scanned.sections[scanned.itemsAt]!.text);
    return;
  }
  const block = scanned.style === 'block' || (scanned.style === 'empty' && scanned.itemsHead !== '' && endsLine(scanned.itemsHead));
  const tail = scanned.style === 'flow' ? '' : scanned.itemsTail;
  if (items.length === 0) {
    out.chunks.push(scanned.itemsPreamble + 'items: []\n' + (scanned.style === 'block' ? tail : ''));
    return;
  }
  out.chunks.push(block ? scanned.itemsHead : scanned.itemsPreamble + 'items:\n');
  let prefixIntact = true;
  items.forEach((o, i) => {
    prefixIntact &&= o === doc.items[i] && !o.changed;
    writableAlone(o, prefixIntact, out);
    if (o.container === doc && scanned.style === 'block') out.chunks.push(o.lead);
    out.chunks.push(o.entryText(scanned.seqIndent));
  });
  out.chunks.push(tail);
}

/**
 * An unchanged item that uses anchors of other items is written as it came only while
 * everything before it is; else it is written from its data, and an info result says so.
 */
function writableAlone(o: KubeObject, prefixIntact: boolean, out: Output): void {
  if (prefixIntact || o.changed || !o.foreignAliases || o.standsAlone()) return;
  o.detach();
  out.notes.push({
    message: `${o.id}: written from its data (aliases expanded): it uses YAML anchors of another item that changed or moved`,
    object: o,
  });
}

/**
 * A list document whose layout the line scanner does not know (a flow mapping at the top, an
 * anchor on the items, odd indentation): read with `yaml`; each item keeps its own text
 * (dedented), the rest of the document is written from its data when anything changes.
 */
function parsedList(text: string, kind: string, baseLine: number): ListDoc {
  const Y = yamlLib();
  let composed: ReturnType<typeof composeDocument>;
  try {
    composed = composeDocument(text);
  } catch (e) {
    throw inputError(e, 'input');
  }
  const { doc, text: read, toSource } = composed;
  if (!doc || !Y.isMap(doc.contents)) throw new KrmError(NO_ITEMS);
  const whole = composedData(read, doc) as Record<string, unknown>;
  const itemsNode = doc.contents.get('items', true);
  // a ResourceList needs items (null for none); a List without items has none
  if (!Y.isSeq(itemsNode) && whole.items !== null && !(kind === 'List' && whole.items === undefined)) throw itemsError(whole.items);
  const data = (whole.items ?? []) as unknown[];
  // the text as written (node offsets are mapped back to it), walked once forward for the
  // entries' lines, line starts and ends (a search back to each item's line start was quadratic
  // for many items on one line: JSON from jq -c)
  const sourceLines = new LineCounter(text);
  let seqIndent: number | undefined; // the entries' column, from the first block entry: written back there
  let previousEnd: number | undefined; // where the last entry ended in the text: blank lines and comments after it lead the next
  const nodes = Y.isSeq(itemsNode) ? itemsNode.items : [];
  const items = nodes.map((node, i) => {
    const r = (node as { range?: number[] } | null)?.range;
    const range = r && (toSource ? r.map(toSource) : [...r]);
    let o: KubeObject;
    let line = 0;
    if (range) {
      const lineStart = sourceLines.lineStart(range[0]!);
      line = sourceLines.linesBefore(range[0]!); // the same offset: the walk does not move back
      range[1] = entryEnd(text, sourceLines, range[1]!, i === nodes.length - 1);
      o = itemOfNode(text, range, lineStart, previousEnd);
    } else o = KubeObject.fromDocument(Y.stringify(data[i], EMIT_OPTIONS));
    previousEnd = range?.[1];
    seqIndent ??= o.seqIndent;
    o.listIndex = i;
    o.inputLine = baseLine + line;
    o.context = () => data[i];
    if (hasAliasTokens(o.original ?? '')) o.foreignAliases = ['*'];
    o.readWhole = readWholeAtInput(o.original ?? '');
    return o;
  });
  const list: ListDoc = {
    kind,
    items,
    write: (outItems, results, out) => {
      const withResults = results !== undefined && results.length > 0 && kind === 'ResourceList';
      const intact =
        !(kind === 'ResourceList' && ('results' in whole || 'functionConfig' in whole)) &&
        outItems.length === items.length &&
        outItems.every((x, i) => x === items[i] && !x.changed);
      if (intact) {
        out.chunks.push(text);
        if (withResults) pushAll(out.chunks, resultsChunks(results, text.endsWith('\n') ? '' : '\n'));
        return;
      }
      for (const [k, v] of Object.entries(whole)) {
        if ((k === 'results' || k === 'functionConfig') && kind === 'ResourceList') continue; // not echoed
        if (k !== 'items') {
          out.chunks.push(Y.stringify({ [k]: v }, EMIT_OPTIONS));
          continue;
        }
        out.chunks.push(outItems.length ? 'items:\n' : 'items: []\n');
        for (const x of outItems) {
          writableAlone(x, false, out);
          if (x.container === list && x.form === 'entry') out.chunks.push(x.lead);
          out.chunks.push(x.entryText(seqIndent ?? 0));
        }
      }
      if (withResults) pushAll(out.chunks, resultsChunks(results));
    },
  };
  for (const o of items) o.container = list;
  const wrong = kind === 'ResourceList' ? notMapping('functionConfig', whole.functionConfig) : undefined;
  if (wrong) throw wrong;
  if (kind === 'ResourceList' && isRecord(whole.functionConfig) && Object.keys(whole.functionConfig).length)
    list.functionConfig = KubeObject.fromData(whole.functionConfig);
  return list;
}

/**
 * An item of a list read whole, from its node's offsets in the text as written: a block entry
 * (`- ` at the start of its line) is kept verbatim, with the blank lines and comments between it
 * and the entry before as its lead, as the line scanner keeps one, so that an untouched item is
 * written back byte for byte (re-indented from its node's text, a line of a string continued at
 * less indentation than the entry's changed); any other layout as its node's text.
 */
function itemOfNode(text: string, [start, end]: number[], lineStart: number, previousEnd: number | undefined): KubeObject {
  const col = start! - lineStart;
  if (
    col >= 2 &&
    text.charCodeAt(start! - 2) === 45 &&
    text.charCodeAt(start! - 1) === 32 &&
    /^ *$/.test(text.slice(lineStart, start! - 2))
  ) {
    const lead = previousEnd !== undefined && previousEnd <= lineStart ? text.slice(previousEnd, lineStart) : '';
    return KubeObject.fromListEntry(text.slice(lineStart, end), col - 2, /^(?:[ \t]*(?:#[^\n]*)?\r?\n)*$/.test(lead) ? lead : '');
  }
  return KubeObject.fromDocument(nodeText(text, start!, end!, lineStart));
}

/**
 * Where an entry whose node ends at `end` ends: past the line break of its line when only white
 * space or a comment stands between (a node's range may stop before it); the last entry also
 * takes the blank lines and indented comments after it (as the line scanner's last entry does:
 * column-0 comments belong to what follows).
 */
function entryEnd(text: string, lines: LineCounter, end: number, last: boolean): number {
  let stop = end;
  if (end > 0 && text.charCodeAt(end - 1) !== 10) {
    const nl = lines.breakAfter(end);
    const lineStop = nl < 0 ? text.length : nl + 1;
    if (!REST_OF_LINE.test(text.slice(end, lineStop))) return end;
    stop = lineStop;
  }
  while (last && stop < text.length) {
    const nl = lines.breakAfter(stop);
    const lineStop = nl < 0 ? text.length : nl + 1;
    if (!TRAILING_LINE.test(text.slice(stop, lineStop))) break;
    stop = lineStop;
  }
  return stop;
}
const REST_OF_LINE = /^[ \t]*(?:#[^\n]*)?\r?\n?$/;
const TRAILING_LINE = /^(?:[ \t]*\r?\n?|[ \t]+#[^\n]*\n?)$/;

/** The text of a node at [start, end) as a document: continuation lines dedented by the node's column. */
function nodeText(text: string, start: number, end: number, lineStart: number): string {
  const col = start - lineStart;
  const slice = text.slice(start, end);
  if (col === 0 || !slice.includes('\n')) return slice.endsWith('\n') ? slice : slice + '\n';
  return dedentItem(' '.repeat(Math.max(0, col - 2)) + '- ' + slice, Math.max(0, col - 2));
}

/** A top-level `kind:` line naming a list kind, before scanning the layout. */
const LIST_KIND = /^(?:kind|"kind"|'kind') *: *['"]?(ResourceList|List)['"]? *(?:#.*)?\r?$/m;

/** The document as a list document, when it is one in a layout the line scanner knows. */
function scannedListDoc(text: string, baseLine: number, kinds: readonly string[]): ListDoc | undefined {
  const m = LIST_KIND.exec(text);
  if (!m || !kinds.includes(m[1]!)) return undefined;
  const scanned = scanList(text, 1);
  if (!scanned) return undefined;
  const kind = sectionValue(scanned.sections.find((s) => s.key === 'kind')?.text ?? '');
  if (kind === undefined || !kinds.includes(kind)) return undefined;
  return scannedList(text, scanned, kind, baseLine);
}

// ---------- JSON ----------

function jsonList(text: string, scan: JsonObjectScan, kind: string): ListDoc {
  const lines = new LineCounter(text);
  const items = (scan.items ?? []).map((span, i) => {
    const o = KubeObject.fromNode(text.slice(span.start, span.end), 'json', '');
    o.listIndex = i;
    o.inputLine = 1 + lines.linesBefore(span.start);
    return o;
  });
  const list: ListDoc = {
    kind,
    items,
    write: (out, results, o) => writeJsonList(list, text, scan, out, results, o),
  };
  for (const o of items) o.container = list;
  if (kind === 'ResourceList') {
    let fc: unknown;
    try {
      fc = memberValue(text, scan, 'functionConfig');
    } catch (e) {
      if (!(e instanceof SyntaxError)) throw e;
      const m = scan.members.find((x) => x.key === 'functionConfig')!;
      const at = /at position (\d+)/.exec(e.message);
      const { line, col } = lineCol(text, m.start + (at ? Number(at[1]) : 0));
      throw new KrmError(`functionConfig is not valid JSON at line ${line}, column ${col}`);
    }
    const wrong = notMapping('functionConfig', fc);
    if (wrong) throw wrong;
    if (isRecord(fc)) list.functionConfig = KubeObject.fromData(fc);
  }
  return list;
}

/**
 * A JSON list written back as its own bytes: the envelope (every member, the white space and
 * commas between them) as it came, less the members a ResourceList does not echo; the items
 * array rewritten only when its items changed, each unchanged item its own bytes, between the
 * array's own brackets and separators; the results inserted before the closing `}`.
 */
function writeJsonList(
  list: ListDoc,
  text: string,
  scan: JsonObjectScan,
  items: KubeObject[],
  results: Result[] | undefined,
  out: Output,
): void {
  const withResults = list.kind === 'ResourceList' && results !== undefined && results.length > 0;
  const dropped = list.kind === 'ResourceList' ? ['results', 'functionConfig'] : [];
  const edits = memberCuts(scan, dropped);
  const intact = items.length === list.items.length && items.every((o, i) => o === list.items[i] && !o.changed);
  const itemsMember = scan.members.find((m) => m.key === 'items')!;
  if (!intact) edits.push({ from: itemsMember.start, to: itemsMember.end, text: jsonItemsText(list, text, scan, itemsMember, items) });
  const { kept, close } = withEdits(text, edits, scan.close);
  if (!withResults) {
    out.chunks.push(kept);
    return;
  }
  pushAll(out.chunks, withJsonResults(kept, close, results));
}

/** A JSON object's text with a `results` member inserted before its closing `}` (at `close`). */
function withJsonResults(kept: string, close: number, results: readonly Result[]): string[] {
  // right after the last member, before the white space that closes the object (kept)
  const end = kept.slice(0, close).trimEnd().length;
  const lineAfter = kept.slice(end, close).includes('\n') ? '' : '\n';
  return [
    kept.slice(0, end),
    `${kept[end - 1] === '{' ? '' : ','}\n  "results": ${escapeNotPrintable(JSON.stringify(results, null, 2)).replace(/\n/g, '\n  ')}${lineAfter}`,
    kept.slice(end),
  ];
}

/**
 * A JSON ResourceList that cannot be read (a key written twice) written back as it came, less
 * what a ResourceList does not echo, with the results: nothing is lost (an emptied list would
 * lose every item for whoever takes the output), and kpt shows the results. Undefined when the
 * text is not a JSON object.
 */
export function unreadJsonList(text: string, results: readonly Result[]): string | undefined {
  let scan: JsonObjectScan | undefined;
  try {
    scan = scanJsonObject(text);
  } catch {
    return undefined; // too deep to scan
  }
  if (!scan) return undefined;
  const { kept, close } = withEdits(text, memberCuts(scan, ['results', 'functionConfig']), scan.close);
  return withJsonResults(kept, close, results).join('');
}

/** A key the input may name in messages: a plain name such as `kind` (any other key could be input text that must not be shown). */
const PLAIN_KEY = /^[A-Za-z][A-Za-z0-9_-]{0,62}$/;

/** A key written twice in JSON input: one error at the second key, naming the item that holds it. */
function duplicateKeyError(text: string, d: DuplicateKey): KrmError {
  const at = lineCol(text, d.at);
  const first = lineCol(text, d.first);
  const which = d.item !== undefined ? `items[${d.item}]` : d.member === 'functionConfig' ? 'functionConfig' : 'input';
  const firstAt = first.line === at.line ? `column ${first.col}` : `line ${first.line}, column ${first.col}`;
  const detail = duplicateKeyDetail(PLAIN_KEY.test(d.key) ? d.key : undefined, firstAt);
  return new KrmError(`${which} is not accepted JSON at line ${at.line}, column ${at.col}: ${detail}`);
}

/**
 * The items array (`[` to `]`) with `items`: its own brackets and the white space inside them,
 * its own separator between elements, each unchanged item of the list its own bytes; a changed
 * or new item written as JSON at the indentation of the array's elements.
 */
function jsonItemsText(
  list: ListDoc,
  text: string,
  scan: JsonObjectScan,
  member: JsonObjectScan['members'][number],
  items: KubeObject[],
): string {
  if (items.length === 0) return '[]';
  const spans = scan.items ?? [];
  let open: string;
  let sep: string;
  let close: string;
  if (spans.length > 0) {
    open = text.slice(member.start, spans[0]!.start);
    close = text.slice(spans[spans.length - 1]!.end, member.end);
    sep = spans.length > 1 ? text.slice(spans[0]!.end, spans[1]!.start) : `,${open.slice(1)}`;
  } else {
    // no element to copy the layout from: the envelope's (one line, or the member's indentation plus two)
    const lineStart = text.lastIndexOf('\n', member.keyStart) + 1;
    const indent = /^[ \t]*/.exec(text.slice(lineStart, member.keyStart))![0];
    const multiLine = text.lastIndexOf('\n', scan.close) > 0;
    open = multiLine ? `[\n${indent}  ` : '[';
    sep = multiLine ? `,\n${indent}  ` : ',';
    close = multiLine ? `\n${indent}]` : ']';
  }
  // the elements' indentation: what follows the last line break before an element, else the `items` line's
  const before = sep.includes('\n')
    ? sep
    : open.includes('\n')
      ? open
      : text.slice(text.lastIndexOf('\n', member.keyStart) + 1, member.keyStart);
  const indent = /^[ \t]*/.exec(before.slice(before.lastIndexOf('\n') + 1))![0];
  const parts = items.map((o) => (o.container === list && !o.changed ? o.jsonText('') : o.jsonText(indent)));
  return open + parts.join(sep) + close;
}

/** A span of a text replaced by other text. */
interface Edit {
  from: number;
  to: number;
  text: string;
}

/**
 * Cuts of the named members, each with the comma that joined it to its neighbour (`A,F,B` ->
 * `A,B`; `{F,A}` -> `{A}`).
 */
function memberCuts(scan: JsonObjectScan, keys: readonly string[]): Edit[] {
  const cuts: Edit[] = [];
  scan.members.forEach((m, i) => {
    if (!keys.includes(m.key)) return;
    const prev = scan.members[i - 1];
    const next = scan.members[i + 1];
    if (prev) cuts.push({ from: prev.end, to: m.end, text: '' });
    else cuts.push({ from: m.keyStart, to: next ? next.keyStart : m.end, text: '' });
  });
  return cuts;
}

/** The text with the edits made (in order; a cut may overlap the one before it: two members in a row), and where its closing `}` now is. */
function withEdits(text: string, edits: Edit[], close: number): { kept: string; close: number } {
  const sorted = edits.slice().sort((a, b) => a.from - b.from);
  const parts: string[] = [];
  let at = 0;
  let shift = 0;
  for (const e of sorted) {
    const start = Math.max(e.from, at);
    parts.push(text.slice(at, start), e.text);
    const to = Math.max(e.to, at);
    shift += e.text.length - (to - start);
    at = to;
  }
  parts.push(text.slice(at));
  return { kept: parts.join(''), close: close + shift };
}

/**
 * Whether a JSON `kind: List` is a list: its items an array, null or absent (none, as kubectl
 * reads it); items of another type are an input error. False when the member does not read
 * (the item then reports it).
 */
function jsonListItems(text: string, scan: JsonObjectScan): boolean {
  if (scan.items) return true;
  let items: unknown;
  try {
    items = memberValue(text, scan, 'items');
  } catch {
    return false;
  }
  if (items === null || items === undefined) return true;
  throw new KrmError(`the input is a List whose items is ${typeOf(items)}, not a list: write items as a list of resources ([] for none)`);
}

/** A member's value, or null when it does not parse (its error is the item's, said elsewhere). */
function jsonMember(text: string, scan: JsonObjectScan, key: string): unknown {
  try {
    return memberValue(text, scan, key);
  } catch {
    return null;
  }
}

function readJson(text: string, scan: JsonObjectScan): ParsedInput | undefined {
  let kind: unknown;
  try {
    kind = memberValue(text, scan, 'kind');
  } catch {
    return undefined;
  }
  if (kind === 'ResourceList') {
    if (!scan.items) throw itemsError(scan.members.some((m) => m.key === 'items') ? jsonMember(text, scan, 'items') : undefined);
    const list = jsonList(text, scan, 'ResourceList');
    return {
      format: 'json',
      items: list.items,
      functionConfig: list.functionConfig,
      notes: [],
      layout: { kind: 'list', list, lead: '', tail: '' },
    };
  }
  const unit = kind === 'List' && jsonListItems(text, scan) ? jsonList(text, scan, 'List') : KubeObject.fromNode(text, 'json');
  if (unit instanceof KubeObject) {
    unit.where = 'the input';
    unit.inputLine = 1;
  }
  return streamInput([unit], '');
}

// ---------- reading ----------

function streamInput(units: (KubeObject | ListDoc)[], tail: string): ParsedInput {
  const items: KubeObject[] = [];
  for (const u of units) {
    if (u instanceof KubeObject) items.push(u);
    else for (const o of u.items) items.push(o);
  }
  return { format: 'stream', items, notes: [], layout: { kind: 'stream', units, tail } };
}

/**
 * A stream document: a `kind: List` in any layout becomes a list of its items, anything else an
 * item. `alone`: the stream's only document (a ResourceList is then the input, read by the caller).
 */
function streamUnit(body: string, lead: string, line: number, index: number, alone: boolean): KubeObject | ListDoc {
  const scanned = scannedListDoc(body, line, ['List']);
  if (scanned) {
    streamLeads.set(scanned, lead);
    return scanned;
  }
  const o = KubeObject.fromDocument(body, lead);
  o.sourceLine = line;
  o.inputLine = line;
  o.setDocumentIndex(index);
  o.readWhole = readWholeAtInput(body);
  let kind = '';
  try {
    kind = o.kind;
  } catch {
    return o; // unreadable: reported when the items are checked
  }
  // a ResourceList among other documents is neither the input nor a resource: read as one item,
  // what it holds (a plaintext Secret) would never be looked at
  if (kind === 'ResourceList' && !alone)
    throw new KrmError(
      `document ${index + 1} (line ${line}) is a ResourceList among other documents: give a ResourceList alone (what kpt fn source writes) or a stream of resources (its items)`,
    );
  if (kind !== 'List') return o;
  // a List is its items, none when it has none (kubectl reads `items: null` and no items as empty)
  const items = o.data.items;
  if (!Array.isArray(items) && items !== null && items !== undefined)
    throw new KrmError(
      `document ${index + 1} (line ${line}) is a List whose items is ${typeOf(items)}, not a list: write items: as a list of resources (items: [] for none)`,
    );
  const list = parsedList(body, 'List', line);
  streamLeads.set(list, lead);
  return list;
}

/**
 * A `%YAML` directive of another version than 1.1 before a document: go-yaml (kubectl,
 * kustomize, kpt, Flux) reads YAML 1.1 only and refuses such a document ("found incompatible
 * YAML document"), so that what passes here would fail where it is applied.
 */
function refuseYamlVersion(lead: string, index: number, line: number): void {
  if (!lead.includes('%YAML')) return;
  const version = /^%YAML[ \t]+([^\s#]+)/m.exec(lead)?.[1];
  if (version === undefined || version === '1.1') return;
  throw new KrmError(
    `document ${index + 1} (line ${line}) is declared %YAML ${version.slice(0, 16)}: kubectl, kustomize, kpt and Flux (go-yaml) read YAML 1.1 only and refuse it ("found incompatible YAML document"); remove the directive or write %YAML 1.1`,
  );
}

/**
 * A line that starts with `---` and goes on with more than white space or a comment (`--- a: 1`,
 * `----`, `---x`, also inside a string): kubectl reads every such line as a document separator
 * and refuses the text after it ("invalid Yaml document separator"), kpt and kustomize refuse
 * most of them too. (`---#x` is a separator with a comment, as kubectl reads it.)
 */
function refuseSeparatorContent(text: string): void {
  if (!text.startsWith('---') && !text.includes('\n---') && !text.includes('\r---')) return;
  const m = SEPARATOR_WITH_CONTENT.exec(text);
  if (!m) return;
  throw new KrmError(
    `line ${countLines(text, m.index) + 1} starts with --- and goes on with text: kubectl reads --- at the start of a line as a document separator and refuses anything after it but a comment ("invalid Yaml document separator"); put what follows on the next line`,
  );
}
const SEPARATOR_WITH_CONTENT = /^---(?![ \t]*(?:#|\r?\n|\r|$))/m;

/** Parses function input. Throws KrmError with a position for malformed input. */
export function readInput(text: string): ParsedInput {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (/\s/.test(text[i] ?? '')) i++;
  if (i >= text.length) return streamInput([], text);
  if (text[i] === '{') {
    let scan: JsonObjectScan | undefined;
    try {
      scan = scanJsonObject(text);
    } catch (e) {
      if (!(e instanceof YamlReadError)) throw e;
      throw new KrmError(`input is not accepted JSON at line ${e.line}, column ${e.col}: ${e.detail}`);
    }
    if (scan?.duplicate) throw duplicateKeyError(text, scan.duplicate);
    const json = scan && readJson(text, scan);
    if (json) return json;
  }
  refuseSeparatorContent(text);
  const { docs, tail } = splitDocuments(text);
  docs.forEach((d, n) => {
    refuseYamlVersion(d.lead, n, d.line);
    if (d.bare)
      throw new KrmError(
        `document ${n + 1} (line ${d.line}) follows a document end (...) with no --- before it: kubectl and kpt do not read it (they drop it without a word, or refuse the file); put --- before it`,
      );
  });
  if (docs.length === 1) {
    const d = docs[0]!;
    const list = scannedListDoc(d.body, d.line, ['ResourceList']);
    if (list) return listInput(list, d.lead, tail);
  }
  const units = docs.map((d, n) => streamUnit(d.body, d.lead, d.line, n, docs.length === 1));
  if (units.length === 1 && units[0] instanceof KubeObject) {
    const only = units[0];
    let kind = '';
    try {
      kind = only.kind;
    } catch {
      // unreadable: reported when the items are checked
    }
    if (kind === 'ResourceList') {
      if (!Array.isArray(only.data.items) && only.data.items !== null) throw itemsError(only.data.items);
      return listInput(parsedList(docs[0]!.body, 'ResourceList', docs[0]!.line), docs[0]!.lead, tail);
    }
  }
  return streamInput(units, tail);
}

function listInput(list: ListDoc, lead: string, tail: string): ParsedInput {
  return { format: 'list', items: list.items, functionConfig: list.functionConfig, notes: [], layout: { kind: 'list', list, lead, tail } };
}

// ---------- writing ----------

/** A `---` (or `...`) line in a document's lead (`---#c` too, as splitDocuments reads it): the document is separated from the one before (lines end at LF or a bare CR). */
const SEPARATED = /(?:^|[\n\r])(?:---#|(?:---|\.\.\.)(?:[ \t\r\n]|$))/;

function writeStream(layout: Extract<Layout, { kind: 'stream' }>, items: KubeObject[], out: Output): void {
  const groups = new Map<ListDoc, KubeObject[]>();
  const lists = new Set<unknown>(layout.units.filter((u) => !(u instanceof KubeObject)));
  for (const o of items) {
    if (!lists.has(o.container)) continue;
    const g = groups.get(o.container as ListDoc);
    if (g) g.push(o);
    else groups.set(o.container as ListDoc, [o]);
  }
  let first = true;
  let last = '';
  const emit = (lead: string, text: string, changed: boolean): void => {
    let l = lead;
    if (changed && !endsLine(l)) l += '\n';
    if (!first && !SEPARATED.test(l)) l = '---\n' + l;
    if (!first && !endsLine(last)) out.chunks.push('\n');
    if (l) out.chunks.push(l);
    out.chunks.push(text);
    last = text;
    first = false;
  };
  // a List that came with no items holds nothing a function could have taken: it goes out as it
  // came, before the first item of a later document (or at the end)
  const empties = emptyLists(layout.units);
  const writeEmpties = (before: number): void => {
    while (empties.length > 0 && empties[0]!.at < before) {
      const { list } = empties.shift()!;
      const chunks: OutputChunk[] = [];
      list.write([], undefined, { chunks, notes: out.notes });
      emit(streamLeads.get(list) ?? '', joinChunks(chunks), false);
    }
  };
  const unitAt = empties.length > 0 ? new Map(layout.units.map((u, i) => [u, i])) : undefined;
  for (const o of items) {
    const list = lists.has(o.container) ? (o.container as ListDoc) : undefined;
    if (unitAt) writeEmpties(unitAt.get(list ?? o) ?? -1);
    if (list) {
      const g = groups.get(list);
      if (!g) continue;
      groups.delete(list);
      const chunks: OutputChunk[] = [];
      list.write(g, undefined, { chunks, notes: out.notes });
      emit(streamLeads.get(list) ?? '', joinChunks(chunks), false);
      continue;
    }
    // an unchanged document as it came (the last one without a final newline too)
    const text =
      o.form === 'json' ? o.jsonText('') + (o.changed ? '\n' : '') : !o.changed && o.form === 'doc' ? o.original! : o.documentText();
    emit(o.container === undefined && o.form !== 'entry' ? o.lead : '', text, o.changed);
  }
  writeEmpties(Number.POSITIVE_INFINITY);
  if (layout.tail) {
    if (!endsLine(last)) out.chunks.push('\n');
    out.chunks.push(layout.tail);
  }
}

/** The stream's List documents that came with no items, with their position among its documents. */
function emptyLists(units: readonly (KubeObject | ListDoc)[]): { list: ListDoc; at: number }[] {
  const out: { list: ListDoc; at: number }[] = [];
  units.forEach((u, at) => {
    if (!(u instanceof KubeObject) && u.items.length === 0) out.push({ list: u, at });
  });
  return out;
}

/** What stood before a list document of a stream (`---` lines, comments). */
const streamLeads = new WeakMap<ListDoc, string>();

/** Writes the output in the input's format, with `items` as given and `results` (lists only). */
export function writeOutputChunks(
  input: ParsedInput,
  items: KubeObject[],
  results: Result[],
): { chunks: OutputChunk[]; notes: Output['notes'] } {
  const out: Output = { chunks: [], notes: [] };
  const layout = input.layout;
  if (layout.kind === 'stream') writeStream(layout, items, out);
  else {
    if (layout.lead) out.chunks.push(layout.lead);
    layout.list.write(items, results, out);
    if (layout.tail) out.chunks.push(layout.tail);
  }
  return out;
}

/** Writes the output in the input's format, with `items` as given and `results` appended. */
export function writeOutput(input: ParsedInput, items: KubeObject[], results: Result[]): string {
  return joinChunks(writeOutputChunks(input, items, results).chunks);
}
