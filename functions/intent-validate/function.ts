/**
 * intent-validate: fail fast on wrong bare-metal intent. A KRM validator (kpt pipeline
 * `validators:`, kustomize `transformers:`) over the validation library in src/validate: it runs
 * every rule and reports KRM results with rule id, resource, field, file and line. It never
 * changes an item.
 */
import type { FunctionDefinition, KubeObject } from '../../src/krm/index.js';
import { analyse, CONFIG, type IntentValidateSpec, readExtraCrds, rulesHelp, toResults } from '../../src/validate/index.js';

export type { IntentValidateSpec };

export const definition: FunctionDefinition<IntentValidateSpec> = {
  ...CONFIG,
  summary:
    'validates bare-metal intent: schemas (Metal3, Flux, airshipit.org, CRDs in the input), references, duplicate MACs/BMCs/IPs, hardware vs profiles, certificate expiry, plaintext secrets, security hygiene and capacity',
  moreHelp:
    'Rules (id, default severity; set spec.rules.<id>.severity to error|warning|info|off):\n' +
    rulesHelp() +
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
