/**
 * `gates: job`: gate steps that can run unattended become Jobs, each in its own folder applied by
 * its own Flux Kustomization; the others stay gates and say why.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { itemsStream, resourceList } from '../../test/golden.js';
import { runFunction, splitStream } from '../../src/krm/index.js';
import { definition } from './function.js';

const testdata = join(import.meta.dirname, 'testdata');
const read = (c: string, f: string) => readFileSync(join(testdata, c, f), 'utf8');
const docsOf = (s: string) =>
  parseAllDocuments(s)
    .map((d) => d.toJS() as Record<string, any>)
    .filter(Boolean);

/** A Job as the API server would take it: the fields a kubectl apply needs, and nothing unknown in the pod spec we write. */
const jobSchema = {
  type: 'object',
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
  properties: {
    apiVersion: { const: 'batch/v1' },
    kind: { const: 'Job' },
    metadata: {
      type: 'object',
      required: ['name', 'namespace'],
      properties: {
        name: { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$' },
        namespace: { type: 'string', minLength: 1 },
      },
    },
    spec: {
      type: 'object',
      required: ['template'],
      additionalProperties: false,
      properties: {
        backoffLimit: { type: 'integer', minimum: 0 },
        template: {
          type: 'object',
          required: ['spec'],
          properties: {
            spec: {
              type: 'object',
              required: ['containers', 'restartPolicy'],
              additionalProperties: false,
              properties: {
                restartPolicy: { enum: ['Never', 'OnFailure'] },
                serviceAccountName: { type: 'string' },
                hostNetwork: { type: 'boolean' },
                containers: {
                  type: 'array',
                  minItems: 1,
                  items: {
                    type: 'object',
                    required: ['name', 'image'],
                    additionalProperties: false,
                    properties: {
                      name: { type: 'string' },
                      image: { type: 'string', minLength: 1 },
                      command: { type: 'array', items: { type: 'string' } },
                      args: { type: 'array', items: { type: 'string' } },
                      env: {
                        type: 'array',
                        items: {
                          type: 'object',
                          required: ['name', 'value'],
                          properties: { name: { type: 'string' }, value: { type: 'string' } },
                        },
                      },
                      volumeMounts: { type: 'array', items: { type: 'object', required: ['name', 'mountPath'] } },
                    },
                  },
                },
                volumes: { type: 'array', items: { type: 'object', required: ['name'] } },
              },
            },
          },
        },
      },
    },
  },
};

describe('gates: job', () => {
  const ajv = new Ajv({ strict: false, allErrors: true });
  const validateJob = ajv.compile(jobSchema);
  const generated = (c: string) =>
    docsOf(read(c, 'expected.yaml')).filter((d) => d.metadata?.annotations?.['baremetal-krm.dev/generated-by']);
  const pathOf = (d: Record<string, any>) => d.metadata.annotations['config.kubernetes.io/path'] as string;

  for (const c of ['deploy-gating-jobs', 'graph-gate-jobs']) {
    it(`${c}: Jobs validate, each in its own folder with its Kustomization, volumes resolved`, () => {
      const out = generated(c);
      const jobs = out.filter((d) => d.kind === 'Job');
      expect(jobs.length).toBeGreaterThan(0);
      const flux = out.filter((d) => d.apiVersion === 'kustomize.toolkit.fluxcd.io/v1');
      for (const j of jobs) {
        expect(validateJob(j), `${j.metadata.name}: ${JSON.stringify(validateJob.errors)}`).toBe(true);
        const dir = pathOf(j).replace(/\/job\.yaml$/, '');
        expect(dir).toMatch(/\/gates\/[a-z0-9-]+$/);
        // the folder's kustomization.yaml lists job.yaml; its Flux Kustomization points at the folder, waits and forces
        const kf = out.find((d) => d.apiVersion === 'kustomize.config.k8s.io/v1beta1' && pathOf(d) === `${dir}/kustomization.yaml`)!;
        expect(kf.resources).toEqual(['job.yaml']);
        const ks = flux.find((k) => k.metadata.name === j.metadata.name)!;
        expect(ks.spec.path.endsWith('/' + dir)).toBe(true);
        expect(ks.spec).toMatchObject({ wait: true, force: true, prune: true });
        expect(ks.spec.timeout).toBeDefined();
        expect(ks.spec.kubeConfig).toBeUndefined(); // Jobs run where Flux runs
        // every ConfigMap volume is generated beside the Job
        for (const v of j.spec.template.spec.volumes ?? [])
          if (v.configMap)
            expect(out.some((d) => d.kind === 'ConfigMap' && d.metadata.name === v.configMap.name && pathOf(d) === pathOf(j))).toBe(true);
      }
      // each Flux folder's kustomization.yaml lists only its Flux Kustomizations: the gate folders are applied by their own
      for (const kf of out.filter((d) => d.apiVersion === 'kustomize.config.k8s.io/v1beta1' && !pathOf(d).includes('/gates/'))) {
        expect(kf.resources).toEqual(['kustomizations.yaml']);
        expect(kf.metadata.annotations['config.kubernetes.io/local-config']).toBe('true');
        expect(flux.some((k) => pathOf(k) === pathOf(kf).replace(/kustomization\.yaml$/, 'kustomizations.yaml'))).toBe(true);
      }
      // every Kustomization of the same Flux that comes after a Job gate depends on the gate's Kustomization (directly or through another)
      for (const j of jobs) {
        const mine = flux.filter((k) => pathOf(k) === pathOf(flux.find((g) => g.metadata.name === j.metadata.name)!));
        const users = mine.filter((k) => (k.spec.dependsOn ?? []).some((d: { name: string }) => d.name === j.metadata.name));
        if (mine[mine.length - 1]!.metadata.name !== j.metadata.name) expect(users.length, j.metadata.name).toBeGreaterThan(0);
      }
    });
  }

  it('deploy-gating-jobs: the clusterctl move becomes the last Job of the ephemeral Flux, after initinfra-target; the other 23 gates stay', () => {
    const out = generated('deploy-gating-jobs');
    const jobs = out.filter((d) => d.kind === 'Job');
    expect(jobs.map((j) => j.metadata.name)).toEqual(['deploy-gating-clusterctl-move']);
    // the Job runs on the ephemeral cluster (the move's source, in-cluster) and reaches the target through its kubeconfig Secret
    expect(jobs[0]!.spec.template.spec.containers[0].args).toEqual([
      'move',
      '--to-kubeconfig',
      '/etc/kubeconfig-to/value',
      '--namespace',
      'target-infra',
    ]);
    const ks = out.filter(
      (d) =>
        d.apiVersion === 'kustomize.toolkit.fluxcd.io/v1' && d.metadata.annotations['baremetal-krm.dev/phase-plan'] === 'deploy-gating',
    );
    const names = ks.map((k) => k.metadata.name);
    expect(names.slice(4, 7)).toEqual([
      'deploy-gating-initinfra-target',
      'deploy-gating-clusterctl-move',
      'deploy-gating-controlplane-target',
    ]);
    // the ephemeral Flux's chain ends with the move Job; the target's Flux starts after the move
    const folder = (k: Record<string, any>) => k.metadata.annotations['config.kubernetes.io/path'];
    expect(ks.slice(0, 6).every((k) => folder(k) === 'phase-plans/deploy-gating/ephemeral-cluster/kustomizations.yaml')).toBe(true);
    expect(ks.slice(6).every((k) => folder(k) === 'phase-plans/deploy-gating/target-cluster/kustomizations.yaml')).toBe(true);
    ks.forEach((k, i) =>
      expect(k.spec.dependsOn?.map((d: { name: string }) => d.name)).toEqual(i === 0 || i === 6 ? undefined : [names[i - 1]]),
    );
    expect(ks[6]!.metadata.annotations['baremetal-krm.dev/after-other-flux']).toBe('deploy-gating-clusterctl-move');
    expect(ks[5]!.spec.path).toBe('./sites/test-site/phase-plans/deploy-gating/gates/deploy-gating-clusterctl-move');
    const report = out.find((d) => d.kind === 'ConfigMap' && d.metadata.name === 'deploy-gating-plan-report')!;
    expect(report.data).toMatchObject({ steps: '32', kustomizations: '8', gates: '24', jobs: '1' });
    expect(report.data['plan.md']).toContain('## Gates run as Jobs');
    expect(report.data['plan.md'].match(/\(not a Job: /g)).toHaveLength(23);
    // a plan with no Flux step gets no plan kustomization.yaml (it would list a file that does not exist)
    expect(out.some((d) => d.apiVersion === 'kustomize.config.k8s.io/v1beta1' && d.metadata.name === 'iso')).toBe(false);
  });

  it('graph-gate-jobs: the krm toolbox Job reads its ResourceList (functionConfig = the configRef ConfigMap) from its ConfigMap', () => {
    const out = generated('graph-gate-jobs');
    const cm = out.find((d) => d.kind === 'ConfigMap' && d.metadata.name === 'graph-kubectl-wait-node-target-krm')!;
    const rl = parse(cm.data['resource-list.yaml']);
    expect(rl).toMatchObject({
      apiVersion: 'config.kubernetes.io/v1',
      kind: 'ResourceList',
      items: [],
      functionConfig: { kind: 'ConfigMap', metadata: { name: 'kubectl-wait-node' } },
    });
    expect(rl.functionConfig.data.script).toContain('kubectl --request-timeout 10s wait');
    const job = out.find((d) => d.kind === 'Job' && d.metadata.name === 'graph-kubectl-wait-node-target')!;
    const c = job.spec.template.spec.containers[0];
    expect(c.command).toEqual(['/bin/sh', '-c', 'exec "$@" < /krm/resource-list.yaml', 'krm', '/usr/local/bin/toolbox']);
    // the phase runs on target-cluster after the move, where the target's Flux applies the Job: in-cluster, no KUBECONFIG
    expect(c.env).toBeUndefined();
    expect(job.spec.template.spec).toMatchObject({ hostNetwork: true, serviceAccountName: 'phase-gates' });
    expect(job.metadata.namespace).toBe('site-jobs');
    // initinfra-target waits for the Job gate; the move Job (through the BMC gate) is the ephemeral Flux's
    const it8 = out.find((d) => d.metadata.name === 'graph-initinfra-target')!;
    expect(it8.spec.dependsOn).toEqual([{ name: 'graph-kubectl-wait-node-target' }]);
    expect(it8.metadata.annotations['baremetal-krm.dev/after-gates']).toBe('power-off-ephemeral');
    expect(it8.metadata.annotations['baremetal-krm.dev/after-other-flux']).toBe('graph-clusterctl-move');
  });

  it('gate-jobs-removed: removing the plan removes its Jobs, gate folders and Kustomizations, and nothing else', () => {
    const before = splitStream(read('gate-jobs-removed', 'input.yaml'));
    const after = splitStream(read('gate-jobs-removed', 'expected.yaml'));
    expect(after).toEqual(before.filter((d) => !d.includes('generated-by: phase-plan-expand/deploy-gating')));
    expect(before.length - after.length).toBe(14); // 9 Kustomizations, the Job, its folder's kustomization.yaml, one per Flux folder (2) and the report
    expect(after.some((d) => d.includes('kind: Job'))).toBe(false);
  });

  it('gates: job without flux output warns and keeps every gate a gate', async () => {
    const cfg =
      'apiVersion: baremetal-krm.dev/v1alpha1\nkind: PhasePlanExpand\nmetadata:\n  name: x\nspec:\n  gates: job\n  outputs: [report]\n  jobs:\n    clusterctlImage: c:1\n';
    const r = await runFunction(definition, resourceList(splitStream(read('deploy-gating', 'input.yaml')), cfg));
    expect(r.exitCode).toBe(0);
    expect(r.results.find((x) => x.tags?.rule === 'config')?.message).toContain('spec.outputs has no "flux"');
    expect(itemsStream(r.output)).not.toContain('kind: Job');
  });

  it('without clusterctlImage the move stays a gate and says what to set', async () => {
    const cfg = 'apiVersion: baremetal-krm.dev/v1alpha1\nkind: PhasePlanExpand\nmetadata:\n  name: x\nspec:\n  gates: job\n';
    const r = await runFunction(definition, resourceList(splitStream(read('deploy-gating', 'input.yaml')), cfg));
    expect(r.exitCode).toBe(0);
    expect(itemsStream(r.output)).not.toContain('kind: Job');
    expect(r.results.find((x) => x.tags?.step === '21')?.message).toContain('not a Job: set spec.jobs.clusterctlImage');
  });
});
