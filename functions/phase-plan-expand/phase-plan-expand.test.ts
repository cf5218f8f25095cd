import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { describeGolden, itemsStream, resourceList } from '../../test/golden.js';
import { runFunction } from '../../src/krm/index.js';
import { splitStream } from '../../src/krm/index.js';
import { definition } from './function.js';
import { dnsName } from './flux.js';

const testdata = join(import.meta.dirname, 'testdata');
describeGolden(definition, testdata);

const read = (c: string, f: string) => readFileSync(join(testdata, c, f), 'utf8');
const docsOf = (s: string) =>
  parseAllDocuments(s)
    .map((d) => d.toJS() as Record<string, any>)
    .filter(Boolean);

describe('generated Kustomizations', () => {
  const crd = parse(readFileSync(join(import.meta.dirname, 'testdata-schemas/kustomize.toolkit.fluxcd.io_kustomizations.yaml'), 'utf8'));
  const v1 = crd.spec.versions.find((v: { name: string }) => v.name === 'v1');
  const ajv = new Ajv({ strict: false, allErrors: true });
  const validate = ajv.compile(v1.schema.openAPIV3Schema);
  for (const c of [
    'deploy-gating',
    'graph-parallel-groups',
    'phase-groups',
    'airshipctl-valid-validation-site',
    'deploy-gating-jobs',
    'graph-gate-jobs',
    'entrypoints-rendered',
    'flux-2-4',
    'flux-gate-acks',
  ]) {
    it(`${c}: every Kustomization validates against the Flux v1 CRD schema`, () => {
      const ks = docsOf(read(c, 'expected.yaml')).filter(
        (d) => d.kind === 'Kustomization' && d.apiVersion === 'kustomize.toolkit.fluxcd.io/v1',
      );
      expect(ks.length).toBeGreaterThan(0);
      for (const k of ks) {
        const ok = validate(k);
        expect(ok, `${k.metadata.name}: ${JSON.stringify(validate.errors)}`).toBe(true);
        // DNS-1123 label (Flux puts the name in a label value)
        expect(k.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
        // every dependency exists among the generated ones
        for (const d of k.spec.dependsOn ?? []) expect(ks.map((x) => x.metadata.name)).toContain(d.name);
      }
    });
  }

  it('deploy-gating: 32 steps, 8 Kustomizations chained in plan order, 24 gates', () => {
    const out = docsOf(read('deploy-gating', 'expected.yaml'));
    const ks = out.filter((d) => d.kind === 'Kustomization' && d.metadata.annotations['baremetal-krm.dev/phase-plan'] === 'deploy-gating');
    expect(ks.map((k) => k.metadata.annotations['baremetal-krm.dev/phase'])).toEqual([
      'initinfra-networking-ephemeral',
      'initinfra-ephemeral',
      'controlplane-ephemeral',
      'initinfra-networking-target',
      'initinfra-target',
      'controlplane-target',
      'workers-target',
      'workload-target',
    ]);
    // two Flux chains: the ClusterMap root's until the clusterctl move, the move target's after it
    const pathOf = (k: Record<string, any>) => k.metadata.annotations['config.kubernetes.io/path'];
    const ephemeral = ks.filter((k) => pathOf(k) === 'phase-plans/deploy-gating/ephemeral-cluster/kustomizations.yaml');
    const target = ks.filter((k) => pathOf(k) === 'phase-plans/deploy-gating/target-cluster/kustomizations.yaml');
    expect([ephemeral.length, target.length]).toEqual([5, 3]);
    for (const chain of [ephemeral, target])
      chain.forEach((k, i) =>
        expect(k.spec.dependsOn?.map((d: { name: string }) => d.name)).toEqual(i === 0 ? undefined : [chain[i - 1]!.metadata.name]),
      );
    expect(target[0]!.metadata.annotations['baremetal-krm.dev/after-other-flux']).toBe('deploy-gating-initinfra-target');
    const report = out.find((d) => d.kind === 'ConfigMap' && d.metadata.name === 'deploy-gating-plan-report')!;
    expect(report.metadata.annotations['config.kubernetes.io/local-config']).toBe('true');
    expect(report.data).toMatchObject({ steps: '32', kustomizations: '8', gates: '24' });
    expect(report.data['plan.md'].match(/^\| \d+ \|/gm)).toHaveLength(32);
    // the ephemeral Flux reaches the target cluster (before the move) through its kubeconfig Secret; nothing else needs one
    for (const k of ks)
      expect(k.spec.kubeConfig?.secretRef?.name, k.metadata.name).toBe(
        ephemeral.includes(k) && k.metadata.name.endsWith('-target') ? 'target-cluster-kubeconfig' : undefined,
      );
    expect(report.data['plan.md']).toContain(
      '- Flux runs on: ephemeral-cluster (the ClusterMap root, from the start of the plan) for steps 4-5, 11, 15-16, Kustomizations in `phase-plans/deploy-gating/ephemeral-cluster`; then target-cluster (target of the clusterctl move in step 21: install Flux there once the move is done) for steps 27, 29, 31',
    );
  });
});

describe('helpers', () => {
  it('dnsName makes DNS-1123 labels, stable and hashed when long', () => {
    expect(dnsName('phasePlan-capi_init')).toBe('phaseplan-capi-init');
    expect(dnsName('__')).toBe('x');
    const long = dnsName('p-' + 'a'.repeat(100));
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).toBe(dnsName('p-' + 'a'.repeat(100)));
    expect(long).not.toBe(dnsName('p-' + 'a'.repeat(101)));
  });
});

describe('reconcile behaviour', () => {
  const cfg = (spec: string) => `apiVersion: baremetal-krm.dev/v1alpha1\nkind: PhasePlanExpand\nmetadata:\n  name: x\nspec:\n${spec}`;
  it('an invalid plan keeps what it generated before, untouched', async () => {
    const good = docsOf(read('deploy-gating', 'expected.yaml'));
    const input = splitStream(read('deploy-gating', 'expected.yaml')).map((d) =>
      d.includes('name: deploy-gating\n') && d.includes('kind: PhasePlan')
        ? d.replace('- name: workload-target', '- name: workload-targte')
        : d,
    );
    const r = await runFunction(definition, resourceList(input));
    expect(r.exitCode).toBe(1);
    expect(r.results.filter((x) => x.severity === 'error').map((x) => x.tags?.rule)).toEqual(['plan/unknown-phase']);
    const after = docsOf(itemsStream(r.output));
    expect(after.filter((d) => d.kind === 'Kustomization')).toEqual(good.filter((d) => d.kind === 'Kustomization'));
  });
  it('changing the interval updates the generated items in place', async () => {
    const r = await runFunction(definition, resourceList(splitStream(read('deploy-gating', 'expected.yaml')), cfg('  interval: 1h\n')));
    expect(r.exitCode).toBe(0);
    const ks = docsOf(itemsStream(r.output)).filter((d) => d.kind === 'Kustomization');
    expect(ks).toHaveLength(8);
    expect(new Set(ks.map((k) => k.spec.interval))).toEqual(new Set(['1h']));
  });
  it('rejects an unknown outputs value with a config error', async () => {
    const r = await runFunction(definition, resourceList([], cfg('  outputs: [helm]\n')));
    expect(r.exitCode).toBe(1);
    expect(r.results[0]!.message).toContain('spec.outputs[0]');
  });
});
