/**
 * `baremetal-krm validate` over airshipctl's manifests as committed (../shared/fixtures/airship:
 * airshipctl, sip, hardware-classification-controller, unmodified upstream files): every finding
 * it prints is listed, with a verdict, in the README beside this test, and no error is false.
 * A new finding (or one that disappears) fails the test until the README says why.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runValidate } from '../../src/cli/validate.js';
import { repoRoot } from '../golden.js';

const fixtures = join(repoRoot, '../shared/fixtures/airship');
const readme = join(import.meta.dirname, 'README.md');

/** `file | rule | severity` -> count, from the printed lines. */
function printed(err: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of err.split('\n')) {
    const m = /^(.+?):\d+: (error|warning|info): .* \[([a-z-]+)\]$/.exec(line);
    if (!m) continue;
    const key = `${relative(fixtures, m[1]!)} | ${m[3]} | ${m[2]}`;
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

/** The README's findings table: `| file | rule | severity | count | verdict |`. */
function listed(): { counts: Map<string, number>; verdicts: Map<string, string> } {
  const counts = new Map<string, number>();
  const verdicts = new Map<string, string>();
  for (const line of readFileSync(readme, 'utf8').split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 7 || !/^`.+`$/.test(cells[1]!)) continue;
    const key = `${cells[1]!.slice(1, -1)} | ${cells[2]!.replace(/`/g, '')} | ${cells[3]}`;
    counts.set(key, Number(cells[4]));
    verdicts.set(key, cells[5]!);
  }
  return { counts, verdicts };
}

describe.skipIf(!existsSync(fixtures))("validate on airshipctl's manifests as committed", () => {
  it('prints exactly the findings the README lists, and every error there is a true problem', async () => {
    let err = '';
    const code = await runValidate([fixtures], { out: () => undefined, err: (s) => (err += s) });
    const { counts, verdicts } = listed();
    expect(Object.fromEntries([...printed(err)].sort())).toEqual(Object.fromEntries([...counts].sort()));
    for (const [key, verdict] of verdicts) {
      expect(verdict, key).toMatch(/^\*\*(true|accepted)\*\*/);
      if (key.endsWith('| error')) expect(verdict, key).toMatch(/^\*\*true\*\*/);
    }
    expect(code).toBe(1);
  });
});
