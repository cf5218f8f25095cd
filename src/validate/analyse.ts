/**
 * The rules of intent-validate as a library: `analyse(objects, spec)` returns the findings and
 * the facts it found (certificates, hosts with their hardware and profiles, capacity), so that
 * other tools (the cross-site report) reuse them without a second implementation.
 *
 * One pass reads each item once and hands its parsed tree to every rule family (rules/), which
 * keeps what it needs in small records; the tree is then dropped. Cross-item checks run after the
 * pass on those records, through indexes: the work is linear in the input. Nothing is printed,
 * nothing is changed, secret values are never kept or quoted.
 */
import { collectGarbage, type HeaderProblem, KrmError, type KubeObject } from '../krm/index.js';
import { analysisHead, type RuleContext as Context, RuleContext, type RuleFamily, readTree } from './context.js';
import { CapacityRules } from './rules/capacity.js';
import { ContentRules } from './rules/content.js';
import { FluxRules } from './rules/flux.js';
import { HardwareProfileRules } from './rules/hardware-profiles.js';
import { HostRules } from './rules/hosts.js';
import { IdentityRules } from './rules/identity.js';
import { PhaseRules } from './rules/phases.js';
import { SchemaRules } from './rules/schema.js';
import type { AnalyseOptions, Analysis, Finding, IntentValidateSpec } from './types.js';

export type { AnalyseOptions, Analysis, Finding, HostFact, IntentValidateSpec } from './types.js';

export interface AnalyseRunOptions extends AnalyseOptions {
  /** filled with counts of work (index lookups, items handed out): what tests count instead of timing */
  work?: Map<string, number>;
  /** an item that cannot be read (not valid YAML, not a mapping): the caller reports it (default: an `input` error finding) */
  unreadable?: (o: KubeObject, message: string) => void;
}

/**
 * Items from which one full garbage collection between the pass and the cross-item checks pays
 * for itself: the pass leaves every item's tree and the index's outgrown tables as garbage,
 * which V8 keeps until its heap doubles, and the checks would add their records on top (at
 * 100k objects of the fleet mix ~15 MiB of peak RSS, for ~2% of the run).
 */
const LARGE_ANALYSIS = 50_000;

function configFinding(ctx: Context): void {
  if (ctx.nowValid) return;
  // an unreadable spec.now would make every certificate comparison false: refuse it, check no certificate
  ctx.findings.push({
    rule: 'config',
    severity: 'error',
    message: `spec.now ${JSON.stringify(ctx.spec.now)} is not a valid time: write an RFC 3339 time such as 2024-01-01T00:00:00Z (or leave it out for the current time); no certificate was checked`,
    field: 'spec.now',
  });
}

/** What is wrong with the item's header (a field of the wrong type, kind without apiVersion ...). */
function headerProblemsOf(o: KubeObject): readonly HeaderProblem[] {
  try {
    return o.headerProblems;
  } catch (e) {
    if (e instanceof KrmError) return []; // read as a tree already: the header reads too
    throw e;
  }
}

/** Removes the findings (of the schema rule, in practice) on header fields the reader already named. */
function dropRepeated(findings: Finding[], said: Map<KubeObject, readonly HeaderProblem[]>): void {
  // each item's problem fields as a set, a finding's field and its dotted prefixes looked up in
  // it: a thousand numeric labels are a thousand problems and a thousand schema findings on one
  // item, and comparing each finding with each problem was a million comparisons
  const fields = new Map<KubeObject, Set<string>>();
  for (const [o, problems] of said) fields.set(o, new Set(problems.map((p) => p.field)));
  const repeats = (f: Finding): boolean => {
    const set = f.object && f.field !== undefined ? fields.get(f.object) : undefined;
    if (!set) return false;
    const field = f.field!;
    if (set.has(field)) return true;
    for (let dot = field.indexOf('.'); dot >= 0; dot = field.indexOf('.', dot + 1)) if (set.has(field.slice(0, dot))) return true;
    return false;
  };
  let kept = 0;
  for (const f of findings) if (!repeats(f)) findings[kept++] = f;
  findings.length = kept;
}

/** Runs every rule. Pure: nothing is printed, nothing is changed. Items with a wrong header are skipped (their reader reports them). */
export async function analyse(
  objects: readonly KubeObject[],
  spec: IntentValidateSpec = {},
  opts: AnalyseRunOptions = {},
): Promise<Analysis> {
  const ctx = new RuleContext(objects, spec, opts);
  configFinding(ctx);
  const schema = new SchemaRules(ctx);
  const hosts = new HostRules(ctx);
  const hardware = new HardwareProfileRules(ctx, hosts);
  const content = new ContentRules(ctx);
  const capacity = new CapacityRules(ctx, () => hardware.facts);
  const families: RuleFamily[] = [
    schema,
    new IdentityRules(ctx),
    hosts,
    new PhaseRules(ctx),
    new FluxRules(ctx),
    hardware,
    content,
    capacity,
  ];
  const saidOnHeader = new Map<KubeObject, readonly HeaderProblem[]>();
  // indexed loops, here and over the families: iterator results per item and family are
  // garbage at 100k items while the loop still runs unoptimised
  const items = ctx.objects;
  for (let i = 0; i < items.length; i++) {
    const o = items[i]!;
    const { tree, error } = readTree(o);
    ctx.count('items read');
    if (!tree) {
      // the input's own problem, whatever rules are on: an error no rule severity switches off
      const message = error ?? 'item is not a YAML mapping';
      if (opts.unreadable) opts.unreadable(o, message);
      else ctx.findings.push({ rule: 'input', severity: 'error', message, object: o });
      continue;
    }
    // a wrong header is reported once by whoever read the item (the function runtime, the CLI,
    // the report's loader: KubeObject.headerProblems): an item whose identity it leaves unknown
    // is not analysed (rules would key it wrongly), and no rule repeats a problem it names
    const problems = headerProblemsOf(o);
    if (problems.some((p) => p.identity)) continue;
    if (problems.length > 0) saidOnHeader.set(o, problems);
    const { head, shared } = analysisHead(o, tree);
    if (head.kind === 'Kptfile' && head.group === 'kpt.dev') continue;
    ctx.index(o, head, shared);
    // a strategic-merge deletion (`$patch: delete`) names an object; it holds none of its fields
    if (tree && tree.$patch !== undefined) ctx.markPartial(o);
    ctx.visiting(o);
    for (let k = 0; k < families.length; k++) families[k]!.visit?.(o, head, tree);
  }
  ctx.visiting(undefined);
  if (saidOnHeader.size > 0) dropRepeated(ctx.findings, saidOnHeader);
  if (ctx.objects.length >= LARGE_ANALYSIS) collectGarbage();
  for (const f of families) await f.finish?.();
  const counts = { error: 0, warning: 0, info: 0 };
  for (const f of ctx.findings) counts[f.severity]++;
  return { findings: ctx.findings, facts: { certificates: content.certificates, hosts: hardware.facts, roles: capacity.roles }, counts };
}
