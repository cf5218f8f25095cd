/**
 * validator.ts against ajv, the validator it replaced for the built-in kinds: on documents
 * generated from every built-in schema (mostly valid, with wrong types, unknown and odd keys,
 * missing required fields, values outside enums, patterns and limits, nulls, NaN), the two must
 * agree on validity and on every error (instancePath, keyword, params, message), in order:
 * schema.ts makes findings from them. Also checks the keywords ajv reads that the built-in
 * schemas do not use yet, on schemas written here.
 */
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/fleet-mix.js';
import { BUILTIN_KEYS } from './generated/builtin-keys.js';
import { unpackSchema } from './packed.js';
import { checkSchema, packedDefinitions, packedSchema, type SchemaError, schemaProblem, schemaValidator } from './validator.js';

type Schema = Record<string, unknown>;
const isSchema = (s: unknown): s is Schema => !!s && typeof s === 'object' && !Array.isArray(s);

/** The packed form (properties and definitions as pairs) back to a JSON schema, for ajv. */
function unpacked(s: unknown): unknown {
  if (typeof s === 'string') return s.startsWith('#') ? { $ref: s } : { type: s.includes(',') ? s.split(',') : s };
  if (s === true) return {};
  if (!isSchema(s)) return s;
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
    for (let n = 0; isSchema(s) && typeof s.$ref === 'string' && n < 50; n++) s = definitions[s.$ref.slice('#/definitions/'.length)];
    return s;
  };
  const stringFor = (): string => {
    const candidates = ['a', 'abc', 'a-b', 'http', '80', 'ABC', '', 'x'.repeat(70), 'name_1', '10.0.0.1', 'é'];
    return pick(candidates);
  };
  const value = (schema: unknown, depth: number): unknown => {
    const s = resolve(schema);
    if (!isSchema(s) || random() < 0.06 || depth > 9) return pick(ODD_VALUES);
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
        if (isSchema(s.properties))
          for (const [k, sub] of Object.entries(s.properties))
            if (random() < (required.has(k) ? 0.92 : 0.45)) set(o, k, value(sub, depth + 1));
        if (random() < 0.12) set(o, pick(ODD_KEYS), value(isSchema(s.additionalProperties) ? s.additionalProperties : {}, depth + 1));
        if (isSchema(s.additionalProperties))
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
function disagreement(schema: unknown, definitions: unknown, docs: unknown[]) {
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

describe('schema validator: the same errors as ajv', () => {
  const DOCS_PER_KIND = 150;
  it.each(Object.entries(BUILTIN_KEYS))('%s', (key, name) => {
    const packed = unpackSchema(name!)!;
    const definitions = (unpacked({ definitions: packed.definitions ?? [] }) as { definitions: Schema }).definitions;
    const random = seededRandom([...key].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7));
    const value = generator(definitions, random);
    const [group, version, kind] = key.split('/').length === 3 ? key.split('/') : ['', ...key.split('/')];
    const apiVersion = group ? `${group}/${version}` : version!;
    const docs = Array.from({ length: DOCS_PER_KIND }, () => {
      const d = value(unpacked(packed.schema), 0);
      // most documents are of the kind, as in an input
      if (isSchema(d) && random() < 0.9) Object.assign(d, { apiVersion, kind });
      return d;
    });
    const invalid = docs.filter((d) => !schemaValidator(packed.schema, packed.definitions)(d)).length;
    // the generator must make both kinds of documents, or the comparison proves little
    expect(invalid, `${key}: invalid documents generated`).toBeGreaterThan(DOCS_PER_KIND / 10);
    expect(disagreement(packed.schema, packed.definitions, docs), key).toBeUndefined();
  });

  it('agrees on the keywords ajv reads beyond the built-in schemas', () => {
    const schema = {
      type: 'object',
      required: ['a', 'b'],
      minProperties: 2,
      maxProperties: 4,
      properties: {
        a: { type: 'integer', minimum: 1, maximum: 10, exclusiveMinimum: 0, exclusiveMaximum: 11 },
        b: { type: ['string', 'null'], minLength: 2, maxLength: 4, pattern: '^[a-z]+$' },
        c: { type: 'array', minItems: 1, maxItems: 2, items: { enum: ['x', { y: 1 }, null] } },
        d: { not: { type: 'string' } },
        e: { oneOf: [{ type: 'integer' }, { type: 'number' }, { minimum: 0 }] },
        f: { anyOf: [{ type: 'boolean' }, { const: 'on' }], allOf: [{ not: { const: 7 } }] },
        g: { $ref: '#/definitions/g', type: 'object' },
        h: false,
        i: true,
        j: {},
        k: { type: 'array', uniqueItems: true, items: { type: 'string' } },
        l: { type: 'array', uniqueItems: true },
        m: { type: 'array', uniqueItems: true, items: { type: ['string', 'integer'] } },
        n: { type: 'number', multipleOf: 0.5 },
        o: { type: 'array', uniqueItems: true, items: { $ref: '#/definitions/s' } },
        p: { enum: [Number.NaN, { a: 1 }, 'x'] },
        q: { enum: [{ constructor: {} }], const: { constructor: {} } },
      },
      additionalProperties: { type: 'string' },
      definitions: {
        g: { type: 'object', properties: { self: { $ref: '#/definitions/g' } }, additionalProperties: false },
        s: { type: 'string' },
      },
    };
    const packed = packedSchema(schema) as Schema;
    const docs: unknown[] = [
      { a: 5, b: 'ab' },
      { a: 0, b: 'A1', c: [], d: 's', e: 1, f: 'off', g: { self: { self: { x: 1 } } }, h: 1, i: 2, j: 3, z: 4 },
      { a: 11, b: 'abcdef', c: ['x', { y: 1 }, null], e: 1.5, f: 'on', z: 'ok' },
      { a: 1.5, b: null, c: [{ y: 2 }], d: 3, e: -1, f: 7 },
      { a: Number.NaN, b: '😀😀', e: 'x' },
      { a: Number.POSITIVE_INFINITY },
      {
        a: 2,
        b: 'ab',
        k: ['x', 'y', 'x', 'y'],
        l: [{ a: 1 }, [1], { a: 1 }, 'x', 'x'],
        m: ['1', 1, 2, '__proto__', 'constructor', '1'],
        n: 1.5,
      },
      { a: 2, b: 'ab', k: ['x', 3, 3, 'x'], l: [1, 2], m: [true, true, 'x'], n: 0.3 },
      { a: 2, b: 'ab', o: ['a', 'b', 'a'], p: Number.NaN, q: JSON.parse('{"constructor":{}}') },
      { a: 2, b: 'ab', o: ['a', 1, 1], p: { a: 1 }, q: {} },
      [],
      'x',
      null,
    ];
    checkSchema(packed, packed.definitions);
    expect(disagreement(packed, packed.definitions, docs)).toBeUndefined();
    expect(disagreement(packed, packedDefinitions(schema.definitions), docs)).toBeUndefined();
    expect(disagreement(schema, schema.definitions, docs)).toBeUndefined();
  });

  it('refuses a CRD schema exactly where ajv refused to compile it (schemaProblem)', () => {
    const base = { type: 'object', properties: { spec: { type: 'object', properties: { x: { type: 'string' } } } } };
    const broken: [string, unknown][] = [
      ['type', 'strnig'],
      ['type', []],
      ['type', ['string', 'string']],
      ['type', ['string', 'null']],
      ['minimum', '5'],
      ['minimum', 5],
      ['multipleOf', 0],
      ['multipleOf', 2],
      ['minLength', -1],
      ['minLength', 1.5],
      ['maxItems', 3],
      ['pattern', '('],
      ['pattern', '[a-'],
      ['pattern', '^\\p{L}+$'],
      ['pattern', '^[a-z]$'],
      ['pattern', 5],
      ['required', 'x'],
      ['required', ['a', 'a']],
      ['required', [1]],
      ['required', ['a', 'b']],
      ['enum', 'x'],
      ['enum', []],
      ['uniqueItems', 'yes'],
      ['anyOf', []],
      ['anyOf', {}],
      ['anyOf', [{ type: 'string' }, 5]],
      ['oneOf', [{ type: 'integer' }, { type: 'string' }]],
      ['not', 5],
      ['not', { type: 'strin' }],
      ['items', { type: 'string', minLength: 'x' }],
      ['properties', 'x'],
      ['additionalProperties', 'x'],
      ['additionalProperties', { type: 'string' }],
      ['enum', ['a', 'b', 'a']],
      ['enum', [{ a: 1 }, { a: 1 }]],
      ['maxLength', Number.POSITIVE_INFINITY],
      ['maxLength', Number.NaN],
      ['anyOf', [{ pattern: '\\-' }, {}]],
      ['anyOf', [{ pattern: '\\-' }, { type: 'string' }]],
      ['oneOf', [{ pattern: '\\-' }, {}]],
    ];
    for (const [keyword, value] of broken) {
      const schema = structuredClone(base) as { properties: { spec: { properties: { x: Schema } } } };
      schema.properties.spec.properties.x[keyword] = value;
      let compiles = true;
      try {
        new Ajv({ allErrors: true, strict: false, validateFormats: false }).compile(schema);
      } catch {
        compiles = false;
      }
      expect(schemaProblem(schema), `${keyword}: ${JSON.stringify(value)}`)[compiles ? 'toBeUndefined' : 'toBeDefined']();
    }
    expect(schemaProblem({ type: 'object', properties: { a: { minimum: '5' } } })).toBe(
      '(root).properties.a: minimum must be a number, found "5"',
    );
  });

  it('refuses a keyword it does not check, and a $ref to no definition', () => {
    expect(() => checkSchema({ type: 'object', properties: { a: { contains: { type: 'string' } } } })).toThrow(
      /keyword contains is not checked/,
    );
    expect(() => checkSchema({ $ref: '#/definitions/none' })).toThrow(/\$ref #\/definitions\/none/);
    expect(() => checkSchema({ type: 'string', description: 'annotations are read and ignored' })).not.toThrow();
  });
});
