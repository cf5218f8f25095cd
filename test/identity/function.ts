/**
 * A test-only function on the runtime: changes nothing unless told to set annotations. Used by
 * the runtime tests, the losslessness check and the benchmark.
 */
import type { FunctionDefinition } from '../../src/krm/index.js';
import schema from './spec.schema.json' with { type: 'json' };
import validateSpec from './generated/spec.validate.js';

interface Spec {
  annotate?: Record<string, string>;
  readAll?: boolean;
}

export const identity: FunctionDefinition<Spec> = {
  name: 'test-identity',
  configKind: 'Identity',
  summary: 'passes every item through; optionally sets annotations (tests only)',
  specSchema: schema,
  validateSpec,
  fromConfigMap: (data) => ({ annotate: data }),
  run(ctx) {
    for (const o of ctx.resources()) {
      if (ctx.spec.readAll) void o.data;
      for (const [k, v] of Object.entries(ctx.spec.annotate ?? {})) o.setAnnotation(k, v);
    }
  },
};
