/**
 * One KRM resource. It keeps the item's source text and parses only as much as it is asked
 * for: the header (apiVersion, kind, metadata) with the fast reader, the whole body on `data`,
 * and a `yaml` Document only to edit structure. An item nobody changed is written back as the
 * exact bytes it came in as, and costs little more than those bytes while it waits.
 */
import type { Document } from 'yaml';
import { dotted, intern, isRecord, sameData } from './data.js';
import { emitLikeYaml } from './emit.js';
import { parsedFieldLines } from './field-lines.js';
import { jsonErrorAt, jsonErrorKind } from './json-syntax.js';
import { fastLoad } from './fast-yaml.js';
import { type HeaderProblem, headerProblems, typeOf } from './header.js';
import { stringifyJson, writtenNumbers } from './json-scan.js';
import { PARSE_OPTIONS, writeTags, yamlLib } from './lazy.js';
import { dedentItem, endsLine, headerEnd, indentItem } from './scan.js';
import { scalarText, setScalarInText } from './text-patch.js';
import { AliasCopyLimit, aliasTargets, EditPathError, type EditPlace, prepareEdit, repairAliases } from './yaml-edit.js';
import { documentData, lineCol, readYaml, tagPrologue, YamlReadError, yamlDocument } from './yaml-read.js';

/** How new and edited items are written: kyaml's layout, no folding, no anchors, YAML 1.1 quoting, strings YAML cannot hold as they are escaped. */
export const EMIT_OPTIONS = {
  version: '1.1',
  customTags: writeTags,
  indentSeq: false,
  lineWidth: 0,
  aliasDuplicateObjects: false,
} as const;

export type Path = readonly (string | number)[];
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export interface ResourceRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

export const ANN = {
  path: 'config.kubernetes.io/path',
  index: 'config.kubernetes.io/index',
  internalPath: 'internal.config.kubernetes.io/path',
  internalIndex: 'internal.config.kubernetes.io/index',
  localConfig: 'config.kubernetes.io/local-config',
} as const;

/**
 * What few items need: a tree kept (`data`), a `yaml` Document being edited, notes of the
 * reader, aliases into other items, the JSON text an edited JSON item was read from. One
 * object when an item needs any of it, not eight slots on every item (a large input is mostly
 * items nobody changes or keeps a tree of).
 */
class Rare {
  doc: Document | undefined = undefined;
  data: unknown = undefined;
  notes: string[] | undefined = undefined;
  /** the JSON text an edited JSON item was read from, for its numbers as written */
  jsonOriginal: string | undefined = undefined;
  /** whether the original text can be read alone (standsAlone), once known */
  alone: boolean | undefined = undefined;
  context: (() => unknown) | undefined = undefined;
  foreignAliases: string[] | undefined = undefined;
  readWhole = false;
  /** what is wrong with the header (header.ts), when anything is */
  headerProblems: readonly HeaderProblem[] | undefined = undefined;
  /** whether one of them leaves the item's identity unknown (asked once per problem: decided once) */
  identityUnknown = false;
  /** why the item is written anew rather than patched line by line (the first reason), and whether from its data */
  rewrite: { why: string; fromData: boolean } | undefined = undefined;
}

export class KrmError extends Error {}

/**
 * What an item's source text is: an entry of a block sequence (`- ...` at `seqIndent`), an
 * item of a flow sequence, a document of a stream, or JSON.
 */
type SourceForm = 'entry' | 'flow' | 'doc' | 'json';

function asPath(path: Path | string): Path {
  return typeof path === 'string' ? path.split('.').filter((p) => p !== '') : path;
}

/** `data` with `value` at `path` (missing or null parents made maps), as KubeObject.set means it. */
function setInData(data: Json, path: Path, value: unknown): Json {
  if (path.length === 0) return value as Json;
  const [seg, ...rest] = path;
  const box = (data !== null && typeof data === 'object' ? data : {}) as Record<string | number, Json>;
  box[seg!] = setInData(box[seg!] ?? null, rest, value);
  return box as Json;
}

/**
 * A copy of plain data in which no object is shared: a reader gives an alias the same object
 * as its anchor, and an edit of the copy must change one place only.
 */
function unshared(v: unknown): Json {
  if (Array.isArray(v)) return v.map(unshared);
  if (!isRecord(v)) return v as Json;
  const out: Record<string, Json> = {};
  for (const k of Object.keys(v)) out[k] = unshared(v[k]);
  return out;
}

/** `data` without what is at `path`. */
function deleteInData(data: Json, path: Path): Json {
  let v: unknown = data;
  for (const seg of path.slice(0, -1)) v = (v as Record<string | number, unknown>)[seg];
  const last = path[path.length - 1]!;
  if (Array.isArray(v)) v.splice(Number(last), 1);
  else delete (v as Record<string | number, unknown>)[last];
  return data;
}

/** No labels or no annotations (most objects): one frozen map shared by every header. */
const NO_STRINGS: Record<string, string> = Object.freeze({});

function stringMap(v: unknown): Record<string, string> {
  if (!isRecord(v)) return NO_STRINGS;
  let strings = true;
  for (const k in v) if (typeof v[k] !== 'string') strings = false;
  if (strings) return v as Record<string, string>; // the usual case: no copy
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) {
    out[k] = val === null || val === undefined ? '' : typeof val === 'string' ? val : String(val);
  }
  return out;
}

const DOCUMENT_START = '---\n';

const NO_PROBLEMS: readonly HeaderProblem[] = Object.freeze([]);

export class KubeObject {
  /** what stood before the item in its input (comment lines in a list, `---` in a stream) */
  readonly lead: string;
  #raw: string | undefined;
  #form: SourceForm;
  #seqIndent: number;
  #body: string | undefined;
  /** the header (apiVersion, kind, metadata) once read: #metadata undefined until then */
  #apiVersion = '';
  #kind = '';
  #metadata: Record<string, unknown> | undefined;
  #rare: Rare | undefined;
  /** 1-based line of the item's first line in its source file, when the reader knows it */
  sourceLine: number | undefined;
  /** position in the input list, for messages about items that cannot be read */
  listIndex: number | undefined;
  /** a name, or the 0-based index of a stream document (named when asked: no string per object) */
  #where: string | number | undefined;
  /** the list document the item came from (resource-list.ts), for writing it back */
  container: unknown;
  /** 1-based line of the item in the input text (for messages about bytes, such as bad UTF-8) */
  inputLine: number | undefined;
  /**
   * 1-based line its document starts on in the file it names (config.kubernetes.io/path), when
   * the runtime read that file itself (--source) and the item's text is the document's plus the
   * file annotations: its lines map to the file's, whatever document of the file it is; null
   * when the runtime read the file but annotating the document wrote it anew (no line is known)
   */
  fileLine: number | null | undefined;

  private constructor(raw: string | undefined, form: SourceForm, seqIndent: number, lead: string) {
    this.#raw = raw;
    this.#form = form;
    this.#seqIndent = seqIndent;
    // most stream documents stand after a bare `---`: one shared string, not a copy per object
    this.lead = lead === DOCUMENT_START ? DOCUMENT_START : lead;
  }

  #more(): Rare {
    this.#rare ??= new Rare();
    return this.#rare;
  }

  /** reads the item within its whole list, when it uses anchors of other items */
  get context(): (() => unknown) | undefined {
    return this.#rare?.context;
  }
  set context(read: (() => unknown) | undefined) {
    if (read || this.#rare) this.#more().context = read;
  }

  /** aliases the item uses whose anchors may be in other items */
  get foreignAliases(): string[] | undefined {
    return this.#rare?.foreignAliases;
  }
  set foreignAliases(names: string[] | undefined) {
    if (names || this.#rare) this.#more().foreignAliases = names;
  }

  /** read whole at input (aliases, deep nesting: scan.ts readWholeAtInput), so that every function reports what is wrong */
  get readWhole(): boolean {
    return this.#rare?.readWhole ?? false;
  }
  set readWhole(whole: boolean) {
    if (whole || this.#rare) this.#more().readWhole = whole;
  }

  /** what the item is called in messages when it cannot be read (`items[3]`, `document 2`) */
  get where(): string | undefined {
    const w = this.#where;
    return typeof w === 'number' ? `document ${w + 1}` : w;
  }

  set where(name: string | undefined) {
    this.#where = name;
  }

  /** The item is document `index` (0-based) of a stream: `document <index + 1>` in messages. */
  setDocumentIndex(index: number): void {
    this.#where = index;
  }

  /** An item read from a ResourceList: `raw` is its `- ` entry verbatim. */
  static fromListEntry(raw: string, seqIndent: number, lead = ''): KubeObject {
    return new KubeObject(raw, 'entry', seqIndent, lead);
  }

  /** An item of a flow sequence (`items: [{...}, ...]`), or JSON text: `raw` verbatim. */
  static fromNode(raw: string, form: 'flow' | 'json', lead = ''): KubeObject {
    return new KubeObject(raw, form, 0, lead);
  }

  /** An item read as one document of a stream: `body` is the document verbatim. */
  static fromDocument(body: string, lead = ''): KubeObject {
    return new KubeObject(body, 'doc', 0, lead);
  }

  /** A new item, e.g. generated by a function. */
  static fromData(data: object): KubeObject {
    const o = new KubeObject(undefined, 'doc', 0, '');
    o.#body = emitLikeYaml(data) ?? yamlLib().stringify(data, EMIT_OPTIONS);
    return o;
  }

  /** True when the item must be written from its body rather than its original text. */
  get changed(): boolean {
    return this.#raw === undefined;
  }

  /** The original text when unchanged (entry of a list, flow or JSON item, or stream document). */
  get original(): string | undefined {
    return this.#raw;
  }

  /** How the original text is written (see SourceForm). */
  get form(): SourceForm {
    return this.#form;
  }

  /** Notes the reader made on this item: non-standard constructs it accepted (reported as info). */
  get notes(): readonly string[] {
    return this.#rare?.notes ?? [];
  }

  /**
   * The item as a standalone YAML document. An unchanged list entry's is dedented anew at each
   * call, not kept: kept, every item read once would hold a second copy of its bytes (a reader
   * that needs it several times keeps it while it works).
   */
  get body(): string {
    const doc = this.#rare?.doc;
    if (doc) return doc.toString(EMIT_OPTIONS);
    return this.#sourceDocument();
  }

  /** The original text as a document, not cached: an item read once costs its bytes only. */
  #sourceDocument(): string {
    if (this.#body !== undefined) return this.#body;
    return this.#form === 'entry' ? dedentItem(this.#raw!, this.#seqIndent) : this.#raw!;
  }

  #invalidate(): void {
    if (KubeObject.#lines?.o === this) KubeObject.#lines = undefined;
    if (this.#form === 'json' && this.#raw !== undefined) this.#more().jsonOriginal = this.#raw;
    this.#raw = undefined;
    this.#metadata = undefined;
    if (this.#rare) {
      this.#rare.data = undefined;
      this.#rare.context = undefined;
    }
  }

  /** `items[3] (path/file.yaml)`: the item in messages about its text. */
  #name(): string {
    const which = this.where ?? (this.listIndex !== undefined ? `items[${this.listIndex}]` : 'an item');
    const m = /(?:^|\n)\s*(?:internal\.)?config\.kubernetes\.io\/path:\s*['"]?([^'"\n\r]+)/.exec(this.#raw ?? this.#body ?? '');
    return `${which}${m ? ` (${m[1]})` : ''}`;
  }

  /** A KrmError for text that cannot be read, positioned in the source file when its line is known. */
  #readError(e: unknown): KrmError {
    if (e instanceof YamlReadError) {
      const what = this.#form === 'json' && !this.changed ? 'JSON' : 'YAML';
      let where = '';
      if (e.line !== undefined) {
        where =
          this.sourceLine !== undefined
            ? ` at line ${this.sourceLine + e.line - 1}, column ${e.col}`
            : ` at line ${e.line}, column ${e.col} of the item`;
      }
      return new KrmError(`${this.#name()} is not valid ${what}${where}: ${e.detail}`);
    }
    if (e instanceof SyntaxError) {
      // JSON.parse failed. V8's message quotes the text around the error (a credential, in a
      // Secret): the message is made from where the text stops being JSON and what is there
      const raw = this.#raw ?? '';
      const at = jsonErrorAt(raw);
      let where = '';
      let why = 'not JSON';
      if (at >= 0) {
        const { line, col } = lineCol(raw, at);
        where =
          this.sourceLine !== undefined
            ? ` at line ${this.sourceLine + line - 1}, column ${col}`
            : ` at line ${line}, column ${col} of the item`;
        why = jsonErrorKind(raw, at);
      }
      return new KrmError(`${this.#name()} is not valid JSON${where}: ${why}`);
    }
    throw e;
  }

  #parse(): unknown {
    const doc = this.#rare?.doc;
    if (doc) return documentData(doc);
    if (this.#form === 'json' && this.#raw !== undefined) return JSON.parse(this.#raw);
    if (this.#form === 'entry' && this.#raw !== undefined && this.#body === undefined) {
      // the entry read in place (a one-entry sequence): its strings share the input's memory, no dedented copy
      const fast = fastLoad(this.#raw);
      if (Array.isArray(fast) && fast.length === 1) return fast[0];
    }
    const text = this.#sourceDocument();
    const fast = fastLoad(text);
    if (fast !== undefined) return fast;
    try {
      const r = readYaml(text, this.#form === 'doc' ? tagPrologue(this.lead) : '');
      for (const n of r.notes) {
        const lines = n.lines.map((l) => (this.sourceLine ?? 1) + l - 1);
        const shown = lines.length
          ? ` (line${lines.length > 1 ? 's' : ''} ${lines.slice(0, 5).join(', ')}${lines.length > 5 ? ', ...' : ''}${this.sourceLine === undefined ? ' of the item' : ''})`
          : '';
        const note = `${this.#name()}${shown}: ${n.message}`;
        const rare = this.#more();
        if (!rare.notes?.includes(note)) (rare.notes ??= []).push(note); // read again (readData): said once
      }
      return r.value;
    } catch (e) {
      if (e instanceof YamlReadError && e.code === 'UNKNOWN_ANCHOR' && this.context) return this.context();
      throw e;
    }
  }

  /** The whole item as plain data (YAML 1.1 scalars), kept. Do not mutate it: use set/edit. */
  get data(): Record<string, unknown> {
    let data = this.#rare?.data;
    if (data === undefined) {
      data = this.readData();
      this.#more().data = data;
      this.#metadata = undefined; // read again from the data: one copy of the metadata, not two
    }
    return data as Record<string, unknown>;
  }

  /**
   * The whole item as plain data, read now and not kept (the data when it is kept): for a
   * reader that looks at each item once, so that a large input never holds every parsed tree.
   */
  readData(): Record<string, unknown> {
    const kept = this.#rare?.data;
    if (kept !== undefined) return kept as Record<string, unknown>;
    let v: unknown;
    try {
      v = this.#parse();
    } catch (e) {
      throw this.#readError(e);
    }
    if (!isRecord(v))
      throw new KrmError(
        `${this.#name()} is not a mapping (it is ${typeOf(v, false)}): a KRM resource is a mapping with apiVersion, kind and metadata`,
      );
    return v;
  }

  /** Reads the header (apiVersion, kind, metadata) when not read yet; returns the metadata. */
  #head(): Record<string, unknown> {
    if (this.#metadata) return this.#metadata;
    let h: unknown;
    if (this.#rare?.data === undefined && !this.#rare?.doc && this.#raw !== undefined) {
      if (this.#form === 'json') {
        try {
          h = JSON.parse(this.#raw); // the whole item, dropped after: pass-through keeps bytes only
        } catch (e) {
          throw this.#readError(e);
        }
      } else if (this.#form !== 'flow') {
        // the header's own text, a prefix of the item: its strings share the input's memory
        const end = headerEnd(this.#raw, this.#form === 'entry' ? this.#seqIndent + 2 : 0);
        if (end !== undefined) {
          h = fastLoad(this.#raw.slice(0, end));
          if (this.#form === 'entry') h = Array.isArray(h) && h.length === 1 ? h[0] : undefined;
        }
      }
    }
    if (!isRecord(h)) h = this.data;
    const o = h as Record<string, unknown>;
    const metadata = isRecord(o.metadata) ? o.metadata : {};
    if (typeof metadata.namespace === 'string' && h !== this.#rare?.data) metadata.namespace = intern(metadata.namespace);
    this.#apiVersion = typeof o.apiVersion === 'string' ? intern(o.apiVersion) : '';
    this.#kind = typeof o.kind === 'string' ? intern(o.kind) : '';
    this.#metadata = metadata;
    const problems = headerProblems(o);
    if (problems.length > 0 || this.#rare?.headerProblems) {
      const rare = this.#more();
      rare.headerProblems = problems.length > 0 ? problems : undefined;
      rare.identityUnknown = problems.some((p) => p.identity);
    }
    return metadata;
  }

  /**
   * What is wrong with the header (header.ts: a field of the wrong type, apiVersion without
   * kind...), each naming its field and the fix; empty when nothing is, or when the item has
   * neither apiVersion nor kind (not a KRM resource). Throws KrmError when the item cannot be read.
   */
  get headerProblems(): readonly HeaderProblem[] {
    this.#head();
    return this.#rare?.headerProblems ?? NO_PROBLEMS;
  }

  /**
   * A header problem as one message: the item (its id when the problem leaves its identity
   * known, else `document 2 named x`), then what is wrong and the fix.
   */
  headerMessage(p: HeaderProblem, index?: number): string {
    return `${this.identityKnown ? this.id : this.label(index)}: ${p.message}`;
  }

  /** Whether apiVersion, kind, namespace and name are what the header says (no header problem leaves them unknown). */
  get identityKnown(): boolean {
    this.#head();
    return !this.#rare?.identityUnknown;
  }

  /**
   * The item in messages: `items[3]` or `document 2`, and `named x` when its name is a string
   * (its file is the result's). `index` is its position when the reader did not say it.
   */
  label(index?: number): string {
    let name: unknown;
    try {
      name = this.#head().name;
    } catch {
      name = undefined;
    }
    const at = this.listIndex ?? index;
    const which = this.where ?? (at !== undefined ? `items[${at}]` : 'an item');
    return `${which}${typeof name === 'string' && name !== '' ? ` named ${name}` : ''}`;
  }

  /** Reads the header now (the whole item when `readWhole`): throws KrmError when the item cannot be read or is not a mapping. */
  check(): void {
    this.#head();
    if (this.readWhole) void this.data;
  }

  get apiVersion(): string {
    this.#head();
    return this.#apiVersion;
  }
  get kind(): string {
    this.#head();
    return this.#kind;
  }
  /** API group: `metal3.io` of `metal3.io/v1alpha1`, '' for core. */
  get group(): string {
    const av = this.apiVersion;
    const i = av.indexOf('/');
    return i < 0 ? '' : av.slice(0, i);
  }
  get name(): string {
    const n = this.#head().name;
    return n === undefined || n === null ? '' : String(n);
  }
  get namespace(): string | undefined {
    const n = this.#head().namespace;
    return n === undefined || n === null || n === '' ? undefined : String(n);
  }
  /** The annotations as strings: the metadata's own map when every value is one (the usual case: no copy, nothing kept). */
  get annotations(): Record<string, string> {
    return stringMap(this.#head().annotations);
  }
  get labels(): Record<string, string> {
    return stringMap(this.#head().labels);
  }
  getAnnotation(key: string): string | undefined {
    return this.annotations[key];
  }

  /** kind/name with namespace, for messages. */
  get id(): string {
    return `${this.kind}/${this.namespace ? this.namespace + '/' : ''}${this.name}`;
  }

  ref(): ResourceRef {
    const r: ResourceRef = { apiVersion: this.apiVersion, kind: this.kind, name: this.name };
    if (this.namespace) r.namespace = this.namespace;
    return r;
  }

  /** The file the item came from, as kpt and kustomize annotate it. */
  file(): { path: string; index?: number } | undefined {
    const a = this.annotations;
    const path = a[ANN.path] ?? a[ANN.internalPath];
    if (!path) return undefined;
    const idx = a[ANN.index] ?? a[ANN.internalIndex];
    const f: { path: string; index?: number } = { path };
    if (idx !== undefined && /^\d+$/.test(idx)) f.index = Number(idx);
    return f;
  }

  isKptfile(): boolean {
    return this.kind === 'Kptfile' && this.group === 'kpt.dev';
  }
  isLocalConfig(): boolean {
    const v = this.annotations[ANN.localConfig];
    return v !== undefined && v !== 'false';
  }

  /** Reads a value by path (`'spec.bmc.address'` or `['spec', 'bmc', 'address']`). */
  get(path: Path | string): unknown {
    let v: unknown = this.data;
    for (const seg of asPath(path)) {
      if (v === null || typeof v !== 'object') return undefined;
      v = (v as Record<string | number, unknown>)[seg];
    }
    return v;
  }

  /** The yaml Document of the item, for structural edits; call inside `edit`. */
  #document(): Document {
    let doc = this.#rare?.doc;
    if (!doc) {
      if (this.context && this.#raw !== undefined && !this.standsAlone()) {
        // aliases into other items: edit the item as read within its list
        doc = yamlLib().parseDocument(yamlLib().stringify(this.data, EMIT_OPTIONS), PARSE_OPTIONS);
      } else {
        try {
          doc = yamlDocument(this.body);
        } catch (e) {
          throw this.#readError(e);
        }
      }
      this.#more().doc = doc;
    }
    return doc;
  }

  /**
   * Why the item is written anew, not patched line by line, as an info message (the output is
   * the item's text as the `yaml` library writes it, or as its data is written): undefined when
   * it is written as it came or patched in place. Said once per item, with the first reason
   * (written from its data: that reason, as its comments go too).
   */
  get rewriteNote(): string | undefined {
    const r = this.#rare?.rewrite;
    if (!r || !this.changed) return undefined;
    let who: string;
    try {
      who = this.id;
    } catch (e) {
      if (!(e instanceof KrmError)) throw e;
      who = this.#name(); // it does not read (the edit broke it): named by its place
    }
    if (r.fromData) return `${who}: written from its data (its comments and layout are not kept): ${r.why}`;
    // a JSON item is written from its data whatever the edit (jsonText)
    if (this.#form === 'json') return `${who}: written anew as JSON from its data (its layout is not kept) ${r.why}`;
    return `${who}: written anew by the YAML library (comments kept, layout normalised) ${r.why}`;
  }

  #rewriting(why: string, fromData = false): void {
    const rare = this.#more();
    if (rare.rewrite === undefined || (fromData && !rare.rewrite.fromData)) rare.rewrite = { why, fromData };
  }

  /**
   * Edits the item through the `yaml` Document API (comments are kept). An alias whose anchor
   * the edit removed is written as a copy of what it stood for; when `fn` throws, the item is
   * left as it was (a document made for this edit is dropped). The item is then written anew
   * (an info result says so, with `why`).
   */
  edit(fn: (doc: Document) => void, why = 'for a structural edit'): void {
    const fresh = this.#rare?.doc === undefined;
    const doc = this.#document();
    const before = aliasTargets(doc);
    try {
      fn(doc);
    } catch (e) {
      if (fresh && this.#rare) this.#rare.doc = undefined;
      throw e;
    }
    repairAliases(doc, before);
    this.#invalidate();
    this.#body = undefined;
    this.#rewriting(why);
  }

  /**
   * Sets a scalar line-wise, the rest of the text kept (text-patch.ts): true when done (or
   * nothing to do), else why it cannot be.
   */
  #setInPlace(p: Path, value: unknown): true | string {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')
      return `its new value is ${value === null ? 'null' : Array.isArray(value) ? 'a list' : 'a mapping'}`;
    if (!p.every((s) => typeof s === 'string')) return 'the path goes through a list';
    if (this.get(p) === value) return true;
    if (this.#raw !== undefined && this.#form === 'json') return 'JSON items are not patched line by line';
    if (this.#raw !== undefined && this.#form === 'flow') return 'it is an item of a flow sequence (`items: [{...}]`)';
    const text = scalarText(value);
    if (text === undefined) return 'its new value needs escapes';
    if (!this.standsAlone()) return 'it uses YAML anchors of another item';
    const next = setScalarInText(this.body, p as string[], text);
    if (typeof next !== 'string') return next.refused;
    this.#invalidate();
    this.#body = next;
    return true;
  }

  /** Sets a value. Scalars along plain block mappings are patched line-wise; else via yaml (an info result says why). */
  set(path: Path | string, value: unknown): void {
    const p = asPath(path);
    let why: string | undefined;
    if (!this.#rare?.doc) {
      const inPlace = this.#setInPlace(p, value);
      if (inPlace === true) return;
      why = `to set ${dotted(p)}: ${inPlace}`;
    }
    this.#editAt(
      p,
      false,
      why,
      (doc, place) => {
        // missing parents are created as plain maps (yaml's setIn would make YAML 1.1 !!omap ones);
        // a parent that is null (`annotations: ~`) counts as missing
        let nested: unknown = value;
        for (let i = p.length - 1; i > place.at; i--) nested = { [String(p[i])]: nested };
        const node = doc.createNode(nested, { aliasDuplicateObjects: false });
        const parent = place.parent as unknown as { get(k: unknown, keepNode: true): unknown; set(k: unknown, v: unknown): void };
        // a value on one line replaced by a scalar keeps the comment after it (`image: x # kpt-set:
        // ...`), as line-wise edits do (a block collection's comment is the lines after it: not moved)
        const old = parent.get(p[place.at], true);
        const lib = yamlLib();
        const oneLine = lib.isScalar(old) || lib.isAlias(old) || (lib.isCollection(old) && old.flow === true);
        if (oneLine && lib.isScalar(node) && old.comment) node.comment = old.comment;
        parent.set(p[place.at], node);
      },
      (data) => setInData(data, p, value),
    );
  }

  delete(path: Path | string): void {
    const p = asPath(path);
    if (this.get(p) === undefined) return;
    this.#editAt(
      p,
      true,
      `to delete ${dotted(p)} (a deletion is not made line by line)`,
      (_doc, place) => (place.parent as unknown as { delete(k: unknown): void }).delete(p[place.at]),
      (data) => deleteInData(data, p),
    );
  }

  /**
   * A structural edit at `p` through the yaml Document: a parent on the path that is not a
   * mapping is a KrmError naming the item and field; aliases the edit would orphan or change
   * are resolved first (yaml-edit.ts), and the result is then checked against the data the edit
   * means; when that cannot be had, the item is written from that data. An info result says
   * why the item is written anew (`why`: a set or delete; undefined when it was already).
   */
  #editAt(
    p: Path,
    deleting: boolean,
    why: string | undefined,
    apply: (doc: Document, place: EditPlace) => void,
    expect: (data: Json) => Json,
  ): void {
    const was = this.data;
    const fresh = this.#rare?.doc === undefined;
    const doc = this.#document();
    let place: EditPlace;
    try {
      if (doc.contents === null) doc.contents = doc.createNode({}) as never;
      place = prepareEdit(doc, p, deleting);
    } catch (e) {
      if (fresh && this.#rare) this.#rare.doc = undefined;
      if (e instanceof EditPathError) throw new KrmError(this.#pathMessage(e, p, deleting));
      if (!(e instanceof AliasCopyLimit)) throw e;
      this.#writeFromData(expect(unshared(was)), `${dotted(p)} is shared through YAML aliases too many times to edit in place`);
      return;
    }
    apply(doc, place);
    this.#invalidate();
    this.#body = undefined;
    if (why) this.#rewriting(why);
    if (!place.resolved) return;
    // aliases were resolved: the text must read as the data the edit means, else it is written from that data
    const expected = expect(unshared(was));
    let same = false;
    try {
      same = sameData(readYaml(doc.toString(EMIT_OPTIONS)).value, expected);
    } catch {
      same = false;
    }
    if (!same) this.#writeFromData(expected, `${dotted(p)} is shared through YAML aliases that could not be resolved in place`);
  }

  #writeFromData(data: Json, why: string): void {
    this.replace(data as object);
    this.#rewriting(why, true);
  }

  #pathMessage(e: EditPathError, p: Path, deleting: boolean): string {
    const file = this.file()?.path;
    return [
      `${this.id}${file ? ` (${file})` : ''}: ${e.message} to ${deleting ? 'delete' : 'set'} ${dotted(p)}`,
      `: write ${e.field} as ${e.needed === 'a mapping' ? '`key: value` entries' : e.needed}`,
    ].join('');
  }

  setAnnotation(key: string, value: string): void {
    if (this.get(['metadata', 'annotations', key]) === value) return; // `x: 1` is no string yet
    this.set(['metadata', 'annotations', key], value);
  }
  deleteAnnotation(key: string): void {
    if (this.annotations[key] === undefined) return;
    this.delete(['metadata', 'annotations', key]);
  }
  setLabel(key: string, value: string): void {
    if (this.get(['metadata', 'labels', key]) === value) return;
    this.set(['metadata', 'labels', key], value);
  }

  /** Replaces the whole content, keeping this item's place in the list. */
  replace(data: object): void {
    if (this.#rare) this.#rare.doc = undefined;
    this.#invalidate();
    this.#body = emitLikeYaml(data) ?? yamlLib().stringify(data, EMIT_OPTIONS);
  }

  /** The column of the item's `- ` when it was read as an entry of a block sequence. */
  get seqIndent(): number | undefined {
    return this.#form === 'entry' ? this.#seqIndent : undefined;
  }

  /** The item's text as an entry of a block sequence at `seqIndent` (its bytes when unchanged and already one). */
  entryText(seqIndent: number): string {
    const raw = this.#raw;
    if (raw === undefined) return indentItem(this.body, seqIndent);
    if (this.#form === 'entry' && this.#seqIndent === seqIndent) return endsLine(raw) ? raw : raw + '\n';
    if (this.#form === 'entry') return indentItem(dedentItem(raw, this.#seqIndent), seqIndent);
    if (this.#form === 'doc') return indentItem(raw, seqIndent);
    // a flow or JSON node: the same text after `- `, continuation lines indented under it
    const pad = ' '.repeat(seqIndent + 2);
    return ' '.repeat(seqIndent) + '- ' + raw.replace(/\n(?=.)/g, '\n' + pad) + (raw.endsWith('\n') ? '' : '\n');
  }

  /** The item's text as a document of a stream (its bytes when unchanged). */
  documentText(): string {
    const t = this.#raw !== undefined && this.#form !== 'entry' ? this.#raw : this.#raw !== undefined ? this.#sourceDocument() : this.body;
    return t !== '' && endsLine(t) ? t : t + '\n';
  }

  /** The item as JSON (its bytes when unchanged and read from JSON; numbers as written kept when edited). */
  jsonText(indent: string): string {
    if (this.#raw !== undefined && this.#form === 'json') return this.#raw;
    const original = this.#rare?.jsonOriginal;
    const written = original !== undefined ? writtenNumbers(original) : new Map<string, string>();
    return stringifyJson(this.data, written, indent);
  }

  /** Whether the original text can be read alone (false when it uses anchors of other items). */
  standsAlone(): boolean {
    if (!this.foreignAliases || this.#raw === undefined) return true;
    const rare = this.#more();
    if (rare.alone === undefined) {
      try {
        readYaml(this.#sourceDocument());
        rare.alone = true;
      } catch (e) {
        rare.alone = !(e instanceof YamlReadError && e.code === 'UNKNOWN_ANCHOR');
      }
    }
    return rare.alone;
  }

  /** Writes the item from its data from now on (it cannot be written alone as it was read). */
  detach(): void {
    const data = this.data;
    this.#invalidate();
    this.#more().data = data;
    this.#body = emitLikeYaml(data) ?? yamlLib().stringify(data, EMIT_OPTIONS);
  }

  /**
   * The 1-based line of a field within the item's source file when the reader knew where the
   * item started (files read by the CLI), else within the item's text.
   */
  lineOf(path: Path | string): number | undefined {
    // the lookup parses the item: kept for the last item asked (callers ask for an item's fields
    // one after another: a thousand header problems on one item were a thousand parses), and
    // for that one only, so that a large run keeps no index per item
    if (KubeObject.#lines?.o !== this) KubeObject.#lines = { o: this, lookup: parsedFieldLines(this) };
    return KubeObject.#lines.lookup(path);
  }

  /** The field-line lookup of the last item lineOf was asked about (dropped when that item changes). */
  static #lines: { o: KubeObject; lookup: (path: Path | string) => number | undefined } | undefined;
}
