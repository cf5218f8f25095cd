import { describe, expect, it } from 'vitest';
import { functionNames, renderReadme } from '../scripts/docs.js';

describe('function READMEs', () => {
  for (const fn of functionNames()) {
    it(`${fn}: the field table matches spec.schema.json (run npm run docs)`, () => {
      const r = renderReadme(fn);
      expect(r, `functions/${fn}/README.md needs the generated-fields markers`).toBeDefined();
      expect(r!.current).toBe(r!.wanted);
    });
  }
});
