/**
 * What every rule family shares: severities and the findings list, the index of the input
 * (by kind, by identity, by kind and name), and the count of work done. Rules find objects only
 * through the index, so a scan inside a loop shows as work growing faster than the input
 * (tests count it: test/validate-work.test.ts).
 */
import { isRecord, type KubeObject, loadYaml } from '../krm/index.js';
import { RULES } from './rules.js';
import type { AnalyseOptions, Finding, FindingPlace, IntentValidateSpec, Severity } from './types.js';

export type Tree = Record<string, unknown>;

const DEFAULT_SEVERITY = new Map(RULES.map((r) => [r.id, r.severity]));

/** Compiles `Kind/ns/name` patterns with `*` into a matcher over an object. */
export function objectMatcher(patterns: string[] | undefined): (kind: string, ns: string | undefined, name: string) => boolean {
  const res = (patterns ?? []).map((p) => {
    const parts = p.split('/');
    const rx = (s: string): RegExp => new RegExp('^' + s.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*') + '$');
    if (parts.length === 1) return { name: rx(parts[0]!) };
    if (parts.length === 2) return { kind: rx(parts[0]!), name: rx(parts[1]!) };
    return { kind: rx(parts[0]!), ns: rx(parts[1]!), name: rx(parts.slice(2).join('/')) };
  });
  return (kind, ns, name) => res.some((r) => (!r.kind || r.kind.test(kind)) && (!r.ns || r.ns.test(ns ?? '')) && r.name.test(name));
}

/** `Kind|namespace|name`: one key for an object's identity in every index. */
export function identityKey(kind: string, ns: string | undefined, name: string): string {
  return `${kind}|${ns ?? ''}|${name}`;
}

/**
 * An item's data, parsed for this analysis only (the object does not keep it: at fleet scale the
 * parsed trees would cost ten times the input). Undefined, with the reader's message, when the
 * item is not a YAML mapping.
 */
export function readTree(o: KubeObject): { tree?: Tree; error?: string } {
  try {
    const v = loadYaml(o.body);
    if (isRecord(v)) return { tree: v };
  } catch {
    // the object's own reader words the error (file, line, column)
  }
  try {
    return { tree: o.data };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

export class RuleContext {
  readonly findings: Finding[] = [];
  readonly #items: readonly KubeObject[];
  /** the analysis time (ms), and whether spec.now could be read */
  readonly now: number;
  readonly nowValid: boolean;
  readonly external: (kind: string, ns: string | undefined, name: string) => boolean;
  readonly #byKind = new Map<string, KubeObject[]>();
  readonly #ofKind = new Map<string, KubeObject[]>();
  readonly #present = new Set<string>();
  readonly #named = new Set<string>();
  readonly #grouped = new Set<string>();
  readonly #work: Map<string, number> | undefined;
  readonly #partial: Set<KubeObject>;

  constructor(
    objects: readonly KubeObject[],
    readonly spec: IntentValidateSpec,
    readonly opts: AnalyseOptions & { work?: Map<string, number> } = {},
  ) {
    this.#work = opts.work;
    this.#partial = new Set(opts.partial);
    this.#items = objects.filter((o) => !o.isKptfile());
    for (const o of this.#items) {
      const list = this.#byKind.get(o.kind);
      if (list) list.push(o);
      else this.#byKind.set(o.kind, [o]);
      this.#present.add(identityKey(o.kind, o.namespace, o.name));
      this.#named.add(`${o.kind}|${o.name}`);
      this.#grouped.add(`${o.group}|${identityKey(o.kind, o.namespace, o.name)}`);
    }
    this.external = objectMatcher(spec.references?.external);
    this.now = spec.now !== undefined ? Date.parse(spec.now) : Date.now();
    this.nowValid = Number.isFinite(this.now);
  }

  /** Every item but the Kptfile, in input order (counted: a loop over every item is work). */
  get items(): readonly KubeObject[] {
    this.count('items handed out', this.#items.length);
    return this.#items;
  }

  /** The severity a rule reports at (spec.rules over the default), or undefined when it is off. */
  severity(rule: string): Severity | undefined {
    const s = this.spec.rules?.[rule]?.severity ?? DEFAULT_SEVERITY.get(rule);
    return s === 'off' || s === false || s === undefined ? undefined : s;
  }

  on(rule: string): boolean {
    return this.severity(rule) !== undefined;
  }

  /** Adds a finding at the rule's severity (capped at `atMost` when given); nothing when the rule is off. */
  report(rule: string, message: string, place: FindingPlace = {}, atMost?: 'warning' | 'info'): void {
    let s = this.severity(rule);
    if (s && atMost && (s === 'error' || atMost === 'info')) s = atMost;
    if (s) this.findings.push({ rule, severity: s, message, ...place });
  }

  /** Adds `n` to a work counter (what tests count instead of timing). */
  count(what: string, n = 1): void {
    if (this.#work) this.#work.set(what, (this.#work.get(what) ?? 0) + n);
  }

  /** The items of a kind (and API group), computed once: every call counts the items it hands out. */
  ofKind(kind: string, group?: string): readonly KubeObject[] {
    const key = `${kind}|${group ?? '*'}`;
    let list = this.#ofKind.get(key);
    if (!list) {
      const all = this.#byKind.get(kind) ?? [];
      list = group === undefined ? all : all.filter((o) => o.group === group);
      this.#ofKind.set(key, list);
    }
    this.count('items handed out', list.length);
    return list;
  }

  /** Whether an object of this kind, namespace and name is in the input (or declared external). */
  exists(kind: string, ns: string | undefined, name: string): boolean {
    this.count('lookups');
    return this.#present.has(identityKey(kind, ns, name)) || this.external(kind, ns, name);
  }

  /** Whether an object of this API group, kind, namespace and name is in the input (external ones not counted). */
  existsInGroup(kind: string, group: string, ns: string | undefined, name: string): boolean {
    this.count('lookups');
    return this.#grouped.has(`${group}|${identityKey(kind, ns, name)}`);
  }

  /** Whether an object of this kind and name is in the input in any namespace (or declared external). */
  existsAnywhere(kind: string, name: string): boolean {
    this.count('lookups');
    return this.#named.has(`${kind}|${name}`) || this.external(kind, undefined, name);
  }

  /** A patch (kustomize patches, `$patch: delete`): no required-field, reference or duplicate checks. */
  isPartial(o: KubeObject): boolean {
    return this.#partial.has(o);
  }

  markPartial(o: KubeObject): void {
    this.#partial.add(o);
  }

  /** Where an object lives, for messages: the caller's answer, else its config.kubernetes.io/path. */
  locate(o: KubeObject): string | undefined {
    return this.opts.locate ? this.opts.locate(o) : o.file()?.path;
  }
}

/** One family of rules: sees each item once with its parsed tree, then checks across items. */
export interface RuleFamily {
  /** `tree` undefined: the item is not a YAML mapping (`error` says why) */
  visit?(o: KubeObject, tree: Tree | undefined, error?: string): void;
  finish?(): void | Promise<void>;
}
