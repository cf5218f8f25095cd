/**
 * We read what go-yaml reads, differentially against the real kubectl: generated ConfigMaps whose
 * values are quoted strings and flow collections over several lines (continued at any
 * indentation, down to column 0; with escapes, `\'`, escaped line breaks, empty lines, and
 * lines that look like `- apiVersion:`, `# comments` or `key:` lines), block scalars with
 * indicators, in a plain stream and in a ResourceList (entries at column 0 or indented, a
 * functionConfig after them or not). Each case is read by kubectl (go-yaml v2, YAML 1.1: what
 * we read as; kpt's go-yaml v3 reads `>+` before blank lines and folded lines indented more
 * otherwise than kubectl and the YAML spec) and by the runtime: both refuse it, or both read
 * the same items; and the identity function gives every item back byte for byte.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readInput, runFunction } from '../../src/krm/index.js';
import { identity } from '../identity/function.js';
import { canonical, haveBinary, run, tempDir } from './helpers.js';

const WORDS = [
  'a',
  'b c',
  'x: y',
  '- apiVersion: v1',
  'kind: Secret',
  'functionConfig:',
  '# not a comment',
  '[',
  ']',
  '{',
  '}',
  ',',
  '&a',
  '*a',
  '!t',
  '%',
  '@',
  '|',
  '>',
  '?',
  'é',
];
/** what may stand in a double-quoted string beside words: escapes, as go-yaml reads them */
const DQ_EXTRA = ['\\"', '\\\\', '\\t', "\\'", '\\x41', '\\u00e9', '\\U0001F600', "'", '\\/', '\\ud83d'];
const INDENTS = [0, 0, 1, 2, 4, 8];

const lineBreak = fc.tuple(fc.constantFrom(...INDENTS), fc.constantFrom('', '', '\n'), fc.constantFrom('', '- ', '# ', 'k: ', '---'));

/** A double- or single-quoted string over one or more lines. */
const quoted = fc
  .tuple(
    fc.constantFrom('"', "'"),
    fc.array(fc.tuple(fc.constantFrom(...WORDS, ...DQ_EXTRA), fc.option(lineBreak, { freq: 2 }), fc.boolean()), {
      minLength: 1,
      maxLength: 5,
    }),
  )
  .map(([q, parts]) => {
    let s = q;
    for (const [w, br, escapedBreak] of parts) {
      let word = w;
      if (q === "'") word = DQ_EXTRA.includes(w) ? 'z' : w.replace(/'/g, "''");
      else if (w === '"') word = '\\"';
      s += word;
      if (br) {
        const [indent, empty, lead] = br;
        s += `${q === '"' && escapedBreak ? '\\' : ''}\n${empty}${' '.repeat(indent)}${lead}`;
      }
    }
    return s + q;
  });

/** A flow sequence or mapping over one or more lines. */
const flow = fc
  .tuple(
    fc.boolean(),
    fc.array(
      fc.tuple(fc.constantFrom('a', 'b c', '"q, ]"', "'s'", '[1, 2]', '{m: n}'), fc.option(fc.constantFrom(...INDENTS), { freq: 2 })),
      {
        maxLength: 4,
      },
    ),
  )
  .map(([seq, els]) => {
    const parts = els.map(([e, br], i) => `${br !== null ? `\n${' '.repeat(br)}` : ''}${seq ? e : `k${i}: ${e}`}`);
    return seq ? `[${parts.join(', ')}]` : `{${parts.join(', ')}}`;
  });

/** A block scalar (the value's first line is its header; `pad` indents its content). */
const block = fc
  .tuple(
    fc.constantFrom('|', '|-', '|+', '>', '>-', '|2'),
    fc.array(fc.constantFrom('x', '"', "'", '- a', '# c', '[', 'y z', ''), { minLength: 1, maxLength: 3 }),
  )
  .map(([header, lines]) => ({ header, lines }));

const value = fc.oneof(
  { arbitrary: quoted, weight: 4 },
  { arbitrary: flow, weight: 2 },
  { arbitrary: block, weight: 1 },
  fc.constantFrom('plain', '"one line"'),
);

interface Case {
  form: 'stream' | 'list';
  /** how a stream's documents are separated (a document of only `null` is skipped by both) */
  separator: string;
  seqIndent: number;
  config: boolean;
  items: (string | { header: string; lines: string[] })[][];
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  form: fc.constantFrom('stream', 'list'),
  separator: fc.constantFrom('---\n', '--- # next\n', '...\n---\n', '---\nnull\n---\n', '---\n# only a comment\n---\n'),
  seqIndent: fc.constantFrom(0, 2),
  config: fc.boolean(),
  items: fc.array(fc.array(value, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
});

/** A ConfigMap at column `col`, its data values as generated (a value's later lines as they are). */
function configMap(i: number, values: Case['items'][number], col: number, first: string): string {
  const p = ' '.repeat(col);
  let s = `${first}apiVersion: v1\n${p}kind: ConfigMap\n${p}metadata:\n${p}  name: cm-${i}\n${p}data:\n`;
  values.forEach((v, k) => {
    if (typeof v === 'string') s += `${p}  k${k}: ${v}\n`;
    else s += `${p}  k${k}: ${v.header}\n${v.lines.map((l) => (l === '' ? '' : `${p}    ${l}`)).join('\n')}\n`;
  });
  return s;
}

function caseText(c: Case): string {
  if (c.form === 'stream') return c.items.map((v, i) => configMap(i, v, 0, '')).join(c.separator);
  const s = ' '.repeat(c.seqIndent);
  const items = c.items.map((v, i) => configMap(i, v, c.seqIndent + 2, `${s}- `)).join('');
  return `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n${items}${c.config ? 'functionConfig: {apiVersion: v1, kind: ConfigMap, metadata: {name: f}}\n' : ''}`;
}

/**
 * What kubectl reads (go-yaml, YAML 1.1: what we read as): the objects as JSON, from
 * `kubectl annotate --local -o json` (offline), without the annotation it was asked to add. A
 * list (any document with items, the ResourceList too) is read as its items.
 */
function kubectlRead(dir: string, text: string): unknown[] | string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'f.yaml');
  writeFileSync(file, text);
  const r = run('kubectl', ['annotate', '--local', '-o', 'json', '-f', file, 'oracle.example/read=1']);
  if (r.status !== 0) return `kubectl: ${r.stderr.trim().split('\n')[0]}`;
  // one JSON object per object, each from a `{` to a `}` at column 0
  const objects = JSON.parse(`[${r.stdout.trim().replace(/^}\n{$/gm, '},{')}]`) as Record<string, unknown>[];
  const items = objects.flatMap((o) => (o.kind === 'List' ? (o.items as unknown[]) : [o])) as {
    metadata: { annotations?: Record<string, string> };
  }[];
  for (const o of items) {
    delete o.metadata.annotations!['oracle.example/read'];
    if (Object.keys(o.metadata.annotations!).length === 0) delete o.metadata.annotations;
  }
  return items;
}

/** What we read: the items' data, or the first error. */
function ourRead(text: string): unknown[] | string {
  try {
    return readInput(text).items.map((o) => o.data);
  } catch (e) {
    return `ours: ${(e as Error).message}`;
  }
}

describe.skipIf(!haveBinary('kubectl'))('we read what kubectl (go-yaml) reads', () => {
  it('generated multi-line strings, flow collections and block scalars, in a stream and a ResourceList', async () => {
    const base = tempDir('reads-as-kubectl');
    // READS_SEED and READS_RUNS run other and more cases (a longer hunt than CI's)
    const cases = fc.sample(caseArb, { numRuns: Number(process.env.READS_RUNS ?? 120), seed: Number(process.env.READS_SEED ?? 20261203) });
    const disagreements: string[] = [];
    let readByBoth = 0;
    for (const [n, c] of cases.entries()) {
      const text = caseText(c);
      const theirs = kubectlRead(join(base, String(n)), text);
      const ours = ourRead(text);
      const refused = [typeof theirs === 'string', typeof ours === 'string'];
      if (refused[0] !== refused[1] || (!refused[0] && canonical(ours) !== canonical(theirs))) {
        disagreements.push(`case ${n}:\n${text}\n  kubectl: ${canonical(theirs)}\n  ours:    ${canonical(ours)}`);
        continue;
      }
      if (refused[0]) continue;
      readByBoth++;
      const out = await runFunction(identity, text);
      const items = c.config ? text.slice(0, text.indexOf('functionConfig:')) : text;
      if (out.exitCode !== 0 || !out.output.startsWith(items))
        disagreements.push(`case ${n}: the items do not come back as they came\n${text}\n---\n${out.output}`);
    }
    expect(disagreements.slice(0, 3).join('\n\n')).toBe('');
    // most cases are valid input: the generator tests reading, not only refusing
    expect(readByBoth).toBeGreaterThan(cases.length / 2);
  }, 900_000);
});
