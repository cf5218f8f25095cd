import type { Context } from '../../src/krm/index.js';
import type { Spec } from './spec.js';
export function distil<S>(ctx: Context<S>, spec: Spec): void {
  void spec;
  ctx.results.error('distil: not implemented yet');
}
