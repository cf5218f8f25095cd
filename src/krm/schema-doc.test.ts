import { describe, expect, it } from 'vitest';
import { inlineRefs, schemaMarkdown, schemaReference } from './schema-doc.js';

describe('schema reference (help text and README field tables)', () => {
  it("shows what a local $ref points at, not 'any', with the $ref's own description", () => {
    const schema = {
      type: 'object',
      definitions: { rule: { type: 'object', properties: { count: { type: 'integer', description: 'how many' } } } },
      properties: { controlPlane: { $ref: '#/definitions/rule', description: 'control-plane hosts' } },
    };
    expect(schemaReference(schema)).toBe('controlPlane (object): control-plane hosts\ncontrolPlane.count (integer): how many');
    expect(schemaMarkdown(schema)).toContain('| `spec.controlPlane.count` | integer | how many |');
  });

  it('stops at a cycle', () => {
    const schema = {
      definitions: { node: { type: 'object', properties: { next: { $ref: '#/definitions/node' } } } },
      $ref: '#/definitions/node',
    };
    expect(() => JSON.stringify(inlineRefs(schema))).not.toThrow();
    expect(schemaReference(schema)).toContain('next (object)');
  });
});
