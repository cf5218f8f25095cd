/**
 * Output larger than the writer's 1 MiB pieces comes out whole through the bundle's real stdout:
 * an edited item of more than 1 MiB is cut into pieces at every offset that matters, never inside
 * a surrogate pair (an emoji straddling a piece boundary at each of its three offsets), so no
 * character is lost or replaced.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, resourceList, runBundle } from '../golden.js';

const CONFIG = 'apiVersion: baremetal-krm.dev/v1alpha1\nkind: Identity\nmetadata:\n  name: x\nspec:\n  annotate:\n    a.b/c: d\n';

describe('large output', () => {
  it('is written whole, however its pieces fall on surrogate pairs', () => {
    const value = '😀é'.repeat(400_000); // 1.2 M UTF-16 units: the item is one chunk longer than a piece
    for (const prefix of ['', 'x', 'xy']) {
      const doc = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  v: "${prefix}${value}"\n`;
      const r = runBundle('test-identity', resourceList([doc], CONFIG));
      expect(r.status).toBe(0);
      expect(r.stdout).toContain('a.b/c: d');
      expect(r.stdout.includes('\uFFFD')).toBe(false); // a cut surrogate pair is written as U+FFFD
      expect(r.stdout.includes(`"${prefix}${value}"`)).toBe(true); // not toContain: a 3 MiB diff helps nobody
    }
  });

  it('a full disk on stdout is one line naming it, exit 1, never a stack trace (every bundle and the CLI)', () => {
    const input = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n';
    const dir = join(repoRoot, 'dist');
    for (const argv of [['intent-validate.cjs'], ['test-identity.cjs'], ['baremetal-krm.cjs', 'validate', '--format', 'sarif', '-']]) {
      const full = openSync('/dev/full', 'w');
      try {
        const r = spawnSync(process.execPath, [join(dir, argv[0]!), ...argv.slice(1)], {
          input,
          stdio: ['pipe', full, 'pipe'],
          encoding: 'utf8',
        });
        expect(r.status, argv[0]).toBe(1);
        expect(r.stderr).toMatch(/error: cannot write stdout \(ENOSPC: the disk or quota is full\)\n$/);
        expect(r.stderr).not.toMatch(/\n\s+at /);
      } finally {
        closeSync(full);
      }
    }
  });
});
