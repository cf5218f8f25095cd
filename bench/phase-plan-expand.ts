/**
 * phase-plan-expand benchmark: a 2,000-phase plan (synthetic site, gates every 10 steps,
 * clusterctl move half-way) through the built bundle: wall time and peak RSS of the process.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { syntheticSite } from '../test/phase-plan/synthetic-site.js';

const root = join(import.meta.dirname, '..');

export async function run(): Promise<void> {
  const bundle = join(root, 'dist/phase-plan-expand.cjs');
  const jobCfg =
    'functionConfig:\n  apiVersion: baremetal-krm.dev/v1alpha1\n  kind: PhasePlanExpand\n  metadata:\n    name: expand\n  spec:\n    gates: job\n' +
    '    jobs:\n      clusterctlImage: registry.k8s.io/cluster-api/clusterctl:v1.7.4\n      krmEntrypoints:\n        localhost/toolbox: [/usr/local/bin/toolbox]\n';
  for (const [n, jobs] of [
    [200, false],
    [2000, false],
    [2000, true],
  ] as const) {
    const { bundle: plain } = syntheticSite(n);
    // gates: job needs a functionConfig: the stream as a ResourceList
    const input = jobs
      ? 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n' +
        plain
          .split(/^---\n/m)
          .map((d) =>
            d
              .replace(/\n$/, '')
              .split('\n')
              .map((l, i) => (i === 0 ? '- ' : '  ') + l)
              .join('\n'),
          )
          .join('\n') +
        '\n' +
        jobCfg
      : plain;
    const times: number[] = [];
    let rss = 0;
    let out = '';
    for (let i = 0; i < 3; i++) {
      const t0 = process.hrtime.bigint();
      const r = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, bundle], { input, encoding: 'utf8', maxBuffer: 1 << 30 });
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (r.status !== 0) throw new Error(`phase-plan-expand failed: ${r.stderr.slice(0, 500)}`);
      rss = Math.max(rss, Number(r.stderr.trim().split('\n').pop()));
      out = r.stdout;
    }
    const ks =
      (out.match(/^ *kind: Kustomization$/gm) ?? []).length - (out.match(/^[ -]*apiVersion: kustomize\.config\.k8s\.io/gm) ?? []).length;
    const jobCount = (out.match(/^ *kind: Job$/gm) ?? []).length;
    times.sort((a, b) => a - b);
    console.log(
      `phase-plan-expand: ${n}-phase plan${jobs ? `, gates: job (${jobCount} Jobs)` : ''} (${(input.length / 1024).toFixed(0)} KiB in, ${ks} Kustomizations + report, ${(out.length / 1024).toFixed(0)} KiB out): ` +
        `median ${times[1]!.toFixed(0)} ms wall (process incl. node start), peak RSS ${(rss / 1024).toFixed(0)} MiB`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
