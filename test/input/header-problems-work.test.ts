/**
 * Many header problems on one item (a thousand labels written as numbers) cost work per
 * problem that does not grow with the item: the item is parsed for field lines once, not once
 * per problem (counted: the `yaml` documents made for field lines), whether the runtime, the
 * CLI or the analysis places them. Each was once a parse per problem (38 s for 2,000 labels).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

const parses = vi.hoisted(() => ({ n: 0 }));
vi.mock('../../src/krm/yaml-read.js', async (importOriginal) => {
  const m = await importOriginal<typeof import('../../src/krm/yaml-read.js')>();
  return {
    ...m,
    yamlDocument: (...a: Parameters<typeof m.yamlDocument>) => {
      parses.n++;
      return m.yamlDocument(...a);
    },
  };
});

const { runFunction } = await import('../../src/krm/index.js');
const { identity } = await import('../identity/function.js');
const { definition } = await import('../../functions/intent-validate/function.js');
const { runValidate } = await import('../../src/cli/validate.js');

function labelled(n: number): string {
  let s = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels:\n';
  for (let i = 0; i < n; i++) s += `    l${i}: ${i}\n`;
  return s;
}

describe('header problems on one item', () => {
  it('are placed with one parse of the item, in the runtime, the analysis and the CLI', async () => {
    for (const n of [10, 1000]) {
      for (const fn of [identity, definition]) {
        parses.n = 0;
        const r = await runFunction(fn as typeof identity, labelled(n));
        expect(r.results.filter((x) => x.message.includes('is a number')).length).toBe(n);
        expect(parses.n, `${fn.name}, ${n} labels`).toBeLessThanOrEqual(2);
        expect(parses.n, 'the count sees the parses (the mock is in place)').toBeGreaterThanOrEqual(1);
      }
      const dir = mkdtempSync(join(tmpdir(), 'header-work-'));
      writeFileSync(join(dir, 'a.yaml'), labelled(n));
      parses.n = 0;
      let out = '';
      await runValidate([dir], { out: (s) => void (out += s), err: (s) => void (out += s) });
      expect(out.match(/is a number/g)?.length).toBe(n);
      expect(parses.n, `validate, ${n} labels`).toBeLessThanOrEqual(2);
      expect(parses.n).toBeGreaterThanOrEqual(1);
    }
  });
});
