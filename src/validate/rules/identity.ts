/** Object identity: two items with one group, kind, namespace and name in one scope. */
import type { KubeObject } from '../../krm/index.js';
import { KeyedMap, type RuleContext, type RuleFamily } from '../context.js';

export class IdentityRules implements RuleFamily {
  constructor(private readonly ctx: RuleContext) {}

  finish(): void {
    const { ctx } = this;
    if (!ctx.on('duplicate')) return;
    const seen = new KeyedMap<KubeObject>();
    for (const o of ctx.items) {
      const h = ctx.head(o);
      if (!h.kind || !h.name || ctx.isPartial(o)) continue;
      // an item alone with its kind, namespace and name is no duplicate: only the few others are keyed
      if (!ctx.repeated(h.kind, h.namespace, h.name)) continue;
      const id = [ctx.opts.scopeOf?.(o) ?? '', h.group, h.kind, h.namespace ?? '', h.name];
      const first = seen.get(id);
      if (!first) {
        seen.set(id, o);
        continue;
      }
      const where = ctx.locate(first);
      ctx.report(
        'duplicate',
        `${o.id} is defined twice (first${where ? ' in ' + where : ''}); kustomize and the API server keep only one: rename or remove one of them`,
        { object: o, field: 'metadata.name', path: ['metadata', 'name'] },
      );
    }
  }
}
