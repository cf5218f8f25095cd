/**
 * Every function README's "Try it" blocks (```sh after `<!-- e2e -->`), run verbatim from the
 * repository root with bash -e, as a reader would paste them: they must succeed (or, after
 * `<!-- e2e: fails -->`, fail) and leave the working tree as it was.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, run } from '../e2e/helpers.js';
import { functionNames } from '../../scripts/docs.js';

interface Block {
  fn: string;
  code: string;
  fails: boolean;
}

function blocks(fn: string): Block[] {
  const text = readFileSync(join(repoRoot, 'functions', fn, 'README.md'), 'utf8');
  return [...text.matchAll(/<!-- e2e(: fails)? -->\n```sh\n([\s\S]*?)```/g)].map((m) => ({ fn, code: m[2]!, fails: !!m[1] }));
}

const status = (): string => execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: repoRoot, encoding: 'utf8' });

describe('function README blocks, run verbatim', () => {
  let before = '';
  beforeAll(() => {
    execFileSync('bash', [join(repoRoot, 'scripts/build-images.sh')], { stdio: 'inherit' });
    before = status();
  });

  for (const fn of functionNames()) {
    const bs = blocks(fn);
    it(`${fn}: has a Try it block`, () => {
      expect(bs.filter((b) => !b.fails).length).toBeGreaterThan(0);
    });
    bs.forEach((b, i) => {
      it(`${fn}: block ${i + 1} ${b.fails ? 'fails as documented' : 'runs'}`, () => {
        const r = run('bash', ['-e', '-o', 'pipefail', '-c', b.code], { cwd: repoRoot });
        if (b.fails) {
          expect(r.status).not.toBe(0);
          expect(r.stderr).toMatch(/error/);
        } else expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
        expect(status()).toBe(before); // nothing committed was changed
      });
    });
  }
});
