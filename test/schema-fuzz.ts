/**
 * The differential check of src/validate/validator.ts against ajv, shared by its test
 * (validator.test.ts, a few documents per kind) and the bench (bench/intent-validate.ts, many):
 * seeded documents generated from each built-in schema, close to valid with each node sometimes
 * wrong, run through both; the first disagreement on validity or errors is the result.
 */
import { Ajv } from 'ajv';
import { isRecord } from '../src/krm/index.js';
import { BUILTIN_KEYS } from '../src/validate/generated/builtin-keys.js';
import { unpackSchema } from '../src/validate/packed.js';
import { type SchemaError, schemaValidator } from '../src/validate/validator.js';
import { seededRandom } from './fleet-mix.js';

export type Schema = Record<string, unknown>;

/** The packed form (properties and definitions as pairs) back to a JSON schema, for ajv. */
export function unpacked(s: unknown): unknown {
  if (typeof s === 'string') return s.startsWith('#') ? { $ref: s } : { type: s.includes(',') ? s.split(',') : s };
  if (s === true) return {};
  if (!isRecord(s)) return s;
  const out: Schema = {};
  for (const [k, v] of Object.entries(s)) {
    if ((k === 'properties' || k === 'definitions') && Array.isArray(v)) {
      const m: Schema = {};
      for (let i = 0; i < v.length; i += 2) m[v[i] as string] = unpacked(v[i + 1]);
      out[k] = m;
    } else if (k === 'not' || k === 'items' || k === 'additionalProperties') out[k] = unpacked(v);
    else if ((k === 'anyOf' || k === 'oneOf' || k === 'allOf') && Array.isArray(v)) out[k] = v.map(unpacked);
    else out[k] = v;
  }
  return out;
}

const ODD_VALUES: unknown[] = [
  null,
  '',
  'x',
  '80',
  'yes',
  0,
  -1,
  1.5,
  65536,
  true,
  false,
  [],
  ['x'],
  {},
  { a: 1 },
  Number.NaN,
  Number.POSITIVE_INFINITY,
  'é€😀',
];
const ODD_KEYS = ['unknownField', 'constructor', 'a/b', 'x~y', '0', '$patch', '__proto__', 'toString'];

/** A seeded generator of documents for one schema: close to valid, each node sometimes wrong. */
function generator(definitions: Schema, random: () => number) {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const set = (o: Schema, k: string, v: unknown) =>
    Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  const resolve = (s: unknown): unknown => {
    for (let n = 0; isRecord(s) && typeof s.$ref === 'string' && n < 50; n++) s = definitions[s.$ref.slice('#/definitions/'.length)];
    return s;
  };
  const stringFor = (): string => {
    const candidates = ['a', 'abc', 'a-b', 'http', '80', 'ABC', '', 'x'.repeat(70), 'name_1', '10.0.0.1', 'é'];
    return pick(candidates);
  };
  const value = (schema: unknown, depth: number): unknown => {
    const s = resolve(schema);
    if (!isRecord(s) || random() < 0.06 || depth > 9) return pick(ODD_VALUES);
    if (Array.isArray(s.enum) && random() < 0.85) return pick(s.enum as unknown[]);
    if (s.const !== undefined && random() < 0.85) return s.const;
    for (const k of ['anyOf', 'oneOf', 'allOf'] as const)
      if (Array.isArray(s[k]) && random() < 0.7) return value(pick(s[k] as unknown[]), depth + 1);
    const types =
      s.type === undefined ? (s.properties ? ['object'] : ['string', 'integer', 'object']) : Array.isArray(s.type) ? s.type : [s.type];
    switch (pick(types as string[])) {
      case 'object': {
        const o: Schema = {};
        const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
        if (isRecord(s.properties))
          for (const [k, sub] of Object.entries(s.properties))
            if (random() < (required.has(k) ? 0.92 : 0.45)) set(o, k, value(sub, depth + 1));
        if (random() < 0.12) set(o, pick(ODD_KEYS), value(isRecord(s.additionalProperties) ? s.additionalProperties : {}, depth + 1));
        if (isRecord(s.additionalProperties))
          for (let i = Math.floor(random() * 3); i > 0; i--) set(o, `k${i}`, value(s.additionalProperties, depth + 1));
        return o;
      }
      case 'array':
        return Array.from({ length: Math.floor(random() * 3) }, () => value(s.items, depth + 1));
      case 'string':
        return stringFor();
      case 'integer':
        return pick([0, 1, 3, -1, 80, 8080, 70000]);
      case 'number':
        return pick([0, 0.5, -2.5, 100]);
      case 'boolean':
        return random() < 0.5;
      case 'null':
        return null;
      default:
        return pick(ODD_VALUES);
    }
  };
  return value;
}

const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
const view = (errors: readonly (Omit<SchemaError, 'message'> & { message?: string })[] | null | undefined) =>
  (errors ?? []).map(({ instancePath, keyword, params, message }) => ({ instancePath, keyword, params, message }));

/** Runs both on `docs` and returns the first disagreement, or undefined. */
export function disagreement(schema: unknown, definitions: unknown, docs: unknown[]) {
  const ours = schemaValidator(schema, definitions);
  const plain = unpacked(schema) as Schema;
  const theirs = ajv.compile(definitions ? { ...plain, definitions: (unpacked({ definitions }) as Schema).definitions } : plain);
  for (const doc of docs) {
    const a = ours(doc);
    const b = theirs(doc);
    const ea = view(ours.errors);
    const eb = view(theirs.errors);
    if (a !== b || JSON.stringify(ea) !== JSON.stringify(eb)) return { doc, ours: ea, ajv: eb };
  }
  return undefined;
}

/** One built-in kind's generated documents and how many of them are invalid. */
export function kindDocuments(key: string, name: string, count: number, seed = 7): { docs: unknown[]; invalid: number } {
  const packed = unpackSchema(name)!;
  const definitions = (unpacked({ definitions: packed.definitions ?? [] }) as { definitions: Schema }).definitions;
  const random = seededRandom([...key].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, seed));
  const value = generator(definitions, random);
  const [group, version, kind] = key.split('/').length === 3 ? key.split('/') : ['', ...key.split('/')];
  const apiVersion = group ? `${group}/${version}` : version!;
  const docs = Array.from({ length: count }, () => {
    const d = value(unpacked(packed.schema), 0);
    // most documents are of the kind, as in an input
    if (isRecord(d) && random() < 0.9) Object.assign(d, { apiVersion, kind });
    return d;
  });
  const v = schemaValidator(packed.schema, packed.definitions);
  return { docs, invalid: docs.filter((d) => !v(d)).length };
}

/** Every built-in kind, `count` documents each: the kinds where the walker and ajv disagree. */
export function builtinDisagreements(count: number, seed = 7): { kinds: number; documents: number; invalid: number; failing: string[] } {
  const failing: string[] = [];
  let documents = 0;
  let invalid = 0;
  for (const [key, name] of Object.entries(BUILTIN_KEYS)) {
    const k = kindDocuments(key, name!, count, seed);
    documents += k.docs.length;
    invalid += k.invalid;
    const packed = unpackSchema(name!)!;
    const d = disagreement(packed.schema, packed.definitions, k.docs);
    if (d) failing.push(`${key}: ${JSON.stringify(d).slice(0, 400)}`);
  }
  return { kinds: Object.keys(BUILTIN_KEYS).length, documents, invalid, failing };
}
