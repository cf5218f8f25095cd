/**
 * A quoted string or flow collection in an item, continued on lines at column 0 (or anywhere
 * below the item's indentation): go-yaml (kpt, kubectl) reads those lines as more of the value,
 * so a continuation line that looks like `- apiVersion: v1`, `functionConfig:` or `kind:` is
 * neither a new item nor a section of the list. Generated: the same list with the continuation
 * lines indented as YAML asks is the reference (`yaml` reads it; folding ignores indentation);
 * each item's line is where it stands in the text as written.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { identity } from '../../test/identity/function.js';
import { PARSE_OPTIONS, yamlLib } from './lazy.js';
import { runFunction } from './main.js';
import { readInput } from './resource-list.js';

const Y = yamlLib();

/** Lines that end an entry or start a section when read at column 0 outside a value. */
const HOSTILE = [
  '- apiVersion: v1',
  '- kind: Secret',
  'functionConfig: x',
  'kind: List',
  'items: sneaky',
  'results:',
  'metadata: {name: phantom}',
  '  stringData:',
  'plain words',
  '#not a comment',
  '# nor this',
];

interface Case {
  /** which item holds the long value */
  at: number;
  items: number;
  /** `"`, `'` or `[` */
  opener: string;
  lines: string[];
  indent: number;
  seqIndent: number;
  /** the first line ends in an escaped quote (`"first\\"`, `'first''`): the string is still open */
  escaped: boolean;
  /** the closing quote on a line that starts with `#` (text of the string, not a comment) */
  hashClose: boolean;
  /** a functionConfig section after the items (the last entry then ends at a top-level key) */
  config: boolean;
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  at: fc.nat(2),
  items: fc.integer({ min: 1, max: 3 }),
  opener: fc.constantFrom('"', "'", '['),
  lines: fc.array(fc.constantFrom(...HOSTILE), { minLength: 1, maxLength: 4 }),
  indent: fc.constantFrom(0, 1),
  seqIndent: fc.constantFrom(0, 2),
  escaped: fc.boolean(),
  hashClose: fc.boolean(),
  config: fc.boolean(),
});

/** The list: item `at` holds `x:` opened on its line and continued on `lines` indented `indent` (or properly). */
function listOf(c: Case, proper: boolean): string {
  const s = ' '.repeat(c.seqIndent);
  const body = ' '.repeat(c.seqIndent + 2);
  const pad = proper ? ' '.repeat(c.seqIndent + 6) : ' '.repeat(c.indent);
  const flow = c.opener === '[';
  const close = flow ? ']' : c.opener;
  // in a flow sequence each line is an entry of its own (`a: b` a one-pair mapping): commas between
  const cont = c.lines.map((l) => (flow ? `${l.replace(/^[-#] /, 'dash ')},` : l));
  const first = flow ? 'first,' : c.escaped ? (c.opener === '"' ? 'first\\"' : "first''") : 'first';
  const last = `${flow ? 'last' : ''}${close}`;
  const closing = c.hashClose && !flow ? `${proper ? pad : ''}# ${last}` : `${proper ? pad : `${body}  `}${last}`;
  let out = 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n';
  for (let i = 0; i < Math.max(c.items, c.at + 1); i++) {
    out += `${s}- apiVersion: v1\n${body}kind: ConfigMap\n${body}metadata:\n${body}  name: cm-${i}\n${body}data:\n`;
    if (i === c.at) out += `${body}  x: ${c.opener}${first}\n${cont.map((l) => pad + l + '\n').join('')}${closing}\n`;
    if (i < c.items - 1 || !c.hashClose) out += `${body}  y: "after   ${i}"\n`;
  }
  return out;
}

const CONFIG = 'functionConfig: {apiVersion: v1, kind: ConfigMap, metadata: {name: f}}\n';

describe('a value continued at column 0 (go-yaml reads it as more of the value)', () => {
  it('is read as one item, as with the lines indented, and the list is written back as it came', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const items = listOf(c, false);
        const text = items + (c.config ? CONFIG : '');
        const reference = (Y.parse(listOf(c, true), PARSE_OPTIONS) as { items: unknown[] }).items;
        const read = readInput(text).items;
        expect(read.map((o) => o.data)).toEqual(reference);
        // each item's line is its `- ` line in the text as written (3 lines above its name)
        const lineOf = (i: number) => text.slice(0, text.indexOf(`  name: cm-${i}\n`)).split('\n').length - 3;
        expect(read.map((o) => o.inputLine)).toEqual(read.map((_, i) => lineOf(i)));
        const r = await runFunction(identity, text);
        expect(r.exitCode, r.stderr).toBe(0);
        // every item as it came (the functionConfig is not echoed)
        expect(r.output.startsWith(items)).toBe(true);
      }),
      { numRuns: 150, seed: 20261203 },
    );
  });

  it('the reported list: a `- apiVersion:` line inside a quoted string is no item of its own', () => {
    const text =
      'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  data:\n    x: "line one\n- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: phantom\n    end"\n';
    expect(readInput(text).items.map((o) => `${o.kind}/${o.name}`)).toEqual(['ConfigMap/a']);
  });
});
