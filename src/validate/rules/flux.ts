/** Flux Kustomizations: every `dependsOn` entry names a Kustomization in the input (one index lookup each). */
import type { KubeObject } from '../../krm/index.js';
import { isRecord, scalarText } from '../../krm/index.js';
import type { Head, RuleContext, RuleFamily, Tree } from '../context.js';

const FLUX_GROUP = 'kustomize.toolkit.fluxcd.io';

interface Dependency {
  index: number;
  name: string;
  ns?: string;
}

export class FluxRules implements RuleFamily {
  readonly #kustomizations: { o: KubeObject; deps: Dependency[] }[] = [];

  constructor(private readonly ctx: RuleContext) {}

  visit(o: KubeObject, head: Head, tree: Tree | undefined): void {
    if (!tree || head.kind !== 'Kustomization' || head.group !== FLUX_GROUP || this.ctx.isPartial(o)) return;
    const spec = isRecord(tree.spec) ? tree.spec : {};
    if (!Array.isArray(spec.dependsOn)) return;
    const deps: Dependency[] = [];
    spec.dependsOn.forEach((dep, index) => {
      const name = isRecord(dep) ? scalarText(dep.name) : undefined;
      if (name) deps.push({ index, name, ns: (isRecord(dep) ? scalarText(dep.namespace) : undefined) ?? head.namespace });
    });
    if (deps.length) this.#kustomizations.push({ o, deps });
  }

  finish(): void {
    if (!this.ctx.on('reference')) return;
    for (const { o, deps } of this.#kustomizations)
      for (const d of deps) {
        if (this.#exists(d)) continue;
        this.ctx.report(
          'reference',
          `Flux Kustomization ${o.namespace ? o.namespace + '/' : ''}${o.name} depends on Kustomization ${d.ns ? d.ns + '/' : ''}${d.name}, which is not in the input: Flux would wait forever; fix spec.dependsOn[${d.index}]`,
          { object: o, field: `spec.dependsOn[${d.index}].name`, path: ['spec', 'dependsOn', d.index, 'name'] },
        );
      }
  }

  /** A Flux Kustomization of that namespace and name (a kustomize.config.k8s.io Kustomization does not count). */
  #exists(d: Dependency): boolean {
    return this.ctx.existsInGroup('Kustomization', FLUX_GROUP, d.ns, d.name) || this.ctx.external('Kustomization', d.ns, d.name);
  }
}
