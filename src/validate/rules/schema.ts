/**
 * Schemas, unknown fields and YAML 1.1/1.2 ambiguous scalars, per item. The CRDs in the input
 * are read first (a CRD may follow the items it describes).
 */
import type { KubeObject } from '../../krm/index.js';
import { type Head, type RuleContext, type RuleFamily, readTree, type Tree } from '../context.js';
import { ambiguousScalars, mayHoldAmbiguous, SchemaChecker, type SchemaFinding } from '../schema.js';

export class SchemaRules implements RuleFamily {
  readonly #checker: SchemaChecker | undefined;
  readonly #ambiguous: boolean;

  constructor(private readonly ctx: RuleContext) {
    this.#ambiguous = ctx.on('yaml-ambiguous');
    if (!ctx.on('schema') && !ctx.on('schema-unknown-field')) return;
    const crds: Tree[] = [...(ctx.opts.extraCrds ?? [])];
    // before the pass: a CRD may follow the items it describes (the text tells which items to read)
    for (const o of ctx.objects) {
      if (!(o.original ?? o.body).includes('CustomResourceDefinition')) continue;
      const { tree } = readTree(o);
      if (tree && tree.kind === 'CustomResourceDefinition' && String(tree.apiVersion).startsWith('apiextensions.k8s.io/')) crds.push(tree);
    }
    this.#checker = new SchemaChecker(crds, new Set(ctx.spec.schemas?.skipKinds ?? []));
  }

  visit(o: KubeObject, head: Head, tree: Tree): void {
    if (this.#checker) for (const f of this.#checker.check(o, head, tree)) this.#report(o, f);
    // most items hold no candidate: their text as it came tells, without making it a document
    if (this.#ambiguous && mayHoldAmbiguous(o.original ?? this.ctx.text(o)))
      for (const f of ambiguousScalars(o, tree, this.ctx.text(o))) this.#report(o, f);
  }

  #report(o: KubeObject, f: SchemaFinding): void {
    const { lenient, rule, message, ...place } = f;
    // a patch leaves out what its base holds
    if (this.ctx.isPartial(o) && rule === 'schema' && /missing required field/.test(message)) return;
    this.ctx.report(rule, message, place, lenient ? 'warning' : undefined);
  }
}
