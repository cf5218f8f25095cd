/**
 * intent-validate: fail fast on wrong bare-metal intent. A KRM validator (kpt pipeline
 * `validators:`, kustomize `validators:`) that runs every rule of analyse.ts and reports KRM
 * results with rule id, resource, field, file and line. It never changes an item.
 */
import type { FunctionDefinition, KubeObject } from '../../src/krm/index.js';
import specSchema from './spec.schema.json' with { type: 'json' };
import { validateSpec } from './packed.js';
import { analyse, type Finding, type IntentValidateSpec } from './analyse.js';
import { RULES } from './rules.js';
import { lineOfPath } from './schema.js';
import { readExtraCrds } from './extra.js';

export type { IntentValidateSpec };

const SEVERITY_ORDER = { error: 0, warning: 1, info: 2 } as const;

/** Findings as KRM results, in a stable order (input order, then rule, then field). */
export function toResults(findings: Finding[], ctx: { results: { add(s: Finding['severity'], m: string, o: object): unknown } }, order: Map<KubeObject, number>): void {
  const sorted = [...findings].sort((a, b) => {
    const ia = a.object ? (order.get(a.object) ?? 1e9) : -1;
    const ib = b.object ? (order.get(b.object) ?? 1e9) : -1;
    return ia - ib || SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || a.rule.localeCompare(b.rule) || (a.field ?? '').localeCompare(b.field ?? '') || a.message.localeCompare(b.message);
  });
  for (const f of sorted) {
    let line = f.line;
    if (line === undefined && f.object && f.path) {
      // from the item's text first; the YAML parser (KubeObject.lineOf) only when that cannot tell
      line = lineOfPath(f.object, f.path);
      if (line === undefined)
        try {
          line = f.object.lineOf(f.path as (string | number)[]);
        } catch {
          line = undefined;
        }
    }
    ctx.results.add(f.severity, f.message, { object: f.object, field: f.field, rule: f.rule, line });
  }
}

export const definition: FunctionDefinition<IntentValidateSpec> = {
  name: 'intent-validate',
  configKind: 'IntentValidate',
  summary:
    'validates bare-metal intent: schemas (Metal3, Flux, airshipit.org, CRDs in the input), references, duplicate MACs/BMCs/IPs, hardware vs profiles, certificate expiry, plaintext secrets, security hygiene and capacity',
  specSchema,
  validateSpec,
  moreHelp:
    'Rules (id, default severity; set spec.rules.<id>.severity to error|warning|info|off):\n' +
    RULES.map((r) => `  ${r.id.padEnd(26)} ${r.severity.padEnd(8)} ${r.summary}`).join('\n') +
    '\n\nExit code 1 when any error result is reported. Results carry tags.rule and tags.line.',
  async run(ctx) {
    const items = ctx.items;
    const extraCrds = readExtraCrds(ctx.spec.schemas?.paths ?? [], ctx.results);
    const a = await analyse(items, ctx.spec, { extraCrds });
    const order = new Map<KubeObject, number>();
    items.forEach((o, i) => order.set(o, i));
    toResults(a.findings, ctx, order);
  },
};
