/** The functionConfig as --help and the README show it: every field has a real type, and the role rules can name hosts. */
import { describe, expect, it } from 'vitest';
import { schemaReference } from '../../src/krm/index.js';
import { definition } from './function.js';

describe('the functionConfig reference', () => {
  const reference = schemaReference(definition.specSchema);

  it('gives every field a type (none is `any`)', () => {
    expect(reference.split('\n').filter((l) => / \(any\)/.test(l))).toEqual([]);
  });

  it('documents the shape of spec.roles.controlPlane and workers, including named hosts', () => {
    for (const role of ['controlPlane', 'workers'])
      for (const field of ['hosts (string[])', 'count (integer)', 'selector (map of string)', 'hardwareProfile (string)'])
        expect(reference).toContain(`roles.${role}.${field}`);
    expect(reference).toContain('site.phases[].role ("controlPlane" | "workers" | "none")');
  });
});
