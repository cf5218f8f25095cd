/**
 * Fleet fan-out and fan-in: `baremetal-krm fleet sites` on a generated fleet of 1,000 sites over
 * shared types (goal: whole process <= 2 s, site selection included), at 250/500/1,000 sites to
 * show the curve; `report --merge` of 1,000 per-site artifacts (goal: <= 10 s).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { changedSites, indexFleet } from '../src/fleet/sites.js';
import { commitChange, makeFleet } from '../test/fleet/fleet-fixture.js';
import { envWithout, fmt, timeIt } from './_util.js';

const cli = join(import.meta.dirname, '../dist/baremetal-krm.cjs');

/** 1,000 site artifacts: the test-site's artifact under 1,000 site names (what 1,000 CI jobs would upload). */
function writeArtifacts(dir: string, n: number): string[] {
  const site = join(import.meta.dirname, '../test/report/sites/test-site');
  const r = spawnSync(process.execPath, [cli, 'report', '--format', 'artifact', '--now', '2021-06-01T00:00:00Z', `site-0=${site}`], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (r.status !== 0) throw new Error(r.stderr);
  const text = r.stdout;
  mkdirSync(dir, { recursive: true });
  const files: string[] = [];
  for (let i = 0; i < n; i++) {
    const file = join(dir, `site-${i}.json`);
    // the site's name is in every row of the slice: "site":"site-0"
    writeFileSync(file, text.replaceAll('"site":"site-0"', `"site":"site-${i}"`).replace('"name":"site-0"', `"name":"site-${i}"`));
    files.push(file);
  }
  return files;
}

async function mergeBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-merge-'));
  try {
    const files = writeArtifacts(dir, 1000);
    const bytes = files.reduce((n, f) => n + readFileSync(f).length, 0);
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      const r = spawnSync(process.execPath, [cli, 'report', '--merge', '--format', 'json', '--output', join(dir, 'fleet.json'), ...files], {
        encoding: 'utf8',
        env: envWithout('NODE_EXTRA_CA_CERTS'),
        maxBuffer: 1 << 28,
      });
      times.push(performance.now() - t);
      if (r.status !== 0) throw new Error(r.stderr);
    }
    times.sort((a, b) => a - b);
    console.log(
      `report --merge of 1,000 site artifacts (${fmt(bytes / 1048576, 1)} MiB): min ${fmt(times[0]!)} ms, median ${fmt(times[1]!)} ms (goal <= 10000 ms)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  await mergeBench();
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
