/**
 * What every rule family shares: severities and the findings list, the index of the input
 * (by kind, by identity, by kind and name), and the count of work done. Rules find objects only
 * through the index, so a scan inside a loop shows as work growing faster than the input
 * (tests count it: test/validate-work.test.ts).
 */
import { intern, isRecord, KrmError, type KubeObject } from '../krm/index.js';
import { RULES } from './rules.js';
import type { AnalyseOptions, Finding, FindingPlace, IntentValidateSpec, Severity } from './types.js';
import { isRfc3339Time } from '../model/time.js';

export type Tree = Record<string, unknown>;

/** An item's identity and metadata, read from its parsed tree (the object's own header is not parsed again). */
export interface Head {
  apiVersion: string;
  kind: string;
  /** API group: `metal3.io` of `metal3.io/v1alpha1`, '' for core */
  group: string;
  name: string;
  namespace?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** No labels or no annotations (most objects): one frozen map shared by every head. */
const NONE: Record<string, string> = Object.freeze({});

/** Label and annotation maps as Kubernetes reads them: every value a string. */
function stringMap(v: unknown): Record<string, string> {
  if (!isRecord(v)) return NONE;
  let empty = true;
  for (const _ in v) {
    empty = false;
    break;
  }
  if (empty) return NONE;
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) out[k] = val === null || val === undefined ? '' : typeof val === 'string' ? val : String(val);
  return out;
}

/** The head of an item from its tree, or from the object when the tree could not be read. */
export function headOf(o: KubeObject, tree: Tree | undefined): Head {
  if (!tree) {
    try {
      return {
        apiVersion: o.apiVersion,
        kind: o.kind,
        group: o.group,
        name: o.name,
        namespace: o.namespace,
        labels: o.labels,
        annotations: o.annotations,
      };
    } catch {
      return { apiVersion: '', kind: '', group: '', name: '', labels: {}, annotations: {} };
    }
  }
  const md = isRecord(tree.metadata) ? tree.metadata : {};
  // the head is kept for every object: repeated words held once (intern)
  const apiVersion = typeof tree.apiVersion === 'string' ? intern(tree.apiVersion) : '';
  const slash = apiVersion.indexOf('/');
  const ns = md.namespace;
  return {
    apiVersion,
    kind: typeof tree.kind === 'string' ? intern(tree.kind) : '',
    group: slash < 0 ? '' : intern(apiVersion.slice(0, slash)),
    name: md.name === undefined || md.name === null ? '' : String(md.name),
    namespace: ns === undefined || ns === null || ns === '' ? undefined : intern(String(ns)),
    labels: stringMap(md.labels),
    annotations: stringMap(md.annotations),
  };
}

function nonEmpty(m: Record<string, string>): Record<string, string> {
  for (const _ in m) return m;
  return NONE;
}

function sameMap(a: Record<string, string>, b: Record<string, string>): boolean {
  let n = 0;
  for (const k in a) {
    if (!Object.hasOwn(b, k) || a[k] !== b[k]) return false;
    n++;
  }
  for (const _ in b) n--;
  return n === 0;
}

/**
 * The head as the object's own header says it (read at input and kept by the object): its
 * strings and maps, nothing copied. Undefined when the header cannot be read.
 */
function ownHead(o: KubeObject): Head | undefined {
  try {
    return {
      apiVersion: o.apiVersion,
      kind: o.kind,
      group: intern(o.group),
      name: o.name,
      namespace: o.namespace,
      labels: nonEmpty(o.labels),
      annotations: nonEmpty(o.annotations),
    };
  } catch {
    return undefined;
  }
}

/**
 * The head of an item for the analysis: the object's own (nothing kept twice, `shared`) when it
 * says what the tree says, which is the usual case; else the tree's.
 */
export function analysisHead(o: KubeObject, tree: Tree | undefined): { head: Head; shared: boolean } {
  const head = headOf(o, tree);
  if (!tree) return { head, shared: false };
  const own = ownHead(o);
  const same =
    own !== undefined &&
    own.apiVersion === head.apiVersion &&
    own.kind === head.kind &&
    own.group === head.group &&
    own.name === head.name &&
    own.namespace === head.namespace &&
    sameMap(own.labels, head.labels) &&
    sameMap(own.annotations, head.annotations);
  return same ? { head: own, shared: true } : { head, shared: false };
}

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

/**
 * A map keyed by several strings (kind, namespace, name...), held as nested maps. A joined key
 * (`Kind|ns|name`) would be a new string per object, kept twice once hashed (the concatenation
 * and its flat copy): ~90 bytes an object at fleet scale, where the parts are already held.
 */
export class KeyedMap<V> {
  readonly #root = new Map<string, unknown>();
  #size = 0;

  get size(): number {
    return this.#size;
  }

  get(parts: readonly string[]): V | undefined {
    let m: unknown = this.#root;
    for (const p of parts) {
      m = (m as Map<string, unknown>).get(p);
      if (m === undefined) return undefined;
    }
    return m as V;
  }

  has(parts: readonly string[]): boolean {
    return this.get(parts) !== undefined;
  }

  /** Sets the value under `parts` (never undefined: undefined means absent). */
  set(parts: readonly string[], value: V): void {
    let m = this.#root;
    for (let i = 0; i < parts.length - 1; i++) {
      let next = m.get(parts[i]!) as Map<string, unknown> | undefined;
      if (!next) m.set(parts[i]!, (next = new Map()));
      m = next;
    }
    const last = parts[parts.length - 1]!;
    if (!m.has(last)) this.#size++;
    m.set(last, value);
  }
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
    // read from the item's own text and not kept (KubeObject.readData); the runtime words errors (file, line, column)
    return { tree: o.readData() };
  } catch (e) {
    // only the input's own problems are findings; a bug or a broken install is not the item's
    if (!(e instanceof KrmError)) throw e;
    return { error: e.message };
  }
}

export class RuleContext {
  readonly findings: Finding[] = [];
  readonly #objects: readonly KubeObject[];
  readonly #items: KubeObject[] = [];
  readonly #heads = new Map<KubeObject, Head>();
  /** the analysis time (ms), and whether spec.now could be read */
  readonly now: number;
  readonly nowValid: boolean;
  readonly external: (kind: string, ns: string | undefined, name: string) => boolean;
  readonly #byKind = new Map<string, KubeObject[]>();
  readonly #ofKind = new Map<string, KubeObject[]>();
  /** kind, namespace, name -> the API group of the object (several when objects of several groups share them) */
  readonly #present = new KeyedMap<string | Set<string>>();
  /** the kind, namespace and name of more than one item (few): only those can be duplicates */
  readonly #repeated = new KeyedMap<true>();
  #named: KeyedMap<true> | undefined;
  readonly #work: Map<string, number> | undefined;
  readonly #partial: Set<KubeObject>;
  /** the item the pass is at, and its text once a rule asked for it */
  #current: KubeObject | undefined;
  #currentText: string | undefined;

  constructor(
    objects: readonly KubeObject[],
    readonly spec: IntentValidateSpec,
    readonly opts: AnalyseOptions & { work?: Map<string, number> } = {},
  ) {
    this.#work = opts.work;
    this.#partial = new Set(opts.partial);
    this.#objects = objects;
    this.external = objectMatcher(spec.references?.external);
    this.now = spec.now !== undefined ? Date.parse(spec.now) : Date.now();
    this.nowValid = spec.now === undefined || isRfc3339Time(spec.now);
  }

  /**
   * Adds an item (with its head) to the index; the pass calls it once per item, in input order.
   * A head `shared` with the object (analysisHead) is not kept: head(o) reads it from the object.
   */
  index(o: KubeObject, head: Head, shared = false): void {
    this.#items.push(o);
    if (!shared) this.#heads.set(o, head);
    const list = this.#byKind.get(head.kind);
    if (list) list.push(o);
    else this.#byKind.set(head.kind, [o]);
    const key = [head.kind, head.namespace ?? '', head.name];
    const groups = this.#present.get(key);
    if (groups === undefined) {
      this.#present.set(key, head.group);
      return;
    }
    this.#repeated.set(key, true);
    if (typeof groups === 'string') {
      if (groups !== head.group) this.#present.set(key, new Set([groups, head.group]));
    } else groups.add(head.group);
  }

  /** The pass is at `o` now: its text is made once, for every rule that asks (text). */
  visiting(o: KubeObject | undefined): void {
    this.#current = o;
    this.#currentText = undefined;
  }

  /**
   * An item's text as a document (KubeObject.body): the item being visited is dedented once for
   * every rule, and the text is not kept after its visit (kept, it would double the input).
   */
  text(o: KubeObject): string {
    if (o !== this.#current) return o.body;
    this.#currentText ??= o.body;
    return this.#currentText;
  }

  /** The head of an indexed item. */
  head(o: KubeObject): Head {
    return this.#heads.get(o) ?? ownHead(o) ?? headOf(o, undefined);
  }

  /** Every object the analysis was given, Kptfile included (the pass reads them). */
  get objects(): readonly KubeObject[] {
    return this.#objects;
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
      list = group === undefined ? all : all.filter((o) => this.head(o).group === group);
      this.#ofKind.set(key, list);
    }
    this.count('items handed out', list.length);
    return list;
  }

  /** Whether an object of this kind, namespace and name is in the input (or declared external). */
  exists(kind: string, ns: string | undefined, name: string): boolean {
    this.count('lookups');
    return this.#present.has([kind, ns ?? '', name]) || this.external(kind, ns, name);
  }

  /** Whether more than one item has this kind, namespace and name (what a duplicate needs; not counted as a lookup). */
  repeated(kind: string, ns: string | undefined, name: string): boolean {
    return this.#repeated.has([kind, ns ?? '', name]);
  }

  /** Whether an object of this API group, kind, namespace and name is in the input (external ones not counted). */
  existsInGroup(kind: string, group: string, ns: string | undefined, name: string): boolean {
    this.count('lookups');
    const groups = this.#present.get([kind, ns ?? '', name]);
    return groups === group || (typeof groups === 'object' && groups.has(group));
  }

  /** Whether an object of this kind and name is in the input in any namespace (or declared external). */
  existsAnywhere(kind: string, name: string): boolean {
    this.count('lookups');
    if (!this.#named) {
      this.#named = new KeyedMap();
      for (const o of this.#items) {
        const h = this.head(o);
        this.#named.set([h.kind, h.name], true);
      }
    }
    return this.#named.has([kind, name]) || this.external(kind, undefined, name);
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
  visit?(o: KubeObject, head: Head, tree: Tree): void;
  finish?(): void | Promise<void>;
}
