/**
 * The differential fuzzer's judge: a case (corpus documents in variants, assembled in a layout)
 * run through every function configured to change nothing, in process. What must hold:
 * - no crash: no `internal` result, no stack trace;
 * - the exit code is 1 exactly when there are error results;
 * - lossless: when the function changes nothing on the same documents in the plain list kpt
 *   sends, the output is the input (a stream) or the input with the results inserted in one
 *   place (a ResourceList, YAML or JSON);
 * - the runtime reads the same items as `yaml` (or JSON.parse) does, whatever the layout.
 * Returns the problems found (empty when the case passes), for the test and the bench.
 */
import { isDeepStrictEqual } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { definition as bmhFromRedfish } from '../../functions/bmh-from-redfish/function.js';
import { definition as intentValidate } from '../../functions/intent-validate/function.js';
import { definition as phasePlanExpand } from '../../functions/phase-plan-expand/function.js';
import { definition as siteFromCatalogue } from '../../functions/site-from-catalogue/function.js';
import { type FunctionDefinition, PARSE_OPTIONS, readInput, runFunction } from '../../src/krm/index.js';
import { pushAll } from '../../src/krm/data.js';
import { scanJsonObject } from '../../src/krm/json-scan.js';
import { resourceList } from '../golden.js';
import { identity } from '../identity/function.js';
import fc from 'fast-check';
import { assemble, DOC_VARIANTS, type DocVariant, docVariant, type Layout, layoutArb } from './variants.js';
import { RULES } from '../../src/validate/index.js';

/** Every rule of intent-validate, each set to info below: findings never fail the run. */
const INTENT_RULES = RULES.map((r) => r.id);

function config(kind: string, spec: string): string {
  return `apiVersion: baremetal-krm.dev/v1alpha1\nkind: ${kind}\nmetadata:\n  name: no-change\n  annotations:\n    config.kubernetes.io/local-config: "true"\n    baremetal-krm.dev/report-only: "true"\nspec:\n${spec}`;
}

/** Each function with a functionConfig under which it changes nothing. */
export const NO_CHANGE: { def: FunctionDefinition<never>; config: string }[] = [
  {
    def: identity as FunctionDefinition<never>,
    config: 'apiVersion: baremetal-krm.dev/v1alpha1\nkind: Identity\nmetadata:\n  name: no-change\n',
  },
  { def: bmhFromRedfish as FunctionDefinition<never>, config: config('BMHFromRedfish', '  mode: generate\n') },
  { def: siteFromCatalogue as FunctionDefinition<never>, config: config('SiteFromCatalogue', '  hosts: []\n') },
  { def: phasePlanExpand as FunctionDefinition<never>, config: config('PhasePlanExpand', '  plans: []\n') },
  {
    def: intentValidate as FunctionDefinition<never>,
    config: config('IntentValidate', `  rules:\n${INTENT_RULES.map((r) => `    ${r}: {severity: info}\n`).join('')}`),
  },
];

export interface Case {
  docs: string[];
  variants: DocVariant[];
  layout: Layout;
}

/** Cases: up to five corpus documents, each in a variant, in a layout. */
export const caseArb = (corpusDocs: string[]): fc.Arbitrary<Case> =>
  fc
    .record({
      picks: fc.array(fc.nat(corpusDocs.length - 1), { minLength: 0, maxLength: 5 }),
      variants: fc.array(fc.constantFrom(...DOC_VARIANTS), { minLength: 1, maxLength: 5 }),
      layout: layoutArb,
    })
    .map(({ picks, variants, layout }) => ({ docs: picks.map((i) => corpusDocs[i]!), variants, layout }));

/** Runs `n` cases (seeded); returns the failing ones with their problems. */
export async function fuzz(corpusDocs: string[], n: number, seed: number): Promise<{ case: Case; problems: string[] }[]> {
  const failing: { case: Case; problems: string[] }[] = [];
  for (const c of fc.sample(caseArb(corpusDocs), { numRuns: n, seed })) {
    const problems = await checkCase(c);
    if (problems.length) failing.push({ case: c, problems });
  }
  return failing;
}

/** The items `yaml` reads from the input (JSON.parse for JSON), `kind: List` documents unwrapped. */
function referenceItems(input: string, l: Layout): unknown[] | undefined {
  // a bare CR is a line break to go-yaml (and to the runtime's readers), not to `yaml`
  const text = input.replace(/^\ufeff/, '').replace(/\r(?!\n)/g, '\n');
  if (l.form === 'json') return (JSON.parse(text) as { items: unknown[] }).items;
  if (l.form === 'list') {
    const docs = parseAllDocuments(text, PARSE_OPTIONS);
    if (docs.length !== 1 || docs[0]!.errors.length) return undefined;
    return (docs[0]!.toJS({ maxAliasCount: -1 }) as { items: unknown[] }).items;
  }
  const docs = parseAllDocuments(text, PARSE_OPTIONS);
  if (docs.some((d) => d.errors.length)) return undefined;
  const out: unknown[] = [];
  for (const d of docs) {
    const v = d.toJS({ maxAliasCount: -1 }) as Record<string, unknown> | null;
    if (v === null) continue;
    if (v.kind === 'List' && Array.isArray(v.items)) out.push(...v.items);
    else out.push(v);
  }
  return out;
}

/** Whether `output` is `input` with one piece inserted (the results) that starts with `results` or `"results"`. */
function isInputPlusResults(input: string, output: string): boolean {
  if (output === input) return true;
  let p = 0;
  while (p < input.length && input[p] === output[p]) p++;
  let q = 0;
  while (q < input.length - p && input[input.length - 1 - q] === output[output.length - 1 - q]) q++;
  if (p + q < input.length) return false;
  const inserted = output.slice(p, output.length - q);
  return /^[\s,]*(?:results:|"results":)/.test(inserted) || /^\s*results:/.test(inserted);
}

/** Runs one case through every no-change function; returns the problems (none: it passes). */
export async function checkCase(c: Case): Promise<string[]> {
  const docs = c.docs.map((d, i) => docVariant(d, c.variants[i % c.variants.length] ?? 'none'));
  const problems: string[] = [];
  for (const { def, config: cfg } of NO_CHANGE) {
    const withConfig = c.layout.form !== 'stream';
    const input = assemble(docs, c.layout, withConfig ? cfg : undefined);
    const r = await runFunction(def, input);
    const tag = `${def.name} (${c.layout.form})`;
    const internal = r.results.find((x) => x.tags?.rule === 'internal');
    if (internal || /\n\s+at /.test(r.stderr)) problems.push(`${tag}: crashed: ${internal?.message ?? r.stderr}`);
    const errors = r.results.some((x) => x.severity === 'error');
    if (r.exitCode !== (errors ? 1 : 0)) problems.push(`${tag}: exit ${r.exitCode} with${errors ? '' : 'out'} error results`);
    if (c.layout.mutations.length) {
      // broken input: never a crash (above); a stream the function did not read is never lost
      if (
        c.layout.form === 'stream' &&
        r.results.some((x) => x.tags?.rule === 'input' && x.severity === 'error') &&
        r.output !== input &&
        r.output !== ''
      )
        problems.push(`${tag}: a stream with an input error is not written back as it came`);
      continue;
    }
    // the plain list kpt sends, with the same documents and configuration (the functionConfig
    // is not echoed: the output is the input without it, with the results)
    const plainRun = await runFunction(def, resourceList(docs, withConfig ? cfg : undefined));
    const changesNothing = isInputPlusResults(resourceList(docs), plainRun.output);
    if (changesNothing) {
      const lossless = c.layout.form === 'stream' ? r.output === input : isInputPlusResults(assemble(docs, c.layout), r.output);
      if (!lossless) problems.push(`${tag}: output is not the input${c.layout.form === 'stream' ? '' : ' plus results'}`);
    }
  }
  if (c.layout.mutations.length) return problems;
  if (c.layout.form === 'json') pushAll(problems, await jsonEnvelopeKept(docs, c.layout));
  const reference = referenceItems(assemble(docs, c.layout, NO_CHANGE[0]!.config), c.layout);
  if (reference) {
    const ours = readInput(assemble(docs, c.layout, NO_CHANGE[0]!.config).replace(/^\ufeff/, '')).items.map((o) => {
      try {
        return o.data;
      } catch (e) {
        return `unreadable: ${(e as Error).message}`;
      }
    });
    if (!isDeepStrictEqual(JSON.parse(JSON.stringify(ours)), JSON.parse(JSON.stringify(reference))))
      problems.push(`the runtime reads other items than yaml does (${ours.length} vs ${reference.length})`);
  }
  return problems;
}

/** The identity function annotating every resource: the items change, nothing else should. */
const ANNOTATE =
  'apiVersion: baremetal-krm.dev/v1alpha1\nkind: Identity\nmetadata:\n  name: annotate\nspec:\n  annotate: {fuzz.baremetal-krm.dev/touched: "yes"}\n';

/** A JSON object's text with one member cut (with the comma joining it), and its `items` array as `[]`; where the cut was. */
function envelope(text: string, cut: string): { text: string; at: number } | undefined {
  const scan = scanJsonObject(text);
  const items = scan?.members.find((m) => m.key === 'items');
  if (!scan || !items) return undefined;
  const i = scan.members.findIndex((m) => m.key === cut);
  const m = scan.members[i];
  const prev = scan.members[i - 1];
  const next = scan.members[i + 1];
  const [from, to] = !m ? [items.end, items.end] : prev ? [prev.end, m.end] : [m.keyStart, next ? next.keyStart : m.end];
  const spans = [
    { from, to, text: '' },
    { from: items.start, to: items.end, text: '[]' },
  ].sort((a, b) => b.from - a.from);
  let out = text;
  for (const s of spans) out = out.slice(0, s.from) + s.text + out.slice(s.to);
  return { text: out, at: from < items.start ? from : from - (items.end - items.start - 2) };
}

/**
 * A JSON ResourceList whose items change (the identity function annotating every resource):
 * the envelope keeps every byte (members, their order and spacing; the functionConfig cut, the
 * results inserted), and each item that did not change keeps its bytes.
 */
async function jsonEnvelopeKept(docs: string[], layout: Layout): Promise<string[]> {
  const input = assemble(docs, layout, ANNOTATE);
  const r = await runFunction(identity, input);
  if (r.exitCode !== 0) return []; // items that cannot be read: the run changed nothing
  const was = envelope(input, 'functionConfig');
  const now = envelope(r.output, 'results');
  if (!was || !now) return [`json (items changed): the output is not a JSON object with items`];
  const problems: string[] = [];
  // the results are inserted where the functionConfig or the last member was, a line break after them when the object closed on its line
  if (now.text !== was.text && now.text.slice(0, now.at) + now.text.slice(now.at + 1) !== was.text)
    problems.push('json (items changed): the envelope is not kept byte for byte');
  const spansIn = scanJsonObject(input)!.items ?? [];
  const spansOut = scanJsonObject(r.output)!.items ?? [];
  spansIn.forEach((s, i) => {
    const before = input.slice(s.start, s.end);
    const after = spansOut[i] && r.output.slice(spansOut[i].start, spansOut[i].end);
    if (after !== undefined && after !== before && isDeepStrictEqual(JSON.parse(after), JSON.parse(before)))
      problems.push(`json (items changed): items[${i}] did not change but is written anew`);
  });
  return problems;
}
