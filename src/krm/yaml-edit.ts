/**
 * Structural edits of a `yaml` Document that keep it writable and keep the meaning of every
 * part the edit does not address. YAML anchors make nodes shared: replacing a node that holds an
 * anchor would leave its aliases unresolved (the document no longer writes), and editing inside
 * an anchored node would change every place that aliases it. Before such an edit, the aliases
 * concerned are resolved: each is written in place as a copy of what it stood for (anchors
 * dropped), so the item reads the same everywhere but at the edited path. An alias on the edited
 * path is resolved the same way before the edit descends into it.
 */
import type { Alias, Document, Node as YamlNode } from 'yaml';
import { dotted, pushAll } from './data.js';
import { yamlLib } from './lazy.js';

type Path = readonly (string | number)[];

/** A parent on an edit's path that cannot hold the next segment (a sequence, a scalar where a mapping is needed). */
export class EditPathError extends Error {
  constructor(
    /** the dotted path of the parent */
    readonly field: string,
    /** what it is: `a sequence`, `a string` ... */
    readonly found: string,
    /** what is needed there */
    readonly needed: string,
  ) {
    super(`${field} is ${found}, ${needed} is needed`);
  }
}

/** Copies made while resolving aliases: more than this means an alias bomb the reader let through; the edit gives up. */
const MAX_COPIED_NODES = 100_000;

export class AliasCopyLimit extends Error {}

/** An alias in the document, what it stands for and how to put something in its place. */
interface AliasUse {
  alias: Alias;
  target: YamlNode | undefined;
  replace(n: YamlNode): void;
}

/** Every alias in document order with its target (the last anchor of its name before it): one pass. */
function aliasUses(doc: Document): AliasUse[] {
  const Y = yamlLib();
  const anchors = new Map<string, YamlNode>();
  const uses: AliasUse[] = [];
  const visit = (node: unknown, replace: (n: YamlNode) => void): void => {
    if (Y.isAlias(node)) {
      uses.push({ alias: node, target: anchors.get(node.source), replace });
      return;
    }
    if (!Y.isNode(node)) return;
    if (node.anchor) anchors.set(node.anchor, node);
    if (Y.isMap(node))
      for (const pair of node.items) {
        if (Y.isNode(pair.key)) visit(pair.key, (n) => (pair.key = n));
        visit(pair.value, (n) => (pair.value = n));
      }
    else if (Y.isSeq(node)) {
      const items = node.items;
      for (let i = 0; i < items.length; i++) if (Y.isNode(items[i])) visit(items[i], (n) => (items[i] = n));
    }
  };
  visit(doc.contents, (n) => (doc.contents = n as never));
  return uses;
}

/** The nodes of a subtree (map keys included), and whether any holds an anchor. */
function subtree(root: unknown, into: Set<unknown>): boolean {
  const Y = yamlLib();
  let anchored = false;
  const stack: unknown[] = [root];
  while (stack.length) {
    const n = stack.pop();
    if (!Y.isNode(n)) continue;
    into.add(n);
    if (n.anchor) anchored = true;
    if (Y.isMap(n)) for (const p of n.items) stack.push(p.key, p.value);
    else if (Y.isSeq(n)) pushAll(stack, n.items);
  }
  return anchored;
}

/**
 * A copy of `node` without anchors, in which aliases to nodes in `expand` are themselves
 * replaced by copies (their targets are about to change or go); other aliases stay aliases.
 */
function copyOf(node: YamlNode, targets: Map<Alias, YamlNode | undefined>, expand: Set<unknown>, budget: { left: number }): YamlNode {
  const Y = yamlLib();
  if (--budget.left < 0) throw new AliasCopyLimit('too many nodes to copy');
  if (Y.isAlias(node)) {
    const t = targets.get(node);
    return t && expand.has(t) ? copyOf(t, targets, expand, budget) : (node.clone() as YamlNode);
  }
  if (Y.isMap(node) || Y.isSeq(node)) {
    const c = node.clone() as typeof node;
    c.anchor = undefined;
    if (Y.isMap(node) && Y.isMap(c))
      c.items = node.items.map((p) => {
        const q = p.clone();
        if (Y.isNode(p.key)) q.key = copyOf(p.key, targets, expand, budget);
        if (Y.isNode(p.value)) q.value = copyOf(p.value, targets, expand, budget);
        return q;
      });
    else if (Y.isSeq(node) && Y.isSeq(c)) c.items = node.items.map((i) => (Y.isNode(i) ? copyOf(i, targets, expand, budget) : i));
    return c;
  }
  const c = node.clone() as YamlNode;
  c.anchor = undefined;
  return c;
}

function kindOf(node: unknown): string {
  const Y = yamlLib();
  if (Y.isSeq(node)) return 'a sequence';
  if (Y.isMap(node)) return 'a mapping';
  const v = Y.isScalar(node) ? node.value : node;
  return typeof v === 'string' ? 'a string' : `a ${typeof v}`;
}

function isIndex(seg: string | number, max: number): boolean {
  const n = typeof seg === 'number' ? seg : /^\d+$/.test(seg) ? Number(seg) : -1;
  return Number.isInteger(n) && n >= 0 && n <= max;
}

/** Where an edit lands, once its path is ready. */
export interface EditPlace {
  /** the collection that holds the edited entry */
  parent: YamlNode;
  /** index in `path` of the entry's key in `parent`: the rest of the path is created under it */
  at: number;
  /** whether aliases were resolved (the caller may check the result against the data) */
  resolved: boolean;
}

/**
 * Makes `path` ready for an edit (set or delete of the node at the deepest existing point):
 * aliases on the path are resolved so that the edit descends into the item's own nodes, every
 * parent is checked to be a mapping (or a sequence indexed by number), and aliases elsewhere
 * to the edited node, to a node under it or to a parent on the path are resolved. Throws
 * EditPathError when a parent cannot hold the path, AliasCopyLimit when resolving would copy too much.
 */
export function prepareEdit(doc: Document, path: Path, deleting: boolean): EditPlace {
  const Y = yamlLib();
  let targets: Map<Alias, YamlNode | undefined> | undefined;
  const targetsNow = (): Map<Alias, YamlNode | undefined> => (targets ??= new Map(aliasUses(doc).map((u) => [u.alias, u.target])));
  const budget = { left: MAX_COPIED_NODES };
  let resolved = false;
  const onPath = new Set<unknown>();
  let anchored = false;
  let parent = doc.contents as YamlNode;
  let at = 0;
  for (; at < path.length; at++) {
    const seg = path[at]!;
    const last = at === path.length - 1;
    if (Y.isSeq(parent) && !isIndex(seg, last && !deleting ? parent.items.length : parent.items.length - 1))
      throw new EditPathError(dotted(path.slice(0, at)), 'a sequence', 'a mapping');
    onPath.add(parent);
    if (parent.anchor) anchored = true;
    let child = (parent as { get(k: unknown, keep: true): unknown }).get(seg, true);
    if (Y.isAlias(child)) {
      if (last) break; // replaced or deleted: nothing refers to an alias
      const t = targetsNow().get(child);
      if (t) {
        const copy = copyOf(t, targetsNow(), new Set(), budget);
        (parent as { set(k: unknown, v: unknown): void }).set(seg, copy);
        targets = undefined; // the document changed
        resolved = true;
        child = copy;
      }
    }
    if (last) break;
    if (child === undefined || child === null || (Y.isScalar(child) && child.value === null)) break; // created by the edit
    if (!Y.isCollection(child)) throw new EditPathError(dotted(path.slice(0, at + 1)), kindOf(child), 'a mapping');
    parent = child;
  }
  const edited = new Set<unknown>();
  const replaced = at < path.length ? (parent as { get(k: unknown, keep: true): unknown }).get(path[at]!, true) : undefined;
  if (replaced !== undefined && subtree(replaced, edited)) anchored = true;
  if (deleting && Y.isMap(parent)) {
    // a key's own anchor goes with its entry
    const key = parent.items.find((pair) => pair.value === replaced)?.key;
    if (Y.isNode(key)) {
      edited.add(key);
      if (key.anchor) anchored = true;
    }
  }
  if (anchored) resolved = resolveAliasesTo(doc, onPath, edited, budget) || resolved;
  return { parent, at, resolved };
}

/** Replaces every alias outside `edited` whose target is on the path or in `edited` by a copy; whether there was any. */
function resolveAliasesTo(doc: Document, onPath: Set<unknown>, edited: Set<unknown>, budget: { left: number }): boolean {
  const uses = aliasUses(doc);
  const targets = new Map(uses.map((u) => [u.alias, u.target]));
  const expand = new Set<unknown>([...onPath, ...edited]);
  let any = false;
  for (const u of uses) {
    if (edited.has(u.alias) || !u.target || !expand.has(u.target)) continue;
    u.replace(copyOf(u.target, targets, expand, budget));
    any = true;
  }
  return any;
}

/** Every alias of the document and its target, before a free-form edit (empty when there is none). */
export function aliasTargets(doc: Document): Map<Alias, YamlNode | undefined> {
  return new Map(aliasUses(doc).map((u) => [u.alias, u.target]));
}

/**
 * After a free-form edit: an alias whose target the edit removed or shadowed is replaced by a
 * copy of what it stood for before, so that the document still writes and reads the same there.
 */
export function repairAliases(doc: Document, before: Map<Alias, YamlNode | undefined>): void {
  if (before.size === 0) return;
  const budget = { left: MAX_COPIED_NODES };
  const now = aliasUses(doc);
  const changed = new Set<unknown>();
  for (const u of now) {
    const was = before.get(u.alias);
    if (was && u.target !== was) changed.add(was);
  }
  if (changed.size === 0) return;
  for (const u of now) {
    const was = before.get(u.alias);
    if (was && changed.has(was)) u.replace(copyOf(was, before, changed, budget));
  }
}
