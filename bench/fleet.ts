/**
 * Fleet fan-out: `baremetal-krm fleet sites` on a generated fleet of 1,000 sites over shared
 * types (goal: whole process <= 2 s, site selection included), at 250/500/1,000 sites to show
 * the curve.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { changedSites, indexFleet } from '../src/fleet/sites.js';
import { commitChange, makeFleet } from '../test/fleet/fleet-fixture.js';
import { envWithout, fmt, timeIt } from './_util.js';

const cli = join(import.meta.dirname, '../dist/baremetal-krm.cjs');

export async function run(): Promise<void> {
  for (const n of [250, 500, 1000]) {
    const root = mkdtempSync(join(tmpdir(), 'bench-fleet-'));
    try {
      makeFleet(root, n);
      const range = commitChange(root, 'types/large/extra.yaml', 'kind: ConfigMap\n');
      const index = timeIt(() => indexFleet(root).sites.length);
      const select = timeIt(() => changedSites(indexFleet(root), ['types/large/extra.yaml']).length);
      const whole: number[] = [];
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        const r = spawnSync(process.execPath, [cli, 'fleet', 'sites', root, '--changed', range, '--format', 'github'], {
          encoding: 'utf8',
          env: envWithout('NODE_EXTRA_CA_CERTS'),
        });
        whole.push(performance.now() - t);
        if (r.status !== 0) throw new Error(r.stderr);
      }
      whole.sort((a, b) => a - b);
      console.log(
        `fleet sites, ${n} sites: index ${fmt(index)} ms, index + select ${fmt(select)} ms (${fmt((select / n) * 1000, 1)} µs/site); whole process --changed: min ${fmt(whole[0]!)} ms, median ${fmt(whole[2]!)} ms (goal at 1,000: <= 2000 ms)`,
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
}
