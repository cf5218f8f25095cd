import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { describeGolden, itemsStream, resourceList } from '../../test/golden.js';
import { runFunction } from '../../src/krm/index.js';
import { splitStream } from '../../src/krm/index.js';
import { definition } from './function.js';
import { conditionToCel, dnsName } from './flux.js';

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
    ks.forEach((k, i) =>
      expect(k.spec.dependsOn?.map((d: { name: string }) => d.name)).toEqual(i === 0 ? undefined : [ks[i - 1]!.metadata.name]),
    );
    const report = out.find((d) => d.kind === 'ConfigMap' && d.metadata.name === 'deploy-gating-plan-report')!;
    expect(report.metadata.annotations['config.kubernetes.io/local-config']).toBe('true');
    expect(report.data).toMatchObject({ steps: '32', kustomizations: '8', gates: '24' });
    expect(report.data['plan.md'].match(/^\| \d+ \|/gm)).toHaveLength(32);
    // Flux runs on the target of the clusterctl move (the ephemeral node is powered off after it):
    // ephemeral-cluster phases reach their cluster through its kubeconfig Secret, target ones do not
    for (const k of ks)
      expect(k.spec.kubeConfig?.secretRef?.name).toBe(k.metadata.name.endsWith('-ephemeral') ? 'ephemeral-cluster-kubeconfig' : undefined);
    expect(report.data['plan.md']).toContain(
      '- management cluster (where Flux runs): target-cluster (target of the clusterctl move in step 21, self-managed at the end of the plan)',
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
  it('conditionToCel covers the KubernetesApply JSONPath subset', () => {
    expect(conditionToCel('{.status.phase}', 'Ready')).toBe("has(status.phase) && status.phase == 'Ready'");
    expect(conditionToCel("{.status.conditions[?(@.type=='Ready')].status}", 'True')).toBe(
      "has(status.conditions) && status.conditions.exists(e, e.type == 'Ready' && has(e.status) && e.status == 'True')",
    );
    expect(conditionToCel('{.status.x}', "it's")).toBe("has(status.x) && status.x == 'it\\'s'");
    // airshipctl compares printed text: a boolean or number value matches the typed field too
    expect(conditionToCel('{.status.controlPlaneReady}', 'true')).toBe(
      "has(status.controlPlaneReady) && string(status.controlPlaneReady) == 'true'",
    );
    expect(conditionToCel('{.status.readyReplicas}', '3')).toBe("has(status.readyReplicas) && string(status.readyReplicas) == '3'");
    expect(conditionToCel('{.status.ratio}', '-1.5e3')).toBe("has(status.ratio) && string(status.ratio) == '-1.5e3'");
    expect(conditionToCel('{.status.v}', '03')).toBe("has(status.v) && status.v == '03'");
    // CEL reserved words are never bare identifiers: index access and a map key test instead
    expect(conditionToCel('{.status.in.null}', 'x')).toBe("'in' in status && 'null' in status['in'] && status['in']['null'] == 'x'");
    expect(conditionToCel("{.status.conditions[?(@.true=='a')].false}", 'b')).toBe(
      "has(status.conditions) && status.conditions.exists(e, e['true'] == 'a' && 'false' in e && e['false'] == 'b')",
    );
    expect(conditionToCel('{.in.x}', 'a')).toBeUndefined(); // a reserved word cannot be the root variable
    expect(conditionToCel('{.status}', 'Ready')).toBeUndefined(); // the whole object never equals a value
    expect(conditionToCel('{.status.items[0].name}', 'a')).toBeUndefined();
    expect(conditionToCel('{range .items[*]}{.x}{end}', undefined)).toBeUndefined();
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
      // the plan folder's kustomization.yaml lists only the Flux Kustomizations: the gate folders are applied by their own
      for (const kf of out.filter((d) => d.apiVersion === 'kustomize.config.k8s.io/v1beta1' && !pathOf(d).includes('/gates/'))) {
        expect(kf.resources).toEqual(['kustomizations.yaml']);
        expect(kf.metadata.annotations['config.kubernetes.io/local-config']).toBe('true');
      }
      // every Kustomization that comes after a Job gate depends on the gate's Kustomization (directly or through another)
      const byName = new Map(flux.map((k) => [k.metadata.name, k]));
      for (const j of jobs) {
        const users = flux.filter((k) => (k.spec.dependsOn ?? []).some((d: { name: string }) => d.name === j.metadata.name));
        const isLast = flux[flux.length - 1]!.metadata.name === j.metadata.name;
        if (!isLast) expect(users.length, j.metadata.name).toBeGreaterThan(0);
        for (const u of users) expect(byName.has(u.metadata.name)).toBe(true);
      }
    });
  }

  it('deploy-gating-jobs: the clusterctl move becomes a Job between initinfra-target and controlplane-target; the other 23 gates stay', () => {
    const out = generated('deploy-gating-jobs');
    const jobs = out.filter((d) => d.kind === 'Job');
    expect(jobs.map((j) => j.metadata.name)).toEqual(['deploy-gating-clusterctl-move']);
    // the Job runs on the target (the management cluster) and still needs both kubeconfig files
    expect(jobs[0]!.spec.template.spec.containers[0].args).toEqual([
      'move',
      '--kubeconfig',
      '/etc/kubeconfig-from/value',
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
    ks.forEach((k, i) => expect(k.spec.dependsOn?.map((d: { name: string }) => d.name)).toEqual(i === 0 ? undefined : [names[i - 1]]));
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
    // the phase runs on target-cluster, the management cluster of a plan with a move: in-cluster, no KUBECONFIG
    expect(c.env).toBeUndefined();
    expect(job.spec.template.spec).toMatchObject({ hostNetwork: true, serviceAccountName: 'phase-gates' });
    expect(job.metadata.namespace).toBe('site-jobs');
    // initinfra-target waits for the Job gate and, through the BMC gate, for the move
    const it8 = out.find((d) => d.metadata.name === 'graph-initinfra-target')!;
    expect(it8.spec.dependsOn).toEqual([{ name: 'graph-clusterctl-move' }, { name: 'graph-kubectl-wait-node-target' }]);
    expect(it8.metadata.annotations['baremetal-krm.dev/after-gates']).toBe('power-off-ephemeral');
  });

  it('gate-jobs-removed: removing the plan removes its Jobs, gate folders and Kustomizations, and nothing else', () => {
    const before = splitStream(read('gate-jobs-removed', 'input.yaml'));
    const after = splitStream(read('gate-jobs-removed', 'expected.yaml'));
    expect(after).toEqual(before.filter((d) => !d.includes('generated-by: phase-plan-expand/deploy-gating')));
    expect(before.length - after.length).toBe(13);
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
