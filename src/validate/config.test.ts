import { describe, expect, it } from 'vitest';
import { RULES } from './rules.js';
import specSchema from './spec.schema.json' with { type: 'json' };

describe('IntentValidate spec.rules', () => {
  // a rule missing here cannot be configured: `rules: {network: {severity: info}}` was refused as an unknown field
  it('accepts every rule of RULES, and only those', () => {
    expect(Object.keys(specSchema.properties.rules.properties).sort()).toEqual(RULES.map((r) => r.id).sort());
  });
});
