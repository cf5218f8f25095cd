/**
 * Generated input for the differential fuzzer: documents of the corpus in odd-but-real shapes
 * (tabs in block scalars, comments everywhere, flow style, anchors, long lines, non-ASCII,
 * quoted keys, multi-line scalars), assembled as a plain stream (document markers, directives,
 * empty documents), a ResourceList (indented or compact items, comments, a leading `---`, flow
 * items, functionConfig before or after) or JSON, with CRLF line ends, bare-CR (old Mac) line
 * ends or a mix of all three, and a BOM sometimes.
 */
import fc from 'fast-check';
import { stringify } from 'yaml';
import { indentItem, PARSE_OPTIONS } from '../../src/krm/index.js';
import { parse } from 'yaml';

/** Appended to a document: each is valid YAML at the top level of a block mapping. */
const ADDITIONS: Record<string, string> = {
  tabBlock: 'x-fuzz-make: |\n  all:\n  \techo "ok"\n\n  \t@true\n',
  anchors: 'x-fuzz-anchors:\n  a: &fz1 {k: v, n: [1, 2]}\n  b: *fz1\n  c: &fz2 text\n  d: *fz2\n',
  long: `x-fuzz-long: ${'word '.repeat(20_000).trim()}\n`,
  nonAscii: 'x-fuzz-text: "é ü 漢字 😀 \\u00e9"\nx-fuzz-plain: héllo wörld ☃\n',
  folded: 'x-fuzz-folded: this is a long\n  plain scalar over\n\n  three lines\n',
  keep: 'x-fuzz-keep: |+\n  kept\n\n\n',
  quoted: "x-fuzz-quoted: 'it''s'\nx-fuzz-dq: \"a\\tb\\\"c\"\n",
  flowMultiLine: 'x-fuzz-flow: [a, b,\n  {c: d,\n   e: [1, 2]}]\n',
};
export const DOC_VARIANTS = ['none', 'comments', 'flow', 'quotedHeader', ...Object.keys(ADDITIONS)] as const;
export type DocVariant = (typeof DOC_VARIANTS)[number];

/** Comment lines before key lines (at their indentation) and after plain scalars: valid wherever they land. */
function withComments(doc: string): string {
  return doc
    .split('\n')
    .map((l, i) => {
      const key = /^( *)(?:- )?[A-Za-z_][\w./-]*:(?: |$)/.exec(l);
      let out = l;
      if (/^ *[A-Za-z_][\w./-]*: [A-Za-z0-9_.-]+$/.test(l)) out += ` # c${i}`;
      if (key) out = `${key[1]}# before ${i}\n${out}`;
      return out;
    })
    .join('\n');
}

function isBlockMapping(doc: string): boolean {
  return /^kind:/m.test(doc) && /^apiVersion:/m.test(doc) && !/^[{[]/.test(doc.trimStart());
}

/** A document in one of the variants (the document itself when the variant does not apply). */
export function docVariant(doc: string, v: DocVariant): string {
  if (v === 'none') return doc;
  if (v === 'comments') return withComments(doc);
  if (v === 'flow') return stringify(parse(doc, PARSE_OPTIONS), { version: '1.1', collectionStyle: 'flow' });
  if (v === 'quotedHeader') return doc.replace(/^kind:/m, '"kind":').replace(/^apiVersion:/m, "'apiVersion':");
  if (!isBlockMapping(doc)) return doc;
  return (doc.endsWith('\n') ? doc : doc + '\n') + ADDITIONS[v];
}

export interface Layout {
  form: 'stream' | 'list' | 'json';
  crlf: boolean;
  /** bare-CR line ends (old Mac, read as line breaks as go-yaml does): on every line, or mixed line by line with LF and CRLF */
  bareCr?: 'none' | 'all' | 'mixed';
  bom: boolean;
  /** stream: how documents are separated, begun and ended */
  separator: number;
  start: number;
  end: number;
  /** list */
  seqIndent: 0 | 2;
  itemsComment: boolean;
  commentsBetween: boolean;
  trailingComment: boolean;
  leadingMarker: boolean;
  flowItems: boolean;
  configFirst: boolean;
  crossAnchors: boolean;
  /** json */
  jsonIndent: number;
  jsonNumbers: boolean;
  /** the JSON envelope: one line (what kpt writes), indented, or indented oddly with an extra member */
  jsonEnvelope?: 'compact' | 'pretty' | 'odd';
  /** characters inserted (or written over) at positions of the assembled text: input that may be broken */
  mutations: [number, string, boolean][];
}

/** What YAML and JSON give meaning to: where a reader is most likely to break. */
const MUTATION_CHARS = [
  ':',
  '-',
  '[',
  ']',
  '{',
  '}',
  '"',
  "'",
  '#',
  '\t',
  '\r',
  '&',
  '*',
  '!',
  '|',
  '>',
  '%',
  '\n',
  ' ',
  ',',
  '\\',
  '\u00e9',
  '---\n',
  '...\n',
  '\ufeff',
];

/** A line's indentation and first character: members of one mapping or object (a functionConfig cut from among them) end alike. */
function lineHash(line: string): number {
  const indent = /^[ \t]*/.exec(line)![0].length;
  return indent + (line.charCodeAt(indent) || 0);
}

/** The line breaks of a mixed text. */
const LINE_BREAKS = ['\r', '\n', '\r\n', '\r', '\r\n'];

const SEPARATORS = ['---\n', '--- # next\n', '...\n---\n', '\n---\n\n', '---\n# comment-only document\n---\n'];
const STARTS = ['', '---\n', '# head\n---\n', '%YAML 1.1\n---\n', '%TAG !e! tag:yaml.org,2002:\n---\n'];
const ENDS = ['', '...\n', '# tail\n', '---\n# an empty document\n'];

export const layoutArb: fc.Arbitrary<Layout> = fc.record({
  form: fc.constantFrom('stream', 'list', 'json'),
  crlf: fc.boolean(),
  bareCr: fc.constantFrom('none' as const, 'none' as const, 'all' as const, 'mixed' as const),
  bom: fc.boolean(),
  separator: fc.nat(SEPARATORS.length - 1),
  start: fc.nat(STARTS.length - 1),
  end: fc.nat(ENDS.length - 1),
  seqIndent: fc.constantFrom(0 as const, 2 as const),
  itemsComment: fc.boolean(),
  commentsBetween: fc.boolean(),
  trailingComment: fc.boolean(),
  leadingMarker: fc.boolean(),
  flowItems: fc.boolean(),
  configFirst: fc.boolean(),
  crossAnchors: fc.boolean(),
  jsonIndent: fc.constantFrom(0, 2, 4),
  jsonNumbers: fc.boolean(),
  jsonEnvelope: fc.constantFrom('compact' as const, 'pretty' as const, 'odd' as const),
  mutations: fc.oneof(
    { weight: 3, arbitrary: fc.constant([] as [number, string, boolean][]) },
    {
      weight: 1,
      arbitrary: fc.array(fc.tuple(fc.nat(), fc.constantFrom(...MUTATION_CHARS), fc.boolean()), { minLength: 1, maxLength: 3 }),
    },
  ),
});

function crossAnchored(docs: string[]): string[] {
  if (docs.length < 2 || !isBlockMapping(docs[0]!) || !isBlockMapping(docs[docs.length - 1]!)) return docs;
  const out = [...docs];
  out[0] = out[0]! + 'x-fuzz-anchor: &fzx {shared: true}\n';
  out[out.length - 1] = out[out.length - 1]! + 'x-fuzz-alias: *fzx\n';
  return out;
}

function listText(docs: string[], l: Layout, config: string | undefined): string {
  let items: string;
  if (l.flowItems) {
    const flow = docs.map((d) => stringify(parse(d, PARSE_OPTIONS), { version: '1.1', collectionStyle: 'flow' }).trimEnd());
    items = docs.length ? `items: [\n${flow.map((f) => '  ' + f.replace(/\n/g, '\n  ')).join(',\n')}\n]\n` : 'items: []\n';
  } else {
    const entries = (l.crossAnchors ? crossAnchored(docs) : docs).map((d) => indentItem(d, l.seqIndent));
    items = docs.length
      ? `items:${l.itemsComment ? ' # the resources' : ''}\n${entries.join(l.commentsBetween ? '# between items\n' : '')}`
      : 'items: []\n';
    if (l.trailingComment) items += '# after the last item\n';
  }
  const fc = config ? 'functionConfig:\n' + config.replace(/^(?=.)/gm, '  ') : '';
  const head = `${l.leadingMarker ? '---\n' : ''}apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n`;
  return head + (l.configFirst ? fc + items : items + fc);
}

function jsonText(docs: string[], l: Layout, config: string | undefined): string {
  const ind = l.jsonIndent ? ' '.repeat(l.jsonIndent) : undefined;
  const items = docs.map((d) => {
    let j = JSON.stringify(parse(d, PARSE_OPTIONS), null, ind);
    if (l.jsonNumbers) j = j.replace(/}$/, ',"x-fuzz-num":1.0,"x-fuzz-big":12345678901234567890123,"x-fuzz-exp":1e3}');
    return j;
  });
  const fcJson = config ? JSON.stringify(parse(config, PARSE_OPTIONS)) : undefined;
  if (l.jsonEnvelope === 'pretty' || l.jsonEnvelope === 'odd') {
    // an envelope as people and other tools write it: indented, odd spacing, an extra member, items array spread over lines
    const odd = l.jsonEnvelope === 'odd';
    const members = [
      odd
        ? '"apiVersion" :  "config.kubernetes.io/v1",   "kind":"ResourceList"'
        : '"apiVersion": "config.kubernetes.io/v1",\n  "kind": "ResourceList"',
      `"items": [${items.length ? `${odd ? ' ' : '\n    '}${items.join(odd ? ',\n\t\t' : ',\n    ')}${odd ? ' ' : '\n  '}` : odd ? ' ' : ''}]`,
      '"x-fuzz-envelope": {"keep":   [1,  2.50],"n": 12345678901234567890123}',
    ];
    if (fcJson) members.splice(l.configFirst ? 1 : 3, 0, `"functionConfig": ${fcJson}`);
    return `{\n  ${members.join(odd ? ' ,\n  ' : ',\n  ')}${odd ? '   ' : ''}\n}\n`;
  }
  const fcPart = fcJson ? `,"functionConfig":${fcJson}` : '';
  const sep = ind ? ',\n' : ',';
  return `{"apiVersion":"config.kubernetes.io/v1","kind":"ResourceList","items":[${items.join(sep)}]${fcPart}}\n`;
}

/** The input text of a case: documents (already in their variants) assembled in the layout. */
export function assemble(docs: string[], l: Layout, config?: string): string {
  let text: string;
  if (l.form === 'json') text = jsonText(docs, l, config);
  else if (l.form === 'list') text = listText(docs, l, config);
  else text = STARTS[l.start]! + docs.join(SEPARATORS[l.separator]!) + ENDS[l.end]!;
  if (l.crlf) text = text.replace(/\r?\n/g, '\r\n');
  if (l.bareCr === 'all') text = text.replace(/\r?\n/g, '\r');
  // each line's break chosen by how it starts, not by its place: a line ends alike in a text with a line or a member less
  if (l.bareCr === 'mixed')
    text = text.replace(/([^\r\n]*)\r?\n/g, (_, line: string) => line + LINE_BREAKS[lineHash(line) % LINE_BREAKS.length]!);
  for (const [at, ch, insert] of l.mutations) {
    const i = text.length ? at % text.length : 0;
    text = text.slice(0, i) + ch + text.slice(insert ? i : i + 1);
  }
  return (l.bom ? '\ufeff' : '') + text;
}
