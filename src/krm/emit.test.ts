import fc from 'fast-check';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { plainYaml } from './emit.js';
import { PARSE_OPTIONS } from './lazy.js';

describe('plainYaml', () => {
  it('reads back as the same data under YAML 1.1 and 1.2 (property)', () => {
    const json = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, fc.string(), fc.constantFrom('yes', 'on', '0644', '1:20', 'a: b', '#x', ' x', 'x ', '', '- a', 'E0', 'e+5'), fc.integer(), fc.boolean(), fc.constant(null), tie('a'), tie('o')),
      a: fc.array(tie('v'), { maxLength: 3 }),
      o: fc.dictionary(fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('E0', 'yes', 'on', '1')), tie('v'), { maxKeys: 4 }),
    })).o;
    fc.assert(
      fc.property(json, (v) => {
        const text = plainYaml(v);
        expect(parse(text, PARSE_OPTIONS)).toEqual(v);
        expect(parse(text)).toEqual(v);
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 500) },
    );
  });

  it('writes results the way kpt shows them', () => {
    expect(plainYaml([{ message: 'BMC address is not a URL: "x"', severity: 'error', resourceRef: { kind: 'BareMetalHost', name: 'n1' }, tags: { rule: 'schema', line: '12' } }])).toBe(
      '- message: "BMC address is not a URL: \\"x\\""\n  severity: error\n  resourceRef:\n    kind: BareMetalHost\n    name: n1\n  tags:\n    rule: schema\n    line: "12"\n',
    );
  });
});
