import type { Context } from '../../src/krm/index.js';
import type { Spec } from './spec.js';
export function generateSite<S>(ctx: Context<S>, spec: Spec): void {
  void spec;
  ctx.results.error('site: not implemented yet');
}
