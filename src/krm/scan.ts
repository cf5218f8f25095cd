/**
 * Splits a ResourceList (as kpt and kustomize write it) into per-item source text without
 * parsing the items, so that untouched items can be written back byte for byte and the
 * function only pays for parsing what it reads. Returns `undefined` whenever the layout is
 * not the plain block layout; the caller then parses the whole list with `yaml`.
 */
import { PARSE_OPTIONS, yamlLib } from './lazy.js';

export interface ScannedItem {
  /** comment and blank lines that precede the item's `-` line, verbatim */
  lead: string;
  /** the item verbatim: its `- ` line and every following line up to the next item */
  raw: string;
}

export interface ScannedList {
  /** top-level sections (`apiVersion: ...`, `kind: ...`, `functionConfig:` ...) in order, verbatim */
  sections: { key: string; text: string }[];
  items: ScannedItem[];
  /** column of the items' `-` (0 for kpt and kustomize) */
  seqIndent: number;
}

const TOP_KEY = /^([A-Za-z_][A-Za-z0-9_.-]*):(?: +(.*))?$/;

/** `&name` or `*name` where YAML could read an anchor or alias (conservative: may over-match). */
const ANCHOR_OR_ALIAS = /(?:^|[\s[{,:-])[&*][^\s,[\]{}]/;
const ALIAS_G = /(?:^|[\s[{,:-])\*([^\s,[\]{}]+)/g;
const ANCHOR_G = /(?:^|[\s[{,:-])&([^\s,[\]{}]+)/g;

function selfContained(item: ScannedItem, seqIndent: number): boolean {
  const anchors = new Set([...item.raw.matchAll(ANCHOR_G)].map((m) => m[1]));
  let unmatched = false;
  for (const m of item.raw.matchAll(ALIAS_G)) if (!anchors.has(m[1])) unmatched = true;
  if (!unmatched) return true;
  // the tokens may sit in a block scalar or a quoted string: ask the real parser
  const doc = yamlLib().parseDocument(dedentItem(item.raw, seqIndent), PARSE_OPTIONS);
  try {
    doc.toJS({ maxAliasCount: 10_000 }); // throws on an alias whose anchor is elsewhere
  } catch {
    return false;
  }
  return doc.errors.length === 0;
}

/** A block scalar header with keep chomping (`|+`, `>2+` ...): its trailing blank lines are content. */
const KEEP_CHOMP = /(?:^|[\s:-])[|>][0-9]?\+[0-9]?\s*(?:#.*)?$/;

/** A comment line no deeper than an item's keys: it cannot belong to a block scalar. */
function isItemComment(line: string, seqIndent: number): boolean {
  let i = 0;
  while (line.charCodeAt(i) === 32) i++;
  return line[i] === '#' && i <= seqIndent + 2;
}

function isSkip(line: string): boolean {
  const t = line.trimStart();
  return t === '' || t[0] === '#';
}

export function scanResourceList(text: string): ScannedList | undefined {
  if (text.includes('\r') || text.includes('\t')) return undefined;
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let n = 0;
  if (lines[0] === '---') n = 1;
  const sections: { key: string; text: string }[] = [];
  const items: ScannedItem[] = [];
  let seqIndent = -1;
  let preamble = '';
  while (n < lines.length) {
    const line = lines[n]!;
    if (isSkip(line) && line[0] !== ' ') {
      preamble += line + '\n';
      n++;
      continue;
    }
    if (line === '...' || line === '---') {
      // a second document: not a single ResourceList
      if (lines.slice(n + 1).every(isSkip)) break;
      return undefined;
    }
    const m = TOP_KEY.exec(line);
    if (!m) return undefined;
    const key = m[1]!;
    const inline = m[2];
    n++;
    if (key !== 'items') {
      let t = preamble + line + '\n';
      preamble = '';
      while (
        n < lines.length &&
        (lines[n]![0] === ' ' || lines[n] === '' || (lines[n]![0] === '-' && inline === undefined) || lines[n]![0] === '#')
      ) {
        // a comment at column 0 ends the section if a top-level key follows it
        if (lines[n]![0] === '#') {
          let k = n;
          while (k < lines.length && isSkip(lines[k]!) && lines[k]![0] !== ' ') k++;
          if (k >= lines.length || TOP_KEY.test(lines[k]!)) break;
        }
        t += lines[n] + '\n';
        n++;
      }
      sections.push({ key, text: t });
      continue;
    }
    // the items section
    if (inline !== undefined && !/^\[\s*\](\s+#.*)?$/.test(inline)) return undefined; // flow items
    sections.push({ key: 'items', text: preamble });
    preamble = '';
    let lead = '';
    let cur: string[] | undefined;
    let curLead = '';
    const flush = (): void => {
      if (cur) items.push({ lead: curLead, raw: cur.join('\n') + '\n' });
      cur = undefined;
    };
    for (; n < lines.length; n++) {
      const l = lines[n]!;
      let ind = 0;
      while (l.charCodeAt(ind) === 32) ind++;
      const rest = l.slice(ind);
      if (rest === '' || rest[0] === '#') {
        if (cur) {
          // a comment or blank line: part of the current item unless only skip lines and a new
          // entry or a top-level key follow
          cur.push(l);
        } else lead += l + '\n';
        continue;
      }
      if (seqIndent < 0 && (rest.startsWith('- ') || rest === '-')) seqIndent = ind;
      if (ind === seqIndent && (rest.startsWith('- ') || rest === '-')) {
        if (rest === '-' || rest.startsWith('- -') || rest.startsWith('- [') || rest.startsWith('- {')) return undefined;
        // move trailing skip lines of the previous item to this item's lead
        // (only comments at most as indented as the item's keys, and blank lines unless the item
        // has a keep-chomping block scalar (`|+`): deeper comment-like lines and those blank lines
        // may be the end of a block scalar and stay with their item)
        let moved = '';
        if (cur) {
          const keep = cur.some((x) => KEEP_CHOMP.test(x));
          while (cur.length > 1) {
            const last = cur[cur.length - 1]!;
            if (!(isItemComment(last, seqIndent) || (!keep && last.trim() === ''))) break;
            moved = cur.pop() + '\n' + moved;
          }
        }
        flush();
        cur = [l];
        curLead = lead + moved;
        lead = '';
        continue;
      }
      if (cur && ind >= seqIndent + 2) {
        cur.push(l);
        continue;
      }
      break; // a top-level key (or something we will judge as such)
    }
    // trailing skip lines of the last item stay with it only if they are indented; column-0
    // comments before the next section go to that section
    let tail = '';
    if (cur) {
      while (cur.length > 1 && isSkip(cur[cur.length - 1]!) && cur[cur.length - 1]![0] !== ' ' && cur[cur.length - 1] !== '')
        tail = cur.pop() + '\n' + tail;
    }
    flush();
    preamble = lead + tail;
  }
  if (preamble) {
    if (sections.length === 0) return undefined;
    sections[sections.length - 1]!.text += preamble;
  }
  if (seqIndent < 0) seqIndent = 0;
  // An alias must find its anchor inside the same item, or the items cannot stand alone.
  if (ANCHOR_OR_ALIAS.test(text) && !items.every((it) => selfContained(it, seqIndent))) return undefined;
  const keys = sections.map((s) => s.key);
  if (new Set(keys).size !== keys.length) return undefined;
  return { sections, items, seqIndent };
}

/** The item's text as a standalone YAML document (its `- ` and indentation removed). */
export function dedentItem(raw: string, seqIndent: number): string {
  const cut = seqIndent + 2;
  const lines = raw.split('\n');
  let out = '';
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (i === lines.length - 1 && l === '') break;
    if (l.length >= cut && (i === 0 || l.slice(0, cut).trim() === '')) {
      out += l.slice(cut) + '\n';
    } else {
      out += l.trimStart() + '\n'; // blank, or a comment indented less than the item
    }
  }
  return out;
}

/** Inverse of `dedentItem`: the document as an entry of a block sequence at `seqIndent`. */
export function indentItem(body: string, seqIndent: number): string {
  const pad = ' '.repeat(seqIndent + 2);
  const lines = body.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let out = '';
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (i === 0) out += ' '.repeat(seqIndent) + '- ' + l + '\n';
    else out += (l === '' ? '' : pad + l) + '\n';
  }
  return out;
}

/** Splits a multi-document YAML stream into documents, verbatim. */
export function splitStream(text: string): string[] {
  const docs: string[] = [];
  let cur = '';
  let started = false;
  for (const line of text.split(/(?<=\n)/)) {
    if (/^---(\s|$)/.test(line)) {
      if (started || cur.trim() !== '') docs.push(cur);
      cur = line.slice(3).trim() === '' ? '' : line.slice(4);
      started = true;
      continue;
    }
    if (/^\.\.\.\s*$/.test(line)) continue;
    cur += line;
  }
  if (cur.trim() !== '') docs.push(cur);
  return docs.filter((d) => d.split('\n').some((l) => !isSkip(l)));
}
