/**
 * The folder source and sink on generated packages (property): documents whose file annotations
 * (`config.kubernetes.io/path`, `index`, their `internal.` forms) are written by hand, anchored
 * or aliased, with anchors and aliases elsewhere in the item, several documents per file and
 * `kind: List` files. Read by the source, run through a function, written by the sink: never an
 * error, every file reads as its documents did (less the file annotations, which the sink
 * removes as kpt's does) with the function's edits, and a file the run did not change keeps its bytes.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { identity } from '../../test/identity/function.js';
import { PARSE_OPTIONS, readPackageFiles, runFunction, sinkResourceList, sourceResourceList } from './index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const FILE_ANNOTATIONS = [
  'config.kubernetes.io/path',
  'config.kubernetes.io/index',
  'internal.config.kubernetes.io/path',
  'internal.config.kubernetes.io/index',
];

/** An annotation line: a file annotation or another, its value plain, quoted, anchored or an alias of an anchor before it. */
const annotationArb = fc.record({
  key: fc.constantFrom(...FILE_ANNOTATIONS, 'team', 'note'),
  value: fc.constantFrom('own', 'other', '"0"', "'1'", 'x # c'),
  anchor: fc.constantFrom('', '', '&p ', '&q ', '!!str &p '),
  alias: fc.boolean(),
});
const docArb = fc.record({
  annotations: fc.uniqueArray(annotationArb, { selector: (a) => a.key, maxLength: 4 }),
  flowAnnotations: fc.boolean(),
  // where aliases of the anchors stand: data values, a label, a flow list
  aliases: fc.uniqueArray(fc.constantFrom('data', 'label', 'flow'), { maxLength: 3 }),
});
const fileArb = fc.record({ docs: fc.array(docArb, { minLength: 1, maxLength: 3 }), list: fc.boolean() });

/** A document's text: anchors are always before their aliases, never around them. */
type Doc = typeof docArb extends fc.Arbitrary<infer T> ? T : never;
type File = typeof fileArb extends fc.Arbitrary<infer T> ? T : never;

function docText(d: Doc, name: string, path: string): string {
  const anchors: string[] = [];
  const entries = d.annotations.map((a) => {
    const v = a.value === 'own' ? path : a.value === 'other' ? 'other.yaml' : a.value;
    if (a.alias && anchors.length) return `${a.key}: *${anchors[0]}`;
    const anchor = /&(\w)/.exec(a.anchor)?.[1];
    if (anchor) anchors.push(anchor);
    return `${a.key}: ${a.anchor}${v}`;
  });
  let meta = `metadata:\n  name: ${name}\n`;
  if (entries.length) {
    meta +=
      d.flowAnnotations && !entries.some((e) => e.includes('#'))
        ? `  annotations: {${entries.join(', ')}}\n`
        : `  annotations:\n${entries.map((e) => `    ${e}\n`).join('')}`;
  }
  const alias = anchors[anchors.length - 1];
  if (alias && d.aliases.includes('label')) meta += `  labels:\n    from: *${alias}\n`;
  let data = 'data:\n  k: v\n';
  if (alias && d.aliases.includes('data')) data += `  copy: *${alias}\n`;
  if (alias && d.aliases.includes('flow')) data += `  list: [*${alias}, x]\n`;
  return `apiVersion: v1\nkind: ConfigMap\n${meta}${data}`;
}

function fileText(f: File, path: string, n: number): string {
  const docs = f.docs.map((d, i) => docText(d, `cm${n}-${i}`, path));
  if (!f.list) return docs.join('---\n');
  return `apiVersion: v1\nkind: List\nitems:\n${docs.map((d) => `- ${d.trimEnd().replace(/\n/g, '\n  ')}\n`).join('')}`;
}

/** The items of a file as plain data (a List unwrapped), aliases expanded and unshared. */
function itemsOf(text: string): unknown[] {
  const out: unknown[] = [];
  for (const d of parseAllDocuments(text, PARSE_OPTIONS)) {
    expect(d.errors).toEqual([]);
    const v = JSON.parse(JSON.stringify(d.toJS({ maxAliasCount: -1 }))) as { kind?: string; items?: unknown[] } | null;
    if (v === null) continue;
    if (v.kind === 'List' && Array.isArray(v.items)) out.push(...v.items);
    else out.push(v);
  }
  return out;
}

/** What the sink writes of an item: the item as it was (its own file annotations too), `extra` annotations added. */
function expected(item: unknown, extra: Record<string, string>): unknown {
  const o = JSON.parse(JSON.stringify(item)) as { metadata: { annotations?: Record<string, unknown> } };
  if (Object.keys(extra).length) o.metadata.annotations = { ...(o.metadata.annotations ?? {}), ...extra };
  return o;
}

describe('a folder through source, a function and sink (property)', () => {
  it('hand-written file annotations (kept), anchored or aliased, anchors elsewhere, List files: no error, the data as it was plus the edits', async () => {
    const config = 'apiVersion: baremetal-krm.dev/v1alpha1\nkind: Identity\nmetadata:\n  name: fn\n';
    await fc.assert(
      fc.asyncProperty(fc.array(fileArb, { minLength: 1, maxLength: 2 }), fc.boolean(), async (files, annotate) => {
        const dir = mkdtempSync(join(tmpdir(), 'bmk-roundtrip-'));
        dirs.push(dir);
        const texts = files.map((f, n) => fileText(f, `f${n}.yaml`, n));
        texts.forEach((t, n) => writeFileSync(join(dir, `f${n}.yaml`), t));
        const before = texts.map(itemsOf);
        const sourced = readPackageFiles(dir);
        const r = await runFunction(
          identity,
          sourceResourceList(sourced, annotate ? `${config}spec:\n  annotate: {team: metal}\n` : config),
        );
        expect(r.results.filter((x) => x.severity !== 'info')).toEqual([]);
        sinkResourceList(dir, r.output, sourced, true);
        expect(readdirSync(dir).sort()).toEqual(texts.map((_, n) => `f${n}.yaml`));
        texts.forEach((t, n) => {
          const now = readFileSync(join(dir, `f${n}.yaml`), 'utf8');
          expect(itemsOf(now)).toEqual(before[n]!.map((i) => expected(i, annotate ? { team: 'metal' } : {})));
          // a file the run did not change: its bytes (hand-written file annotations too)
          if (!annotate) expect(now).toBe(t);
        });
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 60), seed: Number(process.env.FUZZ_SEED ?? 5), endOnFailure: true },
    );
  }, 120_000);
});
