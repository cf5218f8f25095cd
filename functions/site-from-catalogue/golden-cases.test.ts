/**
 * The golden cases (testdata/<case>/: input, functionConfig, expected output and results), run in
 * process, through the bundle and again on their own output; and every BareMetalHost they write
 * validates against the metal3 CRD.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { describeGolden } from '../../test/golden.js';
import { definition } from './function.js';
import { type Doc, docs, fixtures, testdata } from './test-support.js';

describeGolden(definition, testdata);

describe('output BareMetalHosts validate against the metal3 CRD', () => {
  const crd = parse(readFileSync(join(fixtures, 'schemas/metal3/metal3.io_baremetalhosts.yaml'), 'utf8'));
  const version = crd.spec.versions.find((v: { name: string }) => v.name === 'v1alpha1');
  const validate = new Ajv({ strict: false, allErrors: true }).compile(version.schema.openAPIV3Schema);
  const cases = [
    'test-site-all-hosts',
    'test-site-several-lists',
    'roles-and-emitted-credentials',
    'inventory-hosts',
    'allocate-addresses',
    'allocate-ipv6',
    'new-site',
    'new-site-type-plan',
  ];
  for (const c of cases) {
    it(c, () => {
      const bmhs = docs(readFileSync(join(testdata, c, 'expected.yaml'), 'utf8')).filter((d) => d.kind === 'BareMetalHost');
      expect(bmhs.length).toBeGreaterThan(0);
      for (const b of bmhs) {
        const ok = validate(b);
        expect(validate.errors ?? [], JSON.stringify((b.metadata as Doc).name)).toEqual([]);
        expect(ok).toBe(true);
      }
    });
  }
  it('a BMH with a bad MAC would be rejected by the schema (the check can fail)', () => {
    const b = docs(readFileSync(join(testdata, 'test-site-all-hosts', 'expected.yaml'), 'utf8')).find((d) => d.kind === 'BareMetalHost')!;
    expect(validate({ ...b, spec: { ...(b.spec as Doc), bootMode: 'bios' } })).toBe(false);
  });
});
