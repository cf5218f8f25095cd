/**
 * End to end with the real tools: the pre-commit hook (Debian's `pre-commit`, no network) in a
 * throwaway git repository, and intent-validate as a kpt pipeline validator (`kpt fn render
 * --allow-exec`) and through `kpt fn eval --exec`.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/golden.js';

const work = mkdtempSync(join(tmpdir(), 'iv-e2e-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const bundle = join(repoRoot, 'dist/intent-validate.cjs');

const bmh = (name: string, secret: string, mac: string): string =>
  `apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: ${name}
  namespace: site
spec:
  online: true
  bootMACAddress: "${mac}"
  bmc:
    address: redfish+https://10.0.0.${name.slice(-1)}/redfish/v1/Systems/1
    credentialsName: ${secret}
`;
const secret = (name: string): string =>
  `apiVersion: v1
kind: Secret
metadata:
  name: ${name}
  namespace: site
type: Opaque
data:
  username: ENC[AES256_GCM,data:AAAA,iv:BBBB,tag:CCCC,type:str]
  password: ENC[AES256_GCM,data:AAAA,iv:BBBB,tag:CCCC,type:str]
sops:
  version: 3.7.3
`;

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, ...env } });
}

describe('intent-validate e2e: pre-commit hook', () => {
  // the hooks repository: this repo's .pre-commit-hooks.yaml, committed in a local git repo (no network)
  const hooks = join(work, 'hooks');
  const site = join(work, 'site');
  const npmPrefix = join(work, 'npm-global');
  const env = {
    PRE_COMMIT_HOME: join(work, 'pre-commit-cache'),
    PATH: `${join(npmPrefix, 'bin')}:${process.env.PATH ?? ''}`,
    GIT_AUTHOR_NAME: 'e2e',
    GIT_AUTHOR_EMAIL: 'e2e@example.com',
    GIT_COMMITTER_NAME: 'e2e',
    GIT_COMMITTER_EMAIL: 'e2e@example.com',
  };

  it('installs from .pre-commit-hooks.yaml (language: system, baremetal-krm from the npm package on PATH)', () => {
    // what `npm install -g baremetal-krm` does, from the packed tarball, into a prefix on PATH
    const pack = run('npm', ['pack', '--json', '--pack-destination', work], repoRoot);
    expect(pack.status, pack.stderr).toBe(0);
    const tarball = join(work, (JSON.parse(pack.stdout.slice(pack.stdout.search(/^\[/m))) as { filename: string }[])[0]!.filename);
    const global = run(
      'npm',
      ['install', '-g', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', '--prefix', npmPrefix, tarball],
      work,
    );
    expect(global.status, global.stderr).toBe(0);
    mkdirSync(hooks, { recursive: true });
    copyFileSync(join(repoRoot, '.pre-commit-hooks.yaml'), join(hooks, '.pre-commit-hooks.yaml'));
    for (const [dir, args] of [
      [hooks, ['init', '-q']],
      [hooks, ['add', '.']],
      [hooks, ['commit', '-q', '-m', 'hooks']],
    ] as const)
      expect(run('git', [...args], dir, env).status).toBe(0);
    const rev = run('git', ['rev-parse', 'HEAD'], hooks, env).stdout.trim();
    mkdirSync(site, { recursive: true });
    expect(run('git', ['init', '-q'], site, env).status).toBe(0);
    writeFileSync(join(site, '.pre-commit-config.yaml'), `repos:\n- repo: ${hooks}\n  rev: ${rev}\n  hooks:\n  - id: intent-validate\n`);
    const install = run('pre-commit', ['install'], site, env);
    expect(install.status, install.stderr + install.stdout).toBe(0);
  });

  it('refuses a commit with a dangling BMC Secret reference, printing file:line and the message', () => {
    writeFileSync(
      join(site, 'hosts.yaml'),
      bmh('node1', 'node1-bmc', '52:54:00:00:00:01') + '---\n' + bmh('node2', 'node2-bmc-typo', '52:54:00:00:00:02'),
    );
    writeFileSync(join(site, 'secrets.yaml'), secret('node1-bmc') + '---\n' + secret('node2-bmc'));
    writeFileSync(join(site, 'README.md'), 'not YAML: not checked\n');
    run('git', ['add', '.'], site, env);
    const r = run('git', ['commit', '-m', 'hosts with a typo'], site, env);
    const out = r.stdout + r.stderr;
    expect(r.status, out).not.toBe(0);
    expect(out).toMatch(/intent-validate \(bare-metal intent\)\.+Failed/);
    // hosts.yaml line 23: the second document starts on line 13 (11 lines, then ---), credentialsName is its 11th line
    expect(out).toContain(
      'hosts.yaml:23: error: BareMetalHost/site/node2 spec.bmc.credentialsName: BMC credentials Secret site/node2-bmc-typo referenced by BareMetalHost/site/node2 is not in the input: add the Secret (same namespace) or fix spec.bmc.credentialsName [reference]',
    );
    // hosts.yaml, secrets.yaml and .pre-commit-config.yaml (not KRM: skipped, with an info naming
    // it); README.md is not passed
    expect(out).toContain('1 error(s), 0 warning(s), 1 info in 4 object(s) from 3 file(s)');
    expect(run('git', ['log', '--oneline'], site, env).status).not.toBe(0); // nothing committed
  });

  it('lets the fixed commit through', () => {
    writeFileSync(
      join(site, 'hosts.yaml'),
      bmh('node1', 'node1-bmc', '52:54:00:00:00:01') + '---\n' + bmh('node2', 'node2-bmc', '52:54:00:00:00:02'),
    );
    run('git', ['add', '.'], site, env);
    const r = run('git', ['commit', '-m', 'hosts'], site, env);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/intent-validate \(bare-metal intent\)\.+Passed/);
    expect(run('git', ['log', '--oneline'], site, env).stdout).toContain('hosts');
  });
});

describe('intent-validate e2e: kpt', () => {
  const cfg =
    'apiVersion: baremetal-krm.dev/v1alpha1\nkind: IntentValidate\nmetadata:\n  name: validate\n  annotations:\n    config.kubernetes.io/local-config: "true"\nspec:\n  certificates:\n    warnDays: 30\n';
  function pkg(name: string, hostSecret: string): string {
    const dir = join(work, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'Kptfile'),
      `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n  annotations:\n    config.kubernetes.io/local-config: "true"\npipeline:\n  validators:\n  - exec: ${bundle}\n    configPath: intent-validate.yaml\n`,
    );
    writeFileSync(join(dir, 'intent-validate.yaml'), cfg);
    writeFileSync(join(dir, 'hosts.yaml'), bmh('node1', hostSecret, '52:54:00:00:00:01'));
    writeFileSync(join(dir, 'secrets.yaml'), secret('node1-bmc'));
    return dir;
  }

  it('kpt fn render --allow-exec: a good package passes, unchanged', () => {
    const dir = pkg('good', 'node1-bmc');
    const before = readFileSync(join(dir, 'hosts.yaml'), 'utf8') + readFileSync(join(dir, 'secrets.yaml'), 'utf8');
    const r = run('kpt', ['fn', 'render', '--allow-exec', dir], work);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('Successfully executed 1 function(s) in 1 package(s).');
    expect(readFileSync(join(dir, 'hosts.yaml'), 'utf8') + readFileSync(join(dir, 'secrets.yaml'), 'utf8')).toBe(before);
  });

  it('kpt fn render --allow-exec: a bad package fails with the message, file and line', () => {
    const dir = pkg('bad', 'node1-bmc-typo');
    const r = run('kpt', ['fn', 'render', '--allow-exec', '--results-dir', join(work, 'results-render'), dir], work);
    expect(r.status).not.toBe(0);
    const out = r.stdout + r.stderr;
    // the line in hosts.yaml itself, less the annotation lines kpt adds to the item
    expect(out).toContain(
      'hosts.yaml:11: error: BareMetalHost/site/node1: BMC credentials Secret site/node1-bmc-typo referenced by BareMetalHost/site/node1 is not in the input: add the Secret (same namespace) or fix spec.bmc.credentialsName [reference]',
    );
    expect(out).toContain('1 error(s), 0 warning(s), 0 info');
  });

  it('kpt fn eval --exec with --fn-config reports the same error and exits non-zero', () => {
    const dir = join(work, 'bad');
    const cfgFile = join(work, 'eval-config.yaml');
    writeFileSync(cfgFile, cfg);
    const r = run('kpt', ['fn', 'eval', '--exec', bundle, '--fn-config', cfgFile, dir], work);
    expect(r.status).not.toBe(0);
    expect(r.stdout + r.stderr).toContain(
      '[error] metal3.io/v1alpha1/BareMetalHost/site/node1 spec.bmc.credentialsName: BMC credentials Secret site/node1-bmc-typo',
    );
    const good = run('kpt', ['fn', 'eval', '--exec', bundle, '--fn-config', cfgFile, join(work, 'good')], work);
    expect(good.status, good.stderr).toBe(0);
    // without --fn-config kpt sends an empty ConfigMap: every rule at its default
    const bare = run('kpt', ['fn', 'eval', '--exec', bundle, dir], work);
    expect(bare.status).not.toBe(0);
    expect(bare.stdout + bare.stderr).toContain('hosts.yaml:11: error: ');
    expect(bare.stdout + bare.stderr).not.toContain('ConfigMap is not accepted');
  });
});
