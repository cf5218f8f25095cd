/**
 * Schema checks: every item against its schema (built-in precompiled validators, CRDs in the
 * input, extra CRDs), unknown fields where the schema is closed, and YAML 1.1 scalars that
 * YAML 1.1 and 1.2 readers disagree on. Validators load lazily, only for kinds present.
 */
import { InstallError, type KubeObject, parsedFieldLines } from '../krm/index.js';
import { checkedSchema, crdSchemas } from './crd.js';
import { BUILTIN_KEYS } from './generated/builtin-keys.js';
import { unpackSchema } from './packed.js';
import { schemaProblem, schemaValidator } from './validator.js';
import { dotted, isRecord as isObj, wordsPattern, YAML11_ONLY_BOOL } from '../krm/index.js';
import { isSensitivePath, quoteValue } from '../secrets/redact.js';

export interface SchemaFinding {
  rule: string;
  message: string;
  object: KubeObject;
  field?: string;
  path?: (string | number)[];
  line?: number;
  /** the schema is known to drift from the documents its tool accepts: report at most a warning */
  lenient?: boolean;
}

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params?: Record<string, unknown>;
}
type Validator = ((d: unknown) => boolean) & { errors?: AjvError[] | null };

type Obj = Record<string, unknown>;

function segments(instancePath: string): (string | number)[] {
  if (!instancePath) return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/** A built-in kind's validator, read from its packed schema on first use (only kinds present). */
export function builtinValidator(name: string): Validator | undefined {
  const packed = unpackSchema(name);
  return packed && schemaValidator(packed.schema, packed.definitions);
}

/** Strategic-merge-patch directives: keys a patch may hold that no schema lists. */
const PATCH_DIRECTIVE = /^\$(?:patch|retainKeys|setElementOrder\/|deleteFromPrimitiveList\/)/;

/**
 * Checks items against their schemas: CRDs in the input and from spec.schemas.paths override
 * the built-in validators for their kinds. Validators compile on the first item of their kind.
 */
export class SchemaChecker {
  readonly #fromCrds = new Map<string, object>();
  readonly #compiled = new Map<string, Validator | undefined>();

  constructor(
    crds: readonly Obj[],
    private readonly skipKinds: ReadonlySet<string>,
  ) {
    for (const crd of crds) for (const s of crdSchemas(crd)) this.#fromCrds.set(`${s.group}/${s.version}/${s.kind}`, checkedSchema(s));
  }

  /** The validator of an item's kind, or undefined when there is none; a CRD that does not compile is a finding. */
  #validator(o: KubeObject, key: string, out: SchemaFinding[]): Validator | undefined {
    if (this.#compiled.has(key)) return this.#compiled.get(key);
    let v: Validator | undefined;
    const crd = this.#fromCrds.get(key);
    if (crd) {
      // the walker, as for the built-in kinds; a schema it cannot check is one finding
      const problem = schemaProblem(crd);
      if (!problem) v = schemaValidator(crd);
      else
        out.push({
          rule: 'schema',
          message: `the CRD for ${key} does not compile to a schema (${problem}): fix the CRD's openAPIV3Schema; its items are not checked`,
          object: o,
        });
    } else if (BUILTIN_KEYS[key]) v = builtinValidator(BUILTIN_KEYS[key]!);
    this.#compiled.set(key, v);
    return v;
  }

  /** Findings of one item (an item that cannot be read is an `input` error: analyse.ts). */
  check(o: KubeObject, head: { apiVersion: string; kind: string; group: string }, data: Obj): SchemaFinding[] {
    const out: SchemaFinding[] = [];
    if (!head.kind || this.skipKinds.has(head.kind)) return out;
    const v = this.#validator(o, `${head.apiVersion}/${head.kind}`, out);
    if (!v) return out;
    if (v(data)) return out;
    // airshipctl's config kinds are read by airshipctl, never applied, and its CRDs drift
    const lenient = head.group === 'airshipit.org';
    const note = lenient ? " (airshipctl's published CRD; airshipctl reads this document itself, so this is a warning)" : '';
    const seen = new Set<string>();
    for (const e of v.errors ?? []) {
      const f = schemaFinding(o, e, data, note);
      if (!f || seen.has(f.rule + '|' + (f.field ?? ''))) continue;
      seen.add(f.rule + '|' + (f.field ?? ''));
      out.push({ ...f, lenient });
    }
    return out;
  }
}

/** One ajv error as a finding, or undefined for what the API server would accept. */
function schemaFinding(o: KubeObject, e: AjvError, data: Obj, note: string): SchemaFinding | undefined {
  const path = segments(e.instancePath);
  if (e.keyword === 'additionalProperties') {
    const extra = String(e.params?.additionalProperty);
    if (PATCH_DIRECTIVE.test(extra)) return undefined;
    const p = [...path, extra];
    const where = path.length ? ` in ${dotted(path)}` : '';
    return {
      rule: 'schema-unknown-field',
      message: `${o.id}: unknown field "${extra}"${where}: the ${o.kind} ${o.apiVersion} schema has no such field (the API server would drop it); remove it or fix its spelling${note}`,
      object: o,
      field: dotted(p),
      path: p,
    };
  }
  if (e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'if') return undefined;
  // null is "not set": the API server prunes null values of fields that are not nullable
  if (e.keyword !== 'required' && valueAt(data, path) === null) return undefined;
  return {
    rule: 'schema',
    message: `${o.id}: ${dotted(path) || '(root)'} ${describe(e, data, path)} (schema ${o.kind} ${o.apiVersion})${note}`,
    object: o,
    field: dotted(path) || undefined,
    path,
  };
}

function valueAt(data: unknown, path: (string | number)[]): unknown {
  let v = data;
  for (const p of path) v = isObj(v) || Array.isArray(v) ? (v as Record<string | number, unknown>)[p] : undefined;
  return v;
}

/** Kubernetes IANA_SVC_NAME, the pattern of named ports in the core kinds (scripts/k8s-core-schemas.mjs). */
const PORT_NAME = '^(?!.*--)(?=.*[a-z])[a-z0-9]([-a-z0-9]*[a-z0-9])?$';

/**
 * A value of the input as messages show it: the one place that decides (values of sensitive
 * fields may be described by type and length instead).
 */
function shownValue(v: unknown, data?: unknown, path?: (string | number)[]): string {
  // a credential's value (src/secrets: Secret data, credential keys, env vars with credential
  // names, credentials written inline) by type and length
  return quoteValue(data, path, v);
}

function describe(e: AjvError, data: unknown, path: (string | number)[]): string {
  const p = e.params ?? {};
  switch (e.keyword) {
    case 'required':
      return `is missing required field "${String(p.missingProperty)}": add it`;
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).map((v) => shownValue(v)).join(', ')}, found ${shownValue(valueAt(data, path), data, path)}`;
    case 'type': {
      const v = valueAt(data, path);
      // a value described rather than quoted (a credential) says its type itself
      const shown = shownValue(v, data, path);
      const found =
        v === null
          ? 'null'
          : Array.isArray(v)
            ? 'a list'
            : typeof v === 'object'
              ? 'a mapping'
              : shown !== JSON.stringify(v) && !(typeof v === 'number' && !Number.isFinite(v))
                ? shown
                : `${typeof v} ${shown}`;
      // `integer,null`: null means "not set" and needs no mention
      const types = String(p.type)
        .split(',')
        .filter((t) => t !== 'null');
      const hint =
        types.includes('string') && (typeof v === 'boolean' || typeof v === 'number')
          ? ' (quote the value)'
          : !types.includes('string') && typeof v === 'string' && /^[-+]?\d+(\.\d+)?$/.test(v.trim())
            ? ' (remove the quotes)'
            : '';
      return `must be ${types.join(' or ')}, found ${found}${hint}`;
    }
    case 'pattern':
      if (p.pattern === PORT_NAME)
        return `must be a port number or a port name (up to 15 lowercase letters, digits and "-", at least one letter, as the container port's name), found ${shownValue(valueAt(data, path), data, path)}: fix the value or name the container port`;
      return `does not match the pattern ${String(p.pattern)}: fix the value`;
    default:
      return `${e.message ?? 'is invalid'}`;
  }
}

const AMBIGUOUS = new RegExp(
  `^(?:${wordsPattern(YAML11_ONLY_BOOL)}|[-+]?0[0-7]+|[-+]?\\d[\\d_]*_[\\d_]*|[-+]?\\d+(?::[0-5]?\\d){1,2}(?:\\.\\d*)?)$`,
);
/** A cheap superset of AMBIGUOUS after `key: ` or `- `: most items have no candidate line at all. */
const CANDIDATE =
  /[:-] +(?:[yYnN]|[yY]es|YES|[nN]o|NO|[oO]n|ON|[oO]ff|OFF|[-+]?0[0-7]+|[-+]?\d[\d_]*_[\d_]*|[-+]?\d+(?::[0-5]?\d){1,2}(?:\.\d*)?)[ \t]*(?:#|\r?\n|$)/;
const KEY_LINE = /^( *)((?:- +)*)((?:"[^"]*"|'[^']*'|[^\s#'"-][^:#]*?|-[^\s:#][^:#]*?)):(?: +(.*?))?\s*$/;
const SEQ_LINE = /^( *)((?:- +)+)(.*?)\s*$/;

function stripComment(v: string): string {
  const i = v.search(/ #/);
  return (i >= 0 ? v.slice(0, i) : v).trim();
}

/** One open node of the walk: its column, its key in its parent, and its whole path as one map key. */
interface Open {
  indent: number;
  key: string | number;
  /** the path's segments joined by NUL (`pathKey`), built once per node, not per line */
  joined: string;
}

/** Where a line of the walk is: the path as a map key (free) and as segments (made on demand). */
interface LineAt {
  readonly key: string;
  path(): (string | number)[];
}

/**
 * Before a sequence entry at column c: leave the entries deeper than c and an earlier entry of
 * the same sequence, but keep a key at column c: its value is this (compact, `key:\n- x`) sequence.
 */
function popTo(stack: Open[], c: number): void {
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    if (top.indent > c || (top.indent === c && typeof top.key === 'number')) stack.pop();
    else break;
  }
}

function open(stack: Open[], indent: number, key: string | number): void {
  const parent = stack[stack.length - 1];
  stack.push({ indent, key, joined: parent ? `${parent.joined}\u0000${key}` : String(key) });
}

/** The next number of the sequence at column c (its entries so far, counted by column). */
function nextEntry(seqCount: Map<number, number>, c: number): number {
  const n = (seqCount.get(c) ?? -1) + 1;
  seqCount.set(c, n);
  return n;
}

/** Forgets the sequences at columns from `col` on (or beyond it): a key or entry at `col` ends them. */
function forgetSequences(seqCount: Map<number, number>, col: number, beyond: boolean): void {
  if (seqCount.size === 0) return;
  for (const k of seqCount.keys()) if (k > col || (!beyond && k === col)) seqCount.delete(k);
}

/**
 * Walks the block-YAML lines of an item: calls `visit(line index, where, raw value)` for every
 * sequence entry that starts on a line (value undefined), then for the line's `key: value` or
 * `- value`, skipping comments and the bodies of block scalars. Text only (no parse): flow
 * collections are not entered. Called for a few findings of every item of a run: the path of a
 * line is one string built as nodes open (no array or join per line). Returns the lines walked.
 */
function walkLines(body: string, visit: (i: number, at: LineAt, value: string | undefined) => boolean | undefined | void): number {
  const stack: Open[] = [];
  const at: LineAt = {
    get key() {
      return stack.length ? stack[stack.length - 1]!.joined : '';
    },
    path: () => stack.map((x) => x.key),
  };
  const seqCount = new Map<number, number>();
  let blockIndent = -1;
  let start = 0;
  let i = 0;
  for (; start <= body.length; i++) {
    const nl = body.indexOf('\n', start);
    const stop = nl < 0 ? body.length : nl;
    const line = body.slice(start, stop);
    start = stop + 1;
    let ind = 0;
    while (line.charCodeAt(ind) === 32) ind++;
    if (blockIndent >= 0) {
      if (ind > blockIndent || line.trim() === '') continue;
      blockIndent = -1;
    }
    const first = line.charCodeAt(ind);
    if (ind === line.length || first === 35 /* # */ || (line.length - ind === 3 && line.endsWith('---'))) continue;
    let value: string | undefined;
    let col = ind;
    // a block scalar's lines are indented more than its node: the key's column, or for `- |` the dash's
    let lastDash = -1;
    const km = KEY_LINE.exec(line);
    if (km) {
      const dashes = km[2]!;
      // sequence entries on this line
      let c = ind;
      if (dashes)
        for (const d of dashes.match(/- +/g)!) {
          popTo(stack, c);
          open(stack, c, nextEntry(seqCount, c));
          c += d.length;
          if (visit(i, at, undefined) === false) return i + 1; // the entry itself
        }
      col = ind + dashes.length;
      const keyPart = km[3]!.replace(/^["']|["']$/g, '');
      value = km[4];
      while (stack.length && stack[stack.length - 1]!.indent >= col) stack.pop();
      forgetSequences(seqCount, col, false);
      open(stack, col, keyPart);
    } else {
      const sm = SEQ_LINE.exec(line);
      if (!sm) continue;
      const dashes = sm[2]!;
      let c = ind;
      for (const d of dashes.match(/- +/g) ?? []) {
        popTo(stack, c);
        lastDash = c;
        forgetSequences(seqCount, c, true);
        open(stack, c, nextEntry(seqCount, c));
        c += d.length;
        if (visit(i, at, undefined) === false) return i + 1; // the entry itself
      }
      value = sm[3];
      col = c;
    }
    if (visit(i, at, value) === false) return i + 1;
    if (value !== undefined && BLOCK_SCALAR_HEAD.test(value)) blockIndent = km ? col : lastDash;
  }
  return i;
}

/** `|`, `>-`, `|2+ # comment`: a block scalar starts; its lines are not keys. */
const BLOCK_SCALAR_HEAD = /^[|>][-+0-9]*(\s+#.*)?$/;

/** Path segments as one map key (what LineAt.key is for a line). */
function pathKey(path: readonly (string | number)[]): string {
  return path.map(String).join('\u0000');
}

/**
 * The lines of an item's fields, for all the findings of one item: the item's text is walked
 * once (the first line of every key and sequence entry), and parsed once when the text walk
 * cannot tell (flow collections); each finding then costs a lookup, not a walk of the item.
 * `work` counts what was done ('lines walked', 'items parsed for lines'): what tests count.
 */
export class FieldLines {
  /** walks of the text up to one path (each stops at the path's line) before the text is indexed */
  static readonly SEARCHES = 3;
  #searches = 0;
  #text: Map<string, number> | undefined;
  #body: string | undefined;
  #parsed: ((path: readonly (string | number)[]) => number | undefined) | undefined;

  constructor(
    private readonly o: KubeObject,
    private readonly work?: Map<string, number>,
  ) {}

  #count(what: string, n: number): void {
    if (this.work) this.work.set(what, (this.work.get(what) ?? 0) + n);
  }

  /** The item's text as a document (KubeObject.body makes it anew at each use: kept here while its findings are placed). */
  get body(): string {
    this.#body ??= this.o.body;
    return this.#body;
  }

  /**
   * The line (1-based, in the input) of `path` from the item's text: the line of the key or
   * sequence entry. Undefined when the text walk does not find the whole path (flow
   * collections, a path to a missing field ...).
   */
  textLine(path: readonly (string | number)[]): number | undefined {
    // an item's first few findings each walk its text up to their line (most items have one or
    // two, near the top); from the next on, or once a search walked it all, the whole text is
    // indexed once: an item with many findings is walked at most twice in all
    if (!this.#text && this.#searches < FieldLines.SEARCHES) {
      this.#searches++;
      const want = pathKey(path);
      let found: number | undefined;
      const walked = walkLines(this.body, (i, at) => {
        if (at.key !== want) return undefined;
        found = i;
        return false;
      });
      this.#count('lines walked', walked);
      if (found !== undefined) return (this.o.sourceLine ?? 1) + found;
      this.#searches = FieldLines.SEARCHES; // not in the text: the next lookup indexes it
      return undefined;
    }
    if (!this.#text) {
      const index = new Map<string, number>();
      const body = this.body;
      const walked = walkLines(body, (i, at) => {
        const key = at.key;
        if (!index.has(key)) index.set(key, i); // the first, as a search from the top finds it
      });
      this.#count('lines walked', walked);
      this.#text = index;
    }
    const i = this.#text.get(pathKey(path));
    return i === undefined ? undefined : (this.o.sourceLine ?? 1) + i;
  }

  /** The line of `path`: from the text, else from the parsed item (KubeObject.lineOf: the deepest part of the path that exists). */
  lineOf(path: readonly (string | number)[]): number | undefined {
    const fromText = this.textLine(path);
    if (fromText !== undefined) return fromText;
    if (!this.#parsed) {
      const lookup = parsedFieldLines(this.o);
      let parsed = false;
      this.#parsed = (p) => {
        if (!parsed) this.#count('items parsed for lines', 1);
        parsed = true;
        try {
          return lookup(p);
        } catch (e) {
          if (e instanceof InstallError) throw e;
          return undefined;
        }
      };
    }
    return this.#parsed(path);
  }
}

/**
 * The line (1-based, in the input) of `path` in an item, from its text: the line of the key or
 * sequence entry. Undefined when the text walk does not find the whole path (flow collections,
 * a path to a missing field ...): callers then ask the YAML parser (KubeObject.lineOf). For
 * many paths of one item, keep a FieldLines.
 */
export function lineOfPath(o: KubeObject, path: readonly (string | number)[]): number | undefined {
  return new FieldLines(o).textLine(path);
}

/** Plain scalars YAML 1.1 and YAML 1.2 (Go yaml.v3, kyaml, JSON schema tools) read differently. */
const BOOL_WORD = /^(y|yes|on|n|no|off)$/i;
const OCTAL = /^[-+]?0[0-7]+$/;
/**
 * Permission fields (`defaultMode: 0644`, `items[].mode`): Kubernetes' own examples write them in
 * octal, and every Kubernetes tool reads them so (kubectl, kustomize and kpt read YAML with Go,
 * which takes a leading 0 as octal); quoting would make them strings the schema refuses.
 */
const PERMISSION_FIELD = /^(?:defaultMode|mode)$/;

/** How YAML 1.1 and 1.2 readers take a plain value, and the fix that is valid for it. */
function ambiguityAdvice(v: string): string {
  if (BOOL_WORD.test(v))
    return [
      `YAML 1.1 (kubectl, yaml.v2) reads it as ${/^(y|yes|on)$/i.test(v) ? 'true' : 'false'}`,
      `YAML 1.2 (kustomize kyaml, yaml.v3) as the string "${v}"; quote it ("${v}") or write true/false`,
    ].join(', ');
  if (OCTAL.test(v)) {
    const octal = parseInt(v, 8);
    return [
      `YAML 1.1 and Go's YAML readers (kubectl, kustomize) read it as octal ${octal}, strict YAML 1.2 readers as decimal ${parseInt(v, 10)}`,
      `write ${octal} (what Kubernetes reads) where the field is a number, or quote it ("${v}") where it is a string`,
    ].join('; ');
  }
  const reading = v.includes('_') ? `the number ${v.replace(/_/g, '')}` : 'a base-60 number';
  return `YAML 1.1 reads it as ${reading}, YAML 1.2 as the string "${v}"; quote it ("${v}")`;
}

/**
 * Whether a text may hold an ambiguous plain scalar (ambiguousScalars finds none otherwise). True
 * for an item's text as it came (a list entry, indented) whenever it is for the item as a
 * document: each of the document's lines ends a line of the entry.
 */
export function mayHoldAmbiguous(text: string): boolean {
  return CANDIDATE.test(text);
}

/** Plain scalars YAML 1.1 and YAML 1.2 (Go yaml.v3, kyaml, JSON schema tools) read differently. */
export function ambiguousScalars(o: KubeObject, tree?: unknown, body = o.body): SchemaFinding[] {
  const out: SchemaFinding[] = [];
  if (!CANDIDATE.test(body)) return out;
  walkLines(body, (i, at, value) => {
    if (value === undefined || value === '' || BLOCK_SCALAR_HEAD.test(value)) return;
    const v = stripComment(value);
    if (!AMBIGUOUS.test(v)) return;
    const path = at.path();
    if (OCTAL.test(v) && PERMISSION_FIELD.test(String(path[path.length - 1]))) return;
    out.push({
      rule: 'yaml-ambiguous',
      // a credential's value is described by its length, never quoted (nor what a reader makes of it)
      message: isSensitivePath(tree, path)
        ? `${o.id}: ${dotted(path)}: a plain value of ${v.length} character(s) is ambiguous: YAML 1.1 (kubectl, yaml.v2) and YAML 1.2 (kustomize kyaml, yaml.v3) read it differently; quote it`
        : `${o.id}: ${dotted(path)}: plain value ${v} is ambiguous: ${ambiguityAdvice(v)}`,
      object: o,
      field: dotted(path),
      path,
      line: (o.sourceLine ?? 1) + i,
    });
  });
  return out;
}
