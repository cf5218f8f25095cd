/**
 * Differential fuzzing of the runtime's reading and writing (see check.ts): corpus documents in
 * generated variants and layouts, through every function configured to change nothing. Bounded
 * here (FUZZ_RUNS, default 40 cases, seeded: the same cases every run); `npm run bench` runs
 * it longer. A case that ever failed is kept in regressions/ under a name saying what broke.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Case, caseArb, checkCase } from './check.js';
import { corpus } from './corpus.js';

describe('any input: every function configured to change nothing writes it back byte for byte', () => {
  it('generated variants of the corpus (fixtures and examples), as a stream, a ResourceList and JSON', async () => {
    const docs = corpus();
    expect(docs.length).toBeGreaterThan(300);
    await fc.assert(
      fc.asyncProperty(caseArb(docs), async (c) => {
        expect(await checkCase(c)).toEqual([]);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 40), seed: Number(process.env.FUZZ_SEED ?? 12), endOnFailure: true },
    );
  }, 120_000);

  // every case the fuzzer ever failed on, named by what broke: {docs, variants, layout} as JSON
  const regressions = join(import.meta.dirname, 'regressions');
  for (const file of readdirSync(regressions)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    it(`regression: ${file.replace(/\.json$/, '')}`, async () => {
      const c = JSON.parse(readFileSync(join(regressions, file), 'utf8')) as Case;
      expect(await checkCase(c)).toEqual([]);
    });
  }
});
