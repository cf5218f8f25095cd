/**
 * Discovery in each site's own cluster: the CronJob, one-off Job, NetworkPolicy, ServiceAccount
 * and ConfigMap are schema-valid for intent-validate's core schemas, carry no credential, and
 * limit the Pod as the design says.
 */
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { definition as intentValidate } from '../../functions/intent-validate/function.js';
import { discoveryObjects, discoveryProblems, discoverySiteName, type DiscoverySettings } from '../../src/fleet/discovery.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { definition as siteFromCatalogue } from '../../functions/site-from-catalogue/function.js';
import { runFunction } from '../../src/krm/index.js';
import { harness, itemsStream, repoRoot, resourceList } from '../golden.js';

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
    // every forced push names the commit it replaces (test/fleet/discovery-branch-push.test.ts runs the script)
    expect(cm.data['commit.sh']).not.toMatch(/--force-with-lease(?!=)/);
    expect(pod.containers[0].workingDir).toBe('/work/repo');
    // one unreachable BMC must not stop the reachable ones' inventory from being committed
    expect(JSON.parse(cm.data['discover.yaml']).metadata.annotations).toEqual({ 'baremetal-krm.dev/report-only': 'true' });
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

describe('discovery settings the API server or git would refuse', () => {
  const problems = (change: Partial<DiscoverySettings>) =>
    discoveryProblems({ ...settings, ...change }).map((p) => `${p.field}: ${p.message}`);
  const fields = (change: Partial<DiscoverySettings>) => discoveryProblems({ ...settings, ...change }).map((p) => p.field);

  it('the example settings have none, and discoveryObjects refuses what discoveryProblems finds', () => {
    expect(problems({})).toEqual([]);
    expect(() => discoveryObjects({ ...settings, schedule: 'daily' })).toThrow(/schedule/);
  });

  it('a credential in the repository URL is refused, never quoted', () => {
    const token = 'glpat-Xy7Zq9Ab3Cd5Ef1Gh2Ij';
    for (const repository of [
      `https://oauth2:${token}@gitlab.example.com/fleet/sites.git`,
      `https://${token}@github.com/fleet/sites.git`,
      `ssh://git:${token}@git.example.com/fleet/sites.git`,
      `oauth2:${token}@gitlab.example.com:fleet/sites.git`,
      `https://gitlab.example.com/fleet/sites.git?private_token=${token}`,
    ]) {
      const found = problems({ repository });
      expect(found, repository).toHaveLength(1);
      expect(found[0]).toMatch(/^repository: carries a credential .* deploy key .* Secret git-ssh/);
      expect(found[0]).not.toContain(token);
    }
    for (const repository of [
      'git@git.example.com:fleet/sites.git',
      'ssh://git@git.example.com:2222/fleet/sites.git',
      'https://git.example.com/fleet/sites.git',
    ])
      expect(problems({ repository }), repository).toEqual([]);
  });

  it('site names that cannot name a CronJob (DNS-1123, at most 52 characters with discovery-)', () => {
    expect(discoverySiteName('Sites/East_1')).toBe('sites-east-1');
    const long = discoverySiteName('x'.repeat(80));
    expect(`discovery-${long}`.length).toBeLessThanOrEqual(52);
    expect(problems({ site: long })).toEqual([]);
    for (const site of ['East-1', 'east_1', 'x'.repeat(43), '-a', '']) expect(fields({ site }), site).toEqual(['site']);
    expect(fields({ namespace: 'Discovery' })).toEqual(['namespace']);
    expect(fields({ gitSecret: 'git_ssh' })).toEqual(['gitSecret']);
  });

  it('schedules as robfig/cron (the API server) takes them', () => {
    for (const schedule of [
      '17 3 * * *',
      '*/15 * * * *',
      '0 4 * * mon-fri',
      '0 0 1 jan,jul ?',
      '5/10 1-5 * * 0',
      '@daily',
      '@hourly',
      '@annually',
    ])
      expect(problems({ schedule }), schedule).toEqual([]);
    for (const schedule of [
      'daily',
      '17 3 * *',
      '0 17 3 * * *',
      '60 * * * *',
      '* 24 * * *',
      '* * 0 * *',
      '* * * 13 *',
      '* * * * 7',
      '*/0 * * * *',
      '5-1 * * * *',
      '* * L * *',
      '0 0 * * 1#2',
      '@every 1h',
      'TZ=UTC 0 3 * * *',
      '',
    ])
      expect(fields({ schedule }), schedule).toEqual(['schedule']);
  });

  it('branch names as git check-ref-format takes them', () => {
    for (const branch of ['discovery/east-1', 'main', 'a.b/c_d']) expect(problems({ branch }), branch).toEqual([]);
    for (const branch of [
      'a..b',
      'a b',
      'a~1',
      'a^',
      'a:b',
      'a?',
      'a*',
      'a[',
      'a\\b',
      '/a',
      'a/',
      'a//b',
      '.a',
      'a/.b',
      'a.lock',
      'a@{1}',
      '@',
      '-a',
      'HEAD',
      'refs/heads/a',
      'a.',
    ])
      expect(fields({ branch }), branch).toEqual(['branch']);
    expect(fields({ baseBranch: 'ma in' })).toEqual(['baseBranch']);
  });

  it('branch names: the same verdict as git check-ref-format --branch (differential; refs/... and @ refused on purpose)', () => {
    const names = fc.sample(fc.stringMatching(/^[a-z./@{}~^: *?[\\-]{1,6}$/), { numRuns: 300, seed: 7 });
    for (const branch of names) {
      const git = spawnSync('git', ['check-ref-format', '--branch', branch], { encoding: 'utf8' }).status === 0;
      const ours = fields({ branch }).length === 0;
      // git expands `@` and `@{-n}` in a repository to a branch it has: those are refused here on purpose too
      if (!branch.startsWith('refs/') && !branch.includes('@')) expect(ours, JSON.stringify(branch)).toBe(git);
    }
  });

  it('CIDRs, empty egress lists and site paths', () => {
    expect(problems({ egress: { ...settings.egress, gitCidrs: ['192.0.2.10', '192.0.2.5/24', 'fd00::/64'] } })).toEqual([
      'egress.gitCidrs[0]: "192.0.2.10" is not a CIDR; write an address and prefix (10.20.0.0/24, fd00::/64)',
      'egress.gitCidrs[1]: "192.0.2.5/24" has host bits set; write 192.0.2.0/24',
    ]);
    expect(fields({ egress: { ...settings.egress, bmcCidrs: [], bmcPorts: [] } })).toEqual(['egress.bmcCidrs', 'egress.bmcPorts']);
    for (const sitePath of ['/sites/east-1', '../east-1', 'sites/../../x', '.', 'C:\\sites', 'sites\\east-1'])
      expect(fields({ sitePath }), sitePath).toEqual(['sitePath']);
  });
});

describe('site-from-catalogue spec.discovery with settings that cannot work', () => {
  const dir = join(repoRoot, 'functions/site-from-catalogue/testdata/discovery-in-site-cluster');
  const input = readFileSync(join(dir, 'input.yaml'), 'utf8');
  const config = readFileSync(join(dir, 'fn-config.yaml'), 'utf8');
  const token = 'glpat-Xy7Zq9Ab3Cd5Ef1Gh2Ij';
  const run = (discovery: string) =>
    runFunction(
      siteFromCatalogue,
      resourceList(
        parseAllDocuments(input).map((d) => d.toString()),
        config.replace(/ {2}discovery:\n[\s\S]*$/, discovery),
      ),
    );

  it('each is an error naming its field, nothing is written, and no token is quoted', async () => {
    const r = await run(
      [
        '  discovery:',
        `    repository: https://oauth2:${token}@gitlab.example.com/fleet/sites.git`,
        '    sitePath: ../sites/test-site',
        '    schedule: every day',
        '    branch: discovery..test',
        '    egress:',
        '      gitCidrs: [192.0.2.10]',
        '',
      ].join('\n'),
    );
    expect(r.exitCode).toBe(1);
    const errors = r.results.filter((x) => x.severity === 'error');
    expect(errors.map((x) => x.field?.path)).toEqual([
      'spec.discovery.repository',
      'spec.discovery.sitePath',
      'spec.discovery.schedule',
      'spec.discovery.branch',
      'spec.discovery.egress.gitCidrs[0]',
    ]);
    expect(errors.every((x) => x.tags?.rule === 'discovery/settings' && x.message.endsWith('no discovery objects written'))).toBe(true);
    expect(r.output).not.toContain(token);
    expect(r.output).not.toMatch(/kind: CronJob|kind: NetworkPolicy/);
  });

  it('a site name from a sitePath that is not a name is made one (info); one that cannot be is an error', async () => {
    const ok = await run(
      '  discovery:\n    repository: git@git.example.com:fleet/sites.git\n    sitePath: sites/Test_Site\n    egress:\n      gitCidrs: [192.0.2.10/32]\n',
    );
    expect(ok.exitCode, JSON.stringify(ok.results.filter((x) => x.severity === 'error'))).toBe(0);
    expect(itemsStream(ok.output)).toContain('name: discovery-test-site\n');
    const bad = await run(
      '  discovery:\n    repository: git@git.example.com:fleet/sites.git\n    sitePath: sites/Test_Site\n    site: Test_Site\n    egress:\n      gitCidrs: [192.0.2.10/32]\n',
    );
    expect(bad.results.filter((x) => x.severity === 'error').map((x) => x.field?.path)).toEqual(['spec.discovery.site']);
  });
});
