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
import { disagreement, kindDocuments, type Schema } from '../../test/schema-fuzz.js';
import { BUILTIN_KEYS } from './generated/builtin-keys.js';
import { unpackSchema } from './packed.js';
import { checkSchema, packedDefinitions, packedSchema, schemaProblem } from './validator.js';

describe('schema validator: the same errors as ajv', () => {
  const DOCS_PER_KIND = 150;
  it.each(Object.entries(BUILTIN_KEYS))('%s', (key, name) => {
    const { docs, invalid } = kindDocuments(key, name!, DOCS_PER_KIND);
    // the generator must make both kinds of documents, or the comparison proves little
    expect(invalid, `${key}: invalid documents generated`).toBeGreaterThan(DOCS_PER_KIND / 10);
    const packed = unpackSchema(name!)!;
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
