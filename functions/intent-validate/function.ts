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
import { compareStrings } from '../../src/krm/compare.js';

export type { IntentValidateSpec };

const SEVERITY_ORDER = { error: 0, warning: 1, info: 2 } as const;

/** Findings as KRM results, in a stable order (input order, then rule, then field). */
export function toResults(
  findings: Finding[],
  ctx: { results: { add(s: Finding['severity'], m: string, o: object): unknown } },
  order: Map<KubeObject, number>,
): void {
  const sorted = [...findings].sort((a, b) => {
    const ia = a.object ? (order.get(a.object) ?? 1e9) : -1;
    const ib = b.object ? (order.get(b.object) ?? 1e9) : -1;
    return (
      ia - ib ||
      SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
      compareStrings(a.rule, b.rule) ||
      compareStrings(a.field ?? '', b.field ?? '') ||
      compareStrings(a.message, b.message)
    );
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
    if (line !== undefined && f.object) line = fileLine(f.object, line);
    ctx.results.add(f.severity, f.message, { object: f.object, field: f.field, rule: f.rule, line });
  }
}

/** Annotation lines kpt and kustomize add to an item; they are not in the file. */
const INJECTED = /^\s+['"]?(?:internal\.config\.kubernetes\.io\/[^'":]+|config\.kubernetes\.io\/(?:path|index)|config\.k8s\.io\/id)['"]?:/;

/**
 * A line in the input as a line in the item's file. Items read from files by kpt or kustomize
 * (with a config.kubernetes.io/path annotation) count from their document's start, less the
 * annotation lines the tool added; the first document of a file starts on line 1, a later one
 * at an offset the function cannot know, so its line is left out. Items without a path (a piped
 * stream, a bare ResourceList) keep their line in the input.
 */
export function fileLine(o: KubeObject, line: number): number | undefined {
  const file = o.file();
  if (!file) return line;
  if ((file.index ?? 0) !== 0) return undefined;
  const lines = o.body.split('\n');
  const rel = line - (o.sourceLine ?? 1); // 0-based in the item
  let skip = 0;
  let annotationsAt = -1;
  let inAnnotations = false;
  let own = 0;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (/^ {2}annotations:\s*$/.test(l)) {
      annotationsAt = i;
      inAnnotations = true;
      continue;
    }
    if (!inAnnotations) continue;
    if (/^ {4}\S/.test(l)) {
      if (!INJECTED.test(l)) own++;
      else if (i < rel) skip++;
    } else if (!/^ {5}/.test(l)) inAnnotations = false;
  }
  // an annotations: key holding only what the tool added is not in the file either
  if (annotationsAt >= 0 && own === 0 && annotationsAt < rel) skip++;
  return rel - skip + 1;
}

export const definition: FunctionDefinition<IntentValidateSpec> = {
  name: 'intent-validate',
  configKind: 'IntentValidate',
  summary:
    'validates bare-metal intent: schemas (Metal3, Flux, airshipit.org, CRDs in the input), references, duplicate MACs/BMCs/IPs, hardware vs profiles, certificate expiry, plaintext secrets, security hygiene and capacity',
  specSchema,
  validateSpec,
  // `kpt fn eval --exec` without --fn-config sends an empty ConfigMap: every rule at its default
  fromConfigMap(data) {
    if (Object.keys(data).length === 0) return {};
    throw new Error(
      `intent-validate takes no ConfigMap data (found ${Object.keys(data).sort().join(', ')}): use apiVersion baremetal-krm.dev/v1alpha1, kind IntentValidate with a spec`,
    );
  },
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
