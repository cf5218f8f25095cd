/**
 * A krusty-style inline helper for one-rule tests: a YAML stream in, the findings of
 * intent-validate's analysis out (rule, severity, field, message), with the work it counted.
 */
import { readInput, type KubeObject } from '../src/krm/index.js';
import { type AnalyseRunOptions, analyse, type IntentValidateSpec } from '../src/validate/analyse.js';

export interface ShortFinding {
  rule: string;
  severity: string;
  field?: string;
  message: string;
}

export function itemsOf(yaml: string): KubeObject[] {
  return readInput(yaml).items;
}

export async function findingsOf(
  yaml: string | KubeObject[],
  spec: IntentValidateSpec = {},
  opts: AnalyseRunOptions = {},
): Promise<ShortFinding[]> {
  const a = await analyse(typeof yaml === 'string' ? itemsOf(yaml) : yaml, spec, opts);
  return a.findings.map((f) => ({ rule: f.rule, severity: f.severity, field: f.field, message: f.message }));
}

/** Only the findings of one rule. */
export async function ruleFindings(
  rule: string,
  yaml: string | KubeObject[],
  spec: IntentValidateSpec = {},
  opts: AnalyseRunOptions = {},
): Promise<ShortFinding[]> {
  return (await findingsOf(yaml, spec, opts)).filter((f) => f.rule === rule);
}
