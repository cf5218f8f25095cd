/**
 * Discovery in each site's own cluster: the CronJob, one-off Job, NetworkPolicy, ServiceAccount
 * and ConfigMap are schema-valid for intent-validate's core schemas, carry no credential, and
 * limit the Pod as the design says.
 */
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { definition as intentValidate } from '../../functions/intent-validate/function.js';
import { discoveryObjects, type DiscoverySettings } from '../../src/fleet/discovery.js';
import { harness } from '../golden.js';

const settings: DiscoverySettings = {
  site: 'east-1',
  sitePath: 'sites/east-1',
  repository: 'git@git.example.com:fleet/sites.git',
  image: 'ghcr.io/baremetal-krm/bmh-from-redfish:v0.1.0',
  discover: { bmcs: [{ address: 'https://10.20.0.11', name: 'node01' }], ranges: [{ cidr: '10.20.1.0/24' }] },
  egress: { bmcCidrs: ['10.20.0.11/32', '10.20.1.0/24'], gitCidrs: ['192.0.2.10/32'] },
};

const objects = discoveryObjects(settings);
const byKind = (kind: string) => objects.find((o) => o.data.kind === kind)!.data as Record<string, any>;

describe('discovery objects', () => {
  it('are valid for the core schemas (intent-validate, default settings): no finding at all', async () => {
    const files = Object.fromEntries(objects.map((o) => [o.path, stringify(o.data)]));
    const r = await harness(intentValidate).run(files);
    expect(r.results.map((x) => `${x.severity} ${x.tags?.rule}: ${x.message}`)).toEqual([]);
    // and the check is real: a misspelt field of the CronJob's Pod is found
    const cron = objects.find((o) => o.data.kind === 'CronJob')!;
    const bad = structuredClone(cron.data) as Record<string, any>;
    bad.spec.jobTemplate.spec.template.spec.restartPolicyy = 'Never';
    const r2 = await harness(intentValidate).run({ 'cronjob.yaml': stringify(bad) });
    expect(r2.results.map((x) => x.tags?.rule)).toEqual(['schema-unknown-field']);
  });

  it('take credentials from Secrets only: no env value looks like one, nothing under data is secret', () => {
    const text = JSON.stringify(objects);
    expect(text).not.toMatch(/password|BMC_PASSWORD|BMC_USERNAME/i);
    const pod = byKind('CronJob').spec.jobTemplate.spec.template.spec;
    expect(pod.volumes.filter((v: any) => v.secret).map((v: any) => v.secret.secretName)).toEqual(['bmc-credentials', 'git-ssh']);
    expect(pod.automountServiceAccountToken).toBe(false);
    for (const c of [...pod.initContainers, ...pod.containers]) {
      expect(c.securityContext).toMatchObject({ runAsNonRoot: true, allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
      for (const e of c.env ?? []) expect(e.valueFrom).toBeUndefined();
    }
  });

  it('run clone, discover in place, commit to the discovery branch, in that order', () => {
    const pod = byKind('CronJob').spec.jobTemplate.spec.template.spec;
    expect(pod.initContainers.map((c: any) => c.name)).toEqual(['clone', 'discover']);
    expect(pod.initContainers[1].args).toEqual([
      '--fn-config',
      '/etc/discovery/discover.yaml',
      '--source',
      '/work/repo/sites/east-1',
      '--sink',
      '/work/repo/sites/east-1',
    ]);
    expect(pod.containers[0].env).toContainEqual({ name: 'BRANCH', value: 'discovery/east-1' });
    const cm = byKind('ConfigMap');
    expect(JSON.parse(cm.data['discover.yaml']).spec.mode).toBe('discover');
    expect(cm.data['commit.sh']).toContain('git push --force-with-lease origin "HEAD:refs/heads/$BRANCH"');
  });

  it('allow egress to the BMC CIDRs, the Git host and DNS only, and no ingress', () => {
    const np = byKind('NetworkPolicy');
    expect(np.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(np.spec.ingress).toEqual([]);
    expect(np.spec.egress.map((e: any) => e.to.map((t: any) => t.ipBlock?.cidr ?? 'dns'))).toEqual([
      ['10.20.0.11/32', '10.20.1.0/24'],
      ['192.0.2.10/32'],
      ['dns'],
    ]);
    expect(np.spec.podSelector.matchLabels).toEqual(byKind('CronJob').spec.jobTemplate.spec.template.metadata.labels);
  });

  it('the one-off Job is local-config (created by hand, never applied by a render)', () => {
    const job = byKind('Job');
    expect(job.metadata.annotations['config.kubernetes.io/local-config']).toBe('true');
    expect(job.spec.template).toEqual(byKind('CronJob').spec.jobTemplate.spec.template);
  });
});
