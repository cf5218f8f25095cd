/**
 * Output larger than the writer's 1 MiB pieces comes out whole through the bundle's real stdout:
 * an edited item of more than 1 MiB is cut into pieces at every offset that matters, never inside
 * a surrogate pair (an emoji straddling a piece boundary at each of its three offsets), so no
 * character is lost or replaced.
 */
import { describe, expect, it } from 'vitest';
import { resourceList, runBundle } from '../golden.js';

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
});
