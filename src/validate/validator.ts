/**
 * A JSON-schema validator that walks the schema, for the built-in kinds (whose schemas the build
 * packs as JSON: prebuild.mjs, through crd.ts for CRDs) and for CRDs found in the input
 * (schema.ts; `schemaProblem` first refuses what ajv refused to compile). It replaced ajv there:
 * a Deployment's validator was 420 KB of generated code and a 159 KB code cache, read at every
 * start that met one (~470 page faults); its schema is 35 KB of JSON. A CRD in the input cost
 * ~350 ms for ajv to load and compile it.
 *
 * It knows the keywords those schemas hold (KEYWORDS; prebuild.mjs refuses a built-in schema
 * with any other) and reports what ajv reports for them, in ajv's order, with options
 * `allErrors: true, strict: false, validateFormats: false`: schema.ts turns these errors into
 * findings. validator.test.ts and test/schema-fuzz.ts check them against ajv's on documents
 * generated from every built-in kind. ajv's order: a type error first when no keyword group of
 * the type is present, then the keywords that apply to any type ($ref beside others, const,
 * enum, not, anyOf, oneOf, allOf), then the number, string, array and object groups, each only
 * when the value is of its type.
 */

import { isRecord } from '../krm/index.js';

export interface SchemaError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message: string;
}

/** As ajv's validators: true when valid, the errors of the last call on `errors`. */
export type SchemaValidator = ((data: unknown) => boolean) & { errors: SchemaError[] | null };

type Schema = Record<string, unknown>;
type Segment = string | number;

/**
 * What ajv reads and does not check: the walker ignores them too; any other keyword is refused.
 * Not `format`: with formats off ajv still counts it in the string and number groups, which
 * moves a type error after the keywords of any type (crd.ts drops formats; the built-in
 * schemas have none, and the build would refuse one).
 */
const ANNOTATIONS: ReadonlySet<string> = new Set([
  '$schema',
  '$id',
  '$comment',
  'title',
  'description',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
  'definitions',
]);

/** One walk: the errors so far and where it is (the path is joined only for an error). */
interface Walk {
  errors: SchemaError[];
  path: Segment[];
}

/** Checks a value at the walk's path, pushing errors. */
type Check = (data: unknown, w: Walk) => void;

function report(w: Walk, keyword: string, params: Record<string, unknown>, message: string): void {
  let instancePath = '';
  for (let i = 0; i < w.path.length; i++) {
    const s = w.path[i]!;
    instancePath += typeof s === 'number' ? `/${s}` : `/${s.replace(/~/g, '~0').replace(/\//g, '~1')}`;
  }
  w.errors.push({ instancePath, keyword, params, message });
}

/** ajv's data types (strictNumbers off: NaN and Infinity are numbers, Infinity an integer). */
function isType(type: string, d: unknown): boolean {
  switch (type) {
    case 'null':
      return d === null;
    case 'array':
      return Array.isArray(d);
    case 'object':
      return isRecord(d);
    case 'integer':
      return typeof d === 'number' && !(d % 1) && !Number.isNaN(d);
    default:
      return typeof d === type;
  }
}

/** Code points, as ajv counts a string's length (a surrogate pair is one character). */
export function ucs2length(str: string): number {
  let n = 0;
  for (let i = 0; i < str.length; i++) {
    n++;
    const c = str.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < str.length && (str.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
  }
  return n;
}

/** Deep equality as ajv's (fast-deep-equal): for enum values that are lists or mappings. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    // as fast-deep-equal: the same constructor (a key `constructor` in the data counts)
    if ((a as { constructor?: unknown }).constructor !== (b as { constructor?: unknown }).constructor) return false;
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return Number.isNaN(a) && Number.isNaN(b);
}

const NUMBER_LIMITS = {
  maximum: { ok: '<=', fails: (d: number, l: number) => d > l },
  minimum: { ok: '>=', fails: (d: number, l: number) => d < l },
  exclusiveMaximum: { ok: '<', fails: (d: number, l: number) => d >= l },
  exclusiveMinimum: { ok: '>', fails: (d: number, l: number) => d <= l },
} as const;

/**
 * Where each keyword runs in ajv: its group (0: any type, then the number, string, array and
 * object groups) and its place in the group (the order of ajv's vocabularies).
 */
const GROUP_TYPES = ['', 'number', 'string', 'array', 'object'] as const;
const ORDER: ReadonlyMap<string, number> = new Map(
  [
    ['$ref', 'const', 'enum', 'not', 'anyOf', 'oneOf', 'allOf'],
    ['maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum', 'multipleOf'],
    ['maxLength', 'minLength', 'pattern'],
    ['maxItems', 'minItems', 'items', 'uniqueItems'], // ajv puts items before uniqueItems
    ['maxProperties', 'minProperties', 'required', 'additionalProperties', 'properties'],
  ].flatMap((keys, group) => keys.map((k, i) => [k, group * 16 + i] as const)),
);

/** The keywords the walker checks: `type` and those ORDER places (plus `definitions`, where $ref points). */
export const KEYWORDS: ReadonlySet<string> = new Set(['type', ...ORDER.keys()]);

/** A schema that accepts everything (ajv skips it): true, or one without a keyword. */
function alwaysValid(s: unknown): boolean {
  if (typeof s === 'boolean') return s;
  if (typeof s === 'string') return false; // a packed type or $ref
  if (!isRecord(s)) return false;
  for (const k in s) if (KEYWORDS.has(k)) return false;
  return true;
}

/**
 * `properties` and `definitions` as a flat list of name, schema, name, schema...: how the build
 * packs them (a list parses in half the time of a mapping whose keys are all new to V8: 0.85
 * against 1.7 ms for a Deployment's schema at a start); a mapping is read as well.
 */
function namedSchemas(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  return isRecord(v) ? Object.entries(v).flat() : [];
}

/**
 * A schema as the build packs it (prebuild.mjs), smaller to read at a start: `properties` as a
 * flat list (namedSchemas); a schema of one `type` as that type ("string", or "string,null"
 * for a list), of one `$ref` as the reference ("#/definitions/..."), and `{}` as true. Half the
 * schemas of a Deployment are such leaves. Values (enum, const) stay as they are.
 */
export function packedSchema(s: unknown): unknown {
  if (!isRecord(s)) return s;
  const keys = Object.keys(s);
  if (keys.length === 0) return true;
  if (keys.length === 1 && keys[0] === 'type' && (typeof s.type === 'string' || (Array.isArray(s.type) && s.type.length > 1)))
    return Array.isArray(s.type) ? s.type.join(',') : s.type;
  if (keys.length === 1 && keys[0] === '$ref' && typeof s.$ref === 'string' && s.$ref.startsWith('#')) return s.$ref;
  const out: Schema = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'properties' && isRecord(v)) out[k] = packedDefinitions(v);
    else if (k === 'not' || k === 'items' || k === 'additionalProperties') out[k] = packedSchema(v);
    else if ((k === 'anyOf' || k === 'oneOf' || k === 'allOf') && Array.isArray(v)) out[k] = v.map(packedSchema);
    else out[k] = v;
  }
  return out;
}

/** Named schemas (`properties`, `definitions`) packed as a flat list: name, schema, name, schema... */
export function packedDefinitions(named: Record<string, unknown>): unknown[] {
  return Object.entries(named).flatMap(([n, x]) => [n, packedSchema(x)]);
}

/** The checks of a packed type-only schema, shared by every validator (there are a dozen). */
const TYPE_ONLY = new Map<string, Check>();

function typeOnly(packed: string): Check {
  let c = TYPE_ONLY.get(packed);
  if (!c) {
    const types = packed.split(',');
    c = typeCheck(types.length === 1 ? types[0] : types, types);
    TYPE_ONLY.set(packed, c);
  }
  return c;
}

/** ajv's type error: the schema's `type` as its params, the types joined with "," in its message. */
function wrongType(w: Walk, typeValue: unknown, types: readonly string[]): void {
  report(w, 'type', { type: typeValue }, `must be ${types.join(',')}`);
}

function typeCheck(typeValue: unknown, types: readonly string[]): Check {
  if (types.length === 1) {
    const one = types[0]!;
    return (d, w) => {
      if (!isType(one, d)) wrongType(w, typeValue, types);
    };
  }
  return (d, w) => {
    for (let i = 0; i < types.length; i++) if (isType(types[i]!, d)) return;
    wrongType(w, typeValue, types);
  };
}

const NOTHING: Check = () => {};

/** Compiles schemas to checks, each once; `$ref`s resolve in `definitions` on first use. */
class Compiler {
  readonly #compiled = new Map<unknown, Check>();
  readonly #definitions: Map<string, unknown>;

  constructor(definitions: unknown) {
    const named = namedSchemas(definitions);
    this.#definitions = new Map();
    for (let i = 0; i + 1 < named.length; i += 2) this.#definitions.set(named[i] as string, named[i + 1]);
  }

  check(s: unknown): Check {
    let c = this.#compiled.get(s);
    if (!c) {
      c = this.#compile(s);
      this.#compiled.set(s, c);
    }
    return c;
  }

  /** A check of `s` compiled on its first use: a schema's parts compile only where values are (a BareMetalHost's schema has hundreds). */
  #lazy(s: unknown): Check {
    let c: Check | undefined;
    return (d, w) => (c ??= this.check(s))(d, w);
  }

  #ref(ref: unknown): Check {
    const m = typeof ref === 'string' ? /^#\/definitions\/([^/~%]+)$/.exec(ref) : null;
    if (!m || !this.#definitions.has(m[1]!)) throw new Error(`schema: $ref ${String(ref)} is not one of the definitions`);
    // resolved on first use: definitions refer to themselves and to each other
    return this.#lazy(this.#definitions.get(m[1]!));
  }

  #compile(s: unknown): Check {
    if (typeof s === 'string') return s.startsWith('#') ? this.#ref(s) : typeOnly(s);
    if (s === false) return (_d, w) => report(w, 'false schema', {}, 'boolean schema is false');
    if (!isRecord(s)) return NOTHING;
    // the keywords present, in ajv's order (a schema has a handful)
    const present: string[] = [];
    for (const k in s) {
      if (k === 'type' || ANNOTATIONS.has(k)) continue;
      if (!ORDER.has(k)) throw new Error(`schema: keyword ${k} is not checked`);
      let i = present.length;
      while (i > 0 && ORDER.get(present[i - 1]!)! > ORDER.get(k)!) i--;
      present.splice(i, 0, k);
    }
    const typeValue = s.type;
    if (typeValue === undefined && present.length === 0) return NOTHING;
    // a $ref alone is the referenced schema
    if (typeValue === undefined && present.length === 1 && present[0] === '$ref') return this.#ref(s.$ref);
    const types = typeValue === undefined ? [] : Array.isArray(typeValue) ? (typeValue as string[]) : [typeValue as string];
    const groupOf = (k: string) => ORDER.get(k)! >> 4;
    // ajv checks the type up front unless the one type has keywords of its own group
    const typeFirst = types.length > 0 && !(types.length === 1 && present.some((k) => GROUP_TYPES[groupOf(k)] === types[0]));
    const checks: Check[] = [];
    if (typeFirst) checks.push(typeCheck(typeValue, types));
    for (let at = 0; at < present.length; ) {
      const group = groupOf(present[at]!);
      const keys: string[] = [];
      while (at < present.length && groupOf(present[at]!) === group) keys.push(present[at++]!);
      const inGroup = keys.map((k) => this.#keyword(k, s));
      if (group === 0) {
        for (const c of inGroup) checks.push(c);
        continue;
      }
      const type = GROUP_TYPES[group]!;
      const typeError = !typeFirst && types.length === 1 && types[0] === type;
      checks.push((d, w) => {
        if (isType(type, d)) for (let i = 0; i < inGroup.length; i++) inGroup[i]!(d, w);
        else if (typeError) wrongType(w, typeValue, types);
      });
    }
    if (checks.length === 1) return checks[0]!;
    return (d, w) => {
      for (let i = 0; i < checks.length; i++) checks[i]!(d, w);
    };
  }

  /** One keyword of schema `s` (its data type already checked for typed keywords). */
  #keyword(k: string, s: Schema): Check {
    const v = s[k];
    switch (k) {
      case '$ref':
        return this.#ref(v);
      case 'not':
      case 'anyOf':
      case 'oneOf':
      case 'allOf':
        return this.#combination(k, v);
      case 'items':
        return this.#items(v);
      case 'properties':
        return this.#properties(v);
      case 'additionalProperties':
        return this.#additionalProperties(v, s.properties);
      case 'uniqueItems':
        return v === true ? uniqueItems(s.items) : NOTHING;
      default:
        return valueCheck(k, v);
    }
  }

  /** not, anyOf, oneOf, allOf: each judges the errors its schemas add, and takes them back as ajv does. */
  #combination(k: 'not' | 'anyOf' | 'oneOf' | 'allOf', v: unknown): Check {
    if (k === 'not') {
      const sub = this.#lazy(v);
      const always = alwaysValid(v);
      return (d, w) => {
        const before = w.errors.length;
        if (!always) sub(d, w);
        const valid = w.errors.length === before;
        w.errors.length = before; // ajv creates no errors inside `not`
        if (valid) report(w, 'not', {}, 'must NOT be valid');
      };
    }
    const subs = (v as unknown[]).map((x) => this.#lazy(x));
    if (k === 'allOf')
      return (d, w) => {
        for (let i = 0; i < subs.length; i++) subs[i]!(d, w);
      };
    if (k === 'anyOf')
      return (d, w) => {
        const before = w.errors.length;
        for (let i = 0; i < subs.length; i++) {
          const n = w.errors.length;
          subs[i]!(d, w);
          if (w.errors.length === n) {
            w.errors.length = before;
            return;
          }
        }
        report(w, 'anyOf', {}, 'must match a schema in anyOf');
      };
    return (d, w) => {
      const before = w.errors.length;
      let valid = false;
      let passing: unknown = null;
      for (let i = 0; i < subs.length; i++) {
        const n = w.errors.length;
        subs[i]!(d, w);
        const ok = w.errors.length === n;
        // a second passing schema ends it (ajv checks no further)
        if (ok && valid) {
          valid = false;
          passing = [passing, i];
          break;
        }
        if (ok) {
          valid = true;
          passing = i;
        }
      }
      if (valid) w.errors.length = before;
      else report(w, 'oneOf', { passingSchemas: passing }, 'must match exactly one schema in oneOf');
    };
  }

  #items(v: unknown): Check {
    if (Array.isArray(v)) throw new Error('schema: items as a list is not checked');
    if (alwaysValid(v)) return NOTHING;
    const sub = this.#lazy(v);
    return (d, w) => {
      const list = d as unknown[];
      for (let i = 0; i < list.length; i++) {
        w.path.push(i);
        sub(list[i], w);
        w.path.pop();
      }
    };
  }

  #properties(v: unknown): Check {
    // (ajv skips a property whose schema accepts everything: its check reports nothing)
    const named = namedSchemas(v);
    const names: string[] = [];
    const schemas: unknown[] = [];
    for (let i = 0; i + 1 < named.length; i += 2)
      if (named[i] !== '__proto__') {
        names.push(named[i] as string);
        schemas.push(named[i + 1]);
      }
    // each compiled on the first value it meets (a slot, not a closure per property: a start
    // compiles a few dozen of a Deployment's hundreds)
    const checks: (Check | undefined)[] = new Array(names.length);
    return (d, w) => {
      const o = d as Record<string, unknown>;
      for (let i = 0; i < names.length; i++) {
        const value = o[names[i]!];
        if (value === undefined) continue;
        w.path.push(names[i]!);
        (checks[i] ??= this.check(schemas[i]))(value, w);
        w.path.pop();
      }
    };
  }

  /** Every key `properties` does not name (in the value's key order, as ajv's `for...in`). */
  #additionalProperties(v: unknown, properties: unknown): Check {
    if (alwaysValid(v)) return NOTHING;
    const named = namedSchemas(properties);
    const known = new Set<unknown>();
    for (let i = 0; i < named.length; i += 2) if (named[i] !== '__proto__') known.add(named[i]);
    const sub = v === false ? undefined : this.#lazy(v);
    return (d, w) => {
      const o = d as Record<string, unknown>;
      for (const key in o) {
        if (known.has(key)) continue;
        if (!sub) {
          report(w, 'additionalProperties', { additionalProperty: key }, 'must NOT have additional properties');
          continue;
        }
        w.path.push(key);
        sub(o[key], w);
        w.path.pop();
      }
    };
  }
}

/**
 * uniqueItems as ajv checks it: by a map of the items when the items' schema names scalar types
 * only (items of other types skipped), else by deep equality, pair by pair from the end; one
 * error, naming the two items as ajv does.
 */
function uniqueItems(items: unknown): Check {
  // the item schema's own `type` (a packed `$ref` has none: ajv then compares items deeply)
  const t = typeof items === 'string' ? (items.startsWith('#') ? undefined : items.split(',')) : isRecord(items) ? items.type : undefined;
  const itemTypes: string[] = t === undefined ? [] : Array.isArray(t) ? (t as string[]) : [t as string];
  const byMap = itemTypes.length > 0 && !itemTypes.some((x) => x === 'object' || x === 'array');
  const fail = (w: Walk, i: number, j: unknown) =>
    report(w, 'uniqueItems', { i, j }, `must NOT have duplicate items (items ## ${String(j)} and ${i} are identical)`);
  return (d, w) => {
    const list = d as unknown[];
    let i = list.length;
    if (!(i > 1)) return;
    if (byMap) {
      // ajv's own object of indices, with its quirks (keys are the items as strings)
      const indices: Record<string, unknown> = {};
      for (; i--; ) {
        let item = list[i] as unknown;
        if (!itemTypes.some((x) => isType(x, item))) continue;
        if (itemTypes.length > 1 && typeof item === 'string') item += '_';
        const key = item as string;
        if (typeof indices[key] === 'number') return fail(w, i, indices[key]);
        indices[key] = i;
      }
      return;
    }
    for (; i--; ) for (let j = i; j--; ) if (deepEqual(list[i], list[j])) return fail(w, i, j);
  };
}

/** The keywords that judge a value alone: const, enum, the limits, pattern, required. */
function valueCheck(k: string, v: unknown): Check {
  switch (k) {
    case 'const': {
      const params = { allowedValue: v };
      const deep = v !== null && typeof v === 'object';
      return (d, w) => {
        if (deep ? !deepEqual(d, v) : d !== v) report(w, 'const', params, 'must be equal to constant');
      };
    }
    case 'enum': {
      const allowed = v as unknown[];
      const params = { allowedValues: allowed };
      // as ajv: === for a scalar member (NaN is none), deep equality for a list or mapping
      const deep = allowed.map((x) => x !== null && typeof x === 'object');
      return (d, w) => {
        for (let i = 0; i < allowed.length; i++) if (deep[i] ? deepEqual(d, allowed[i]) : d === allowed[i]) return;
        report(w, 'enum', params, 'must be equal to one of the allowed values');
      };
    }
    case 'maximum':
    case 'minimum':
    case 'exclusiveMaximum':
    case 'exclusiveMinimum': {
      const { ok, fails } = NUMBER_LIMITS[k];
      const limit = v as number;
      const params = { comparison: ok, limit };
      const message = `must be ${ok} ${limit}`;
      return (d, w) => {
        if (fails(d as number, limit) || Number.isNaN(d)) report(w, k, params, message);
      };
    }
    case 'multipleOf': {
      const m = v as number;
      const params = { multipleOf: m };
      const message = `must be multiple of ${m}`;
      return (d, w) => {
        const res = (d as number) / m;
        if (m === 0 || res !== Number.parseInt(String(res), 10)) report(w, 'multipleOf', params, message);
      };
    }
    case 'maxLength':
    case 'minLength':
    case 'maxItems':
    case 'minItems':
    case 'maxProperties':
    case 'minProperties': {
      const limit = v as number;
      const max = k.startsWith('max');
      const what = k.endsWith('Length') ? 'characters' : k.endsWith('Items') ? 'items' : 'properties';
      const size =
        what === 'characters'
          ? (d: unknown) => ucs2length(d as string)
          : what === 'items'
            ? (d: unknown) => (d as unknown[]).length
            : (d: unknown) => Object.keys(d as object).length;
      const params = { limit };
      const message = `must NOT have ${max ? 'more' : 'fewer'} than ${limit} ${what}`;
      return (d, w) => {
        const n = size(d);
        if (max ? n > limit : n < limit) report(w, k, params, message);
      };
    }
    case 'pattern': {
      const re = new RegExp(v as string, 'u');
      const params = { pattern: v };
      const message = `must match pattern "${v as string}"`;
      return (d, w) => {
        if (!re.test(d as string)) report(w, 'pattern', params, message);
      };
    }
    case 'required': {
      const names = v as string[];
      return (d, w) => {
        const o = d as Record<string, unknown>;
        for (let i = 0; i < names.length; i++)
          if (o[names[i]!] === undefined) report(w, 'required', { missingProperty: names[i] }, `must have required property '${names[i]}'`);
      };
    }
    default:
      throw new Error(`schema: keyword ${k} is not checked`);
  }
}

/**
 * A validator for `schema`, whose `$ref`s (`#/definitions/<name>`) point into `definitions`.
 * Parts of the schema compile on first use; a keyword outside KEYWORDS is refused when its
 * part compiles (prebuild.mjs checks every built-in schema whole at build time: checkSchema).
 */
export function schemaValidator(schema: unknown, definitions?: unknown): SchemaValidator {
  const compiler = new Compiler(definitions);
  let root: Check | undefined;
  const validate = ((data: unknown): boolean => {
    root ??= compiler.check(schema);
    const w: Walk = { errors: [], path: [] };
    root(data, w);
    validate.errors = w.errors.length ? w.errors : null;
    return w.errors.length === 0;
  }) as SchemaValidator;
  validate.errors = null;
  return validate;
}

/**
 * Compiles every part of a schema and of its definitions: throws on a keyword the walker does
 * not check and on a `$ref` to no definition (prebuild.mjs, for every built-in schema).
 */
export function checkSchema(schema: unknown, definitions?: unknown): void {
  const compiler = new Compiler(definitions);
  const seen = new Set<unknown>();
  const visit = (s: unknown): void => {
    if (typeof s === 'string') compiler.check(s); // a packed type or $ref: the reference must resolve
    if (!isRecord(s) || seen.has(s)) return;
    seen.add(s);
    compiler.check(s);
    for (const k of ['not', 'items', 'additionalProperties']) visit(s[k]);
    for (const k of ['anyOf', 'oneOf', 'allOf']) if (Array.isArray(s[k])) (s[k] as unknown[]).forEach(visit);
    const properties = namedSchemas(s.properties);
    for (let i = 1; i < properties.length; i += 2) visit(properties[i]);
  };
  visit(schema);
  const named = namedSchemas(definitions);
  for (let i = 1; i < named.length; i += 2) visit(named[i]);
}

const SIMPLE_TYPES = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);
const NUMBERS = ['maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum', 'multipleOf'];
const COUNTS = ['maxLength', 'minLength', 'maxItems', 'minItems', 'maxProperties', 'minProperties'];

/**
 * Why a schema (a CRD's, as crd.ts writes it) cannot be checked, or undefined: what ajv refused
 * when it compiled CRDs found in the input (its draft-07 meta-schema for the keywords the walker
 * knows, duplicate enum values, and a `pattern` that is no regular expression where ajv compiles
 * it). Names the place in the schema. Refused here and compiled by ajv, never met in what
 * crd.ts writes: `$ref`, `items` as a list; not checked, as crd.ts drops them: the types of
 * annotations (`title`, `examples`...).
 */
export function schemaProblem(schema: unknown, at = '(root)', compiled = true): string | undefined {
  if (typeof schema === 'boolean') return undefined;
  if (!isRecord(schema)) return `${at}: a schema must be a mapping or a boolean`;
  const s = schema;
  for (const k of Object.keys(s)) {
    if (ANNOTATIONS.has(k)) continue;
    if (!KEYWORDS.has(k)) return `${at}: keyword ${k} is not checked`;
  }
  const t = s.type;
  if (t !== undefined) {
    const types = Array.isArray(t) ? t : [t];
    if (types.length === 0 || types.some((x) => typeof x !== 'string' || !SIMPLE_TYPES.has(x)) || new Set(types).size !== types.length)
      return `${at}: type ${JSON.stringify(t)} is not one of ${[...SIMPLE_TYPES].join(', ')} (or a list of them, each once)`;
  }
  for (const k of NUMBERS)
    if (s[k] !== undefined && (typeof s[k] !== 'number' || (k === 'multipleOf' && !((s[k] as number) > 0))))
      return `${at}: ${k} must be a number${k === 'multipleOf' ? ' above 0' : ''}, found ${JSON.stringify(s[k])}`;
  for (const k of COUNTS)
    if (s[k] !== undefined && !(isType('integer', s[k]) && (s[k] as number) >= 0))
      return `${at}: ${k} must be a whole number, 0 or more, found ${String(s[k])}`;
  if (s.uniqueItems !== undefined && typeof s.uniqueItems !== 'boolean') return `${at}: uniqueItems must be true or false`;
  if (s.enum !== undefined) {
    const e = s.enum;
    if (!(Array.isArray(e) && e.length > 0)) return `${at}: enum must be a list of one value or more`;
    for (let i = 1; i < e.length; i++)
      for (let j = 0; j < i; j++) if (deepEqual(e[i], e[j])) return `${at}: enum lists ${JSON.stringify(e[i])} twice`;
  }
  if (s.required !== undefined) {
    const r = s.required;
    if (!Array.isArray(r) || r.some((x) => typeof x !== 'string') || new Set(r).size !== r.length)
      return `${at}: required must be a list of field names, each once`;
  }
  if (s.pattern !== undefined) {
    if (typeof s.pattern !== 'string') return `${at}: pattern must be a string`;
    // ajv compiles a pattern only where it checks it (not in an anyOf that a branch already accepts)
    if (compiled)
      try {
        new RegExp(s.pattern, 'u');
      } catch (e) {
        return `${at}: pattern ${JSON.stringify(s.pattern)} is not a regular expression (${(e as Error).message})`;
      }
  }
  if (s.$ref !== undefined) return `${at}: $ref is not resolved in a CRD's schema`;
  for (const k of ['not', 'additionalProperties'] as const) {
    if (s[k] === undefined) continue;
    const p = schemaProblem(s[k], `${at}.${k}`, compiled);
    if (p) return p;
  }
  if (s.items !== undefined) {
    if (Array.isArray(s.items)) return `${at}: items as a list is not checked`;
    const p = schemaProblem(s.items, `${at}.items`, compiled);
    if (p) return p;
  }
  for (const k of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (s[k] === undefined) continue;
    const list = s[k];
    if (!Array.isArray(list) || list.length === 0) return `${at}: ${k} must be a list of schemas`;
    const skipped = k === 'anyOf' && list.some(alwaysValid);
    for (let i = 0; i < list.length; i++) {
      const p = schemaProblem(list[i], `${at}.${k}[${i}]`, compiled && !skipped);
      if (p) return p;
    }
  }
  if (s.properties !== undefined) {
    if (!isRecord(s.properties)) return `${at}: properties must be a mapping`;
    for (const [name, sub] of Object.entries(s.properties)) {
      const p = schemaProblem(sub, `${at}.properties.${name}`, compiled);
      if (p) return p;
    }
  }
  return undefined;
}
