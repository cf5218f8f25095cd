/**
 * Reading and writing `config.kubernetes.io/v1` ResourceLists (and, for people piping files
 * in, plain multi-document YAML streams), keeping every byte of what the function leaves alone.
 */
import { isRecord } from './data.js';
import { plainYaml } from './emit.js';
import { PARSE_OPTIONS, yamlLib } from './lazy.js';
import { EMIT_OPTIONS, KrmError, KubeObject } from './kube-object.js';
import type { Result } from './results.js';
import { indentItem, scanResourceList, splitStream } from './scan.js';

export type InputFormat = 'list' | 'json' | 'stream';

export interface ParsedInput {
  format: InputFormat;
  items: KubeObject[];
  functionConfig?: KubeObject;
  /** list format: the top-level sections in order, verbatim */
  sections: { key: string; text: string }[];
  seqIndent: number;
}

function sectionValue(text: string): string | undefined {
  const m = /^[A-Za-z]+:\s*(.*?)\s*$/m.exec(text);
  if (!m) return undefined;
  return m[1]!.replace(/^(['"])(.*)\1$/, '$2');
}

function fromSections(text: string): ParsedInput | undefined {
  const scanned = scanResourceList(text);
  if (!scanned) return undefined;
  const kind = scanned.sections.find((s) => s.key === 'kind');
  if (!kind || sectionValue(kind.text) !== 'ResourceList') return undefined;
  if (!scanned.sections.some((s) => s.key === 'items'))
    throw new KrmError('the ResourceList has no `items` field: expected `items:` with a list of resources (or `items: []`)');
  const items = scanned.items.map((it, i) => {
    const o = KubeObject.fromListEntry(it.raw, scanned.seqIndent, it.lead);
    o.listIndex = i;
    return o;
  });
  let functionConfig: KubeObject | undefined;
  const fc = scanned.sections.find((s) => s.key === 'functionConfig');
  if (fc) {
    // the section text is `functionConfig:` plus its indented block: make it a document
    const lines = fc.text.split('\n');
    const first = lines.findIndex((l) => l.startsWith('functionConfig:'));
    const inline = lines[first]!.slice('functionConfig:'.length).trim();
    if (inline !== '' && !inline.startsWith('#')) {
      // flow style, possibly over several lines: read the section itself
      const v = (yamlLib().parse(fc.text, PARSE_OPTIONS) as { functionConfig?: unknown } | null)?.functionConfig;
      if (isRecord(v) && Object.keys(v).length > 0) functionConfig = KubeObject.fromData(v);
    } else {
      const block = lines.slice(first + 1).join('\n');
      const ind = /^( *)\S/m.exec(block)?.[1]?.length ?? 0;
      const body = block
        .split('\n')
        .map((l) => (l.startsWith(' '.repeat(ind)) ? l.slice(ind) : l.trimStart()))
        .join('\n');
      if (body.trim() !== '') functionConfig = KubeObject.fromDocument(body);
    }
  }
  return { format: 'list', items, functionConfig, sections: scanned.sections, seqIndent: scanned.seqIndent };
}

function yamlError(e: { message: string; linePos?: { line: number; col: number }[] }, doc?: number): KrmError {
  const where = e.linePos?.[0] ? `line ${e.linePos[0].line}, column ${e.linePos[0].col}` : 'unknown position';
  return new KrmError(
    `input is not valid YAML${doc !== undefined ? ` (document ${doc + 1})` : ''} at ${where}: ${e.message.split('\n')[0]}`,
  );
}

/** Parses function input. Throws KrmError with a position for malformed input. */
export function readInput(text: string): ParsedInput {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const trimmed = text.trimStart();
  if (trimmed === '') return { format: 'stream', items: [], sections: [], seqIndent: 0 };
  let json: unknown;
  if (trimmed[0] === '{') {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined; // not JSON: YAML in flow style, read below (and JSON.parse's message quotes the input)
    }
  }
  if (json !== undefined) {
    const o = json as Record<string, unknown>;
    if (o && o.kind === 'ResourceList') {
      if (!Array.isArray(o.items)) throw new KrmError('the ResourceList has no `items` list');
      o.items.forEach((it, i) => {
        if (it === null || typeof it !== 'object' || Array.isArray(it)) throw new KrmError(`items[${i}] is not a mapping (a KRM resource)`);
      });
      return {
        format: 'json',
        items: o.items.map((i) => KubeObject.fromData(i as object)),
        functionConfig: o.functionConfig ? KubeObject.fromData(o.functionConfig as object) : undefined,
        sections: [],
        seqIndent: 0,
      };
    }
    return { format: 'stream', items: [KubeObject.fromData(o)], sections: [], seqIndent: 0 };
  }
  const fast = fromSections(text);
  if (fast) return fast;

  // Not the plain layout: parse everything with yaml (flow style, anchors, odd indentation).
  const docs = yamlLib().parseAllDocuments(text, PARSE_OPTIONS);
  if (!Array.isArray(docs)) return { format: 'stream', items: [], sections: [], seqIndent: 0 };
  docs.forEach((d, i) => {
    if (d.errors.length > 0) throw yamlError(d.errors[0]!, docs.length > 1 ? i : undefined);
  });
  const first = docs[0]?.toJS({ maxAliasCount: 10_000 }) as Record<string, unknown> | null | undefined;
  if (docs.length === 1 && first && typeof first === 'object' && first.kind === 'ResourceList') {
    if (!Array.isArray(first.items))
      throw new KrmError('the ResourceList has no `items` field: expected `items:` with a list of resources (or `items: []`)');
    const itemsNode = docs[0]!.get('items', true) as { items: unknown[] };
    const items = itemsNode.items.map((node, i) => {
      const d = docs[0]!.clone();
      d.contents = node as never;
      let body: string;
      try {
        body = d.toString(EMIT_OPTIONS);
      } catch {
        body = yamlLib().stringify((first.items as unknown[])[i], EMIT_OPTIONS); // an alias into another item
      }
      return KubeObject.fromDocument(body);
    });
    const fc = first.functionConfig;
    return {
      format: 'list',
      items,
      functionConfig: fc && typeof fc === 'object' ? KubeObject.fromData(fc) : undefined,
      sections: [
        { key: 'apiVersion', text: `apiVersion: ${String(first.apiVersion ?? 'config.kubernetes.io/v1')}\n` },
        { key: 'kind', text: 'kind: ResourceList\n' },
        { key: 'items', text: '' },
      ],
      seqIndent: 0,
    };
  }
  return { format: 'stream', items: splitStream(text).map((d) => KubeObject.fromDocument(d)), sections: [], seqIndent: 0 };
}

function itemText(o: KubeObject, seqIndent: number): string {
  const orig = o.original;
  if (orig !== undefined && !o.changed) {
    // a document read from a stream has no `- `: it must be indented to join a list
    return o.lead + (orig.startsWith('- ') || /^ *- /.test(orig) ? orig : indentItem(orig, seqIndent));
  }
  return o.lead + indentItem(o.body, seqIndent);
}

function resultsText(results: Result[]): string {
  if (results.length === 0) return '';
  return 'results:\n' + plainYaml(results);
}

/**
 * Writes the output in the input's format, with `items` as given and `results` appended. The
 * functionConfig is not echoed: the KRM function spec does not ask for it, orchestrators drop
 * it, and it may carry credentials (a BMC address with user info, a token in an annotation).
 */
export function writeOutput(input: ParsedInput, items: KubeObject[], results: Result[]): string {
  if (input.format === 'json') {
    const out: Record<string, unknown> = {
      apiVersion: 'config.kubernetes.io/v1',
      kind: 'ResourceList',
      items: items.map((i) => i.data),
    };
    if (results.length) out.results = results;
    return JSON.stringify(out, null, 2) + '\n';
  }
  if (input.format === 'stream') {
    return items
      .map((o) => (o.changed ? o.body : o.original!))
      .map((t) => (t.endsWith('\n') ? t : t + '\n'))
      .join('---\n');
  }
  let out = '';
  let wroteItems = false;
  const writeItems = (): void => {
    wroteItems = true;
    if (items.length === 0) {
      out += 'items: []\n';
      return;
    }
    out += 'items:\n';
    for (const o of items) out += itemText(o, input.seqIndent);
  };
  for (const s of input.sections) {
    if (s.key === 'results' || s.key === 'functionConfig') continue;
    if (s.key === 'items') {
      out += s.text;
      writeItems();
      continue;
    }
    out += s.text.endsWith('\n') ? s.text : s.text + '\n';
  }
  if (!wroteItems) writeItems();
  return out + resultsText(results);
}
