/**
 * In a new site without spec.roles, the role labels follow the phases: any placement of test-site's
 * hosts into a control plane and a workers folder gives exactly those labels, in every copy of a
 * host; a host placed in both is an error, and nothing is written.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { type Doc, pathOf, run, testSiteCatalogues } from './test-support.js';

const HOSTS = ['node01', 'node02', 'node03', 'node04', 'node05', 'node06'];
const ROLE = 'airshipit.org/k8s-role';

function labelsOf(items: Doc[]): Map<string, Set<string | undefined>> {
  const out = new Map<string, Set<string | undefined>>();
  for (const d of items) {
    if (d.kind !== 'BareMetalHost') continue;
    const md = d.metadata as { name: string; labels?: Record<string, string> };
    out.set(md.name, (out.get(md.name) ?? new Set()).add(md.labels?.[ROLE]));
  }
  return out;
}

describe('role labels follow the phases of a new site', () => {
  // each host: in no phase, the control plane folder, the workers folder, or (conflict) both
  const placement = fc.array(fc.constantFrom('none', 'controlPlane', 'workers', 'both'), { minLength: 6, maxLength: 6 });

  it('for any placement of the six test-site hosts', async () => {
    await fc.assert(
      fc.asyncProperty(placement, fc.boolean(), async (where, ephemeral) => {
        const cp = HOSTS.filter((_, i) => where[i] === 'controlPlane' || where[i] === 'both');
        const workers = HOSTS.filter((_, i) => where[i] === 'workers' || where[i] === 'both');
        const phases = [
          // the first control plane host also builds the ephemeral cluster (a second copy of it)
          ...(ephemeral && cp.length ? [{ path: 'ephemeral/controlplane', hosts: cp.slice(0, 1) }] : []),
          ...(cp.length ? [{ path: 'target/controlplane', hosts: cp }] : []),
          ...(workers.length ? [{ path: 'target/workers', hosts: workers }] : []),
          { path: 'target/workload' },
        ];
        const r = await run(testSiteCatalogues, stringify({ site: { name: 's', type: '../../type/gating', phases } }));
        if (where.includes('both')) {
          expect(r.exitCode).toBe(1);
          expect(r.results.filter((x) => x.severity === 'error').map((x) => x.tags?.rule)).toEqual(
            where.filter((w) => w === 'both').map(() => 'site/role-conflict'),
          );
          expect(r.docs.some((d) => d.kind === 'BareMetalHost')).toBe(false);
          return;
        }
        expect(r.exitCode).toBe(0);
        const labels = labelsOf(r.docs);
        for (const [i, h] of HOSTS.entries()) {
          const want = where[i] === 'controlPlane' ? 'controlplane-host' : where[i] === 'workers' ? 'worker' : undefined;
          expect([...labels.get(h)!], h).toEqual([want]);
        }
        // a host is in host-inventory/ and in each phase that lists it
        for (const d of r.docs.filter((x) => x.kind === 'BareMetalHost')) expect(pathOf(d)).toMatch(/^(host-inventory|ephemeral|target)\//);
      }),
      { numRuns: 40 },
    );
  });

  it('a phase that selects hosts: controlPlane with none placed takes the first host by name, and says so', async () => {
    const phases = [
      { path: 'target/controlplane', hosts: 'controlPlane' },
      { path: 'target/workers', hosts: ['node01'] },
    ];
    const r = await run(testSiteCatalogues, stringify({ site: { name: 's', type: '../../type/gating', phases } }));
    expect(r.exitCode).toBe(0);
    const labels = labelsOf(r.docs);
    // node01 is placed as a worker: the first host by name among the others is the control plane
    expect([...labels.get('node01')!]).toEqual(['worker']);
    expect([...labels.get('node02')!]).toEqual(['controlplane-host']);
    expect([...labels.get('node03')!]).toEqual([undefined]);
    expect(r.results.find((x) => x.tags?.rule === 'site/decide-roles')?.message).toContain(
      'control plane: node02 (the first host by name, for hosts: controlPlane); workers: node01 (listed in target/workers)',
    );
  });

  it("a phase's role overrides its folder name, and must agree with its selector", async () => {
    const phases = [{ path: 'target/masters', hosts: ['node04'], role: 'controlPlane' }];
    const r = await run(testSiteCatalogues, stringify({ site: { name: 's', type: '../../type/gating', phases } }));
    expect([...labelsOf(r.docs).get('node04')!]).toEqual(['controlplane-host']);
    const bad = await run(
      testSiteCatalogues,
      stringify({ site: { name: 's', type: '../../type/gating', phases: [{ path: 'target/x', hosts: 'workers', role: 'controlPlane' }] } }),
    );
    expect(bad.results.filter((x) => x.severity === 'error').map((x) => x.tags?.rule)).toEqual(['site/bad-phase']);
  });
});
