/**
 * The IntentValidate configuration (what the KRM function reads from its functionConfig and
 * `baremetal-krm validate --config` from a file): kind, schema, validator and rule help.
 */
import specSchema from './spec.schema.json' with { type: 'json' };
import { validateSpec } from './packed.js';
import { RULES } from './rules.js';

export const CONFIG = {
  name: 'intent-validate',
  configKind: 'IntentValidate',
  specSchema,
  validateSpec,
  // `kpt fn eval --exec` without --fn-config sends an empty ConfigMap: every rule at its default
  fromConfigMap(data: Record<string, string>): unknown {
    if (Object.keys(data).length === 0) return {};
    throw new Error(
      `intent-validate takes no ConfigMap data (found ${Object.keys(data).sort().join(', ')}): use apiVersion baremetal-krm.dev/v1alpha1, kind IntentValidate with a spec`,
    );
  },
};

/** One line per rule: id, default severity, summary. */
export function rulesHelp(indent = '  '): string {
  return RULES.map((r) => `${indent}${r.id.padEnd(26)} ${r.severity.padEnd(8)} ${r.summary}`).join('\n');
}
