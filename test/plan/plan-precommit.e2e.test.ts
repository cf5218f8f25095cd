/**
 * The `bare-metal-plan` pre-commit hook of .pre-commit-hooks.yaml with Debian's pre-commit (no
 * network): a fleet repository tracking an upstream branch refuses a commit that removes a
 * provisioned host, says why, and lets a harmless change through.
 */
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../golden.js';
import { edit, SITE } from './cases.js';

const work = join(repoRoot, '.e2e-out/plan-precommit');
const cli = join(repoRoot, 'dist/baremetal-krm.cjs');
const env = {
  PRE_COMMIT_HOME: join(work, 'pre-commit-cache'),
  PATH: `${join(work, 'bin')}:${process.env.PATH ?? ''}`,
  GIT_AUTHOR_NAME: 'e2e',
  GIT_AUTHOR_EMAIL: 'e2e@example.com',
  GIT_COMMITTER_NAME: 'e2e',
  GIT_COMMITTER_EMAIL: 'e2e@example.com',
};
afterAll(() => rmSync(work, { recursive: true, force: true }));

function run(cmd: string, args: string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, ...env } });
}

describe('pre-commit hook bare-metal-plan', () => {
  const hooks = join(work, 'hooks');
  const origin = join(work, 'origin.git');
  const fleet = join(work, 'fleet');

  it('installs, with the fleet tracking an upstream branch', () => {
    rmSync(work, { recursive: true, force: true });
    mkdirSync(join(work, 'bin'), { recursive: true });
    writeFileSync(join(work, 'bin/baremetal-krm'), `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`);
    chmodSync(join(work, 'bin/baremetal-krm'), 0o755);
    mkdirSync(hooks);
    copyFileSync(join(repoRoot, '.pre-commit-hooks.yaml'), join(hooks, '.pre-commit-hooks.yaml'));
    for (const args of [
      ['init', '-q'],
      ['add', '.'],
      ['commit', '-q', '-m', 'hooks'],
    ])
      expect(run('git', args, hooks).status).toBe(0);
    const rev = run('git', ['rev-parse', 'HEAD'], hooks).stdout.trim();
    expect(run('git', ['init', '-q', '--bare', '-b', 'main', origin], work).status).toBe(0);
    expect(run('git', ['clone', '-q', origin, fleet], work).status).toBe(0);
    cpSync(SITE, join(fleet, 'rendered'), { recursive: true });
    writeFileSync(
      join(fleet, '.pre-commit-config.yaml'),
      `repos:\n- repo: ${hooks}\n  rev: ${rev}\n  hooks:\n  - id: bare-metal-plan\n    args: [rendered/]\n`,
    );
    for (const args of [
      ['checkout', '-q', '-b', 'main'],
      ['add', '.'],
      ['commit', '-q', '-m', 'fleet'],
      ['push', '-q', '-u', 'origin', 'main'],
    ])
      expect(run('git', args, fleet).status, args.join(' ')).toBe(0);
    const install = run('pre-commit', ['install'], fleet);
    expect(install.status, install.stderr + install.stdout).toBe(0);
  });

  it('refuses a commit that deprovisions a host, saying which and why', () => {
    rmSync(join(fleet, 'rendered/site/hosts/node01.yaml'));
    run('git', ['add', '-A'], fleet);
    const r = run('git', ['commit', '-m', 'remove node01'], fleet);
    const out = r.stdout + r.stderr;
    expect(r.status, out).not.toBe(0);
    expect(out).toMatch(/bare-metal plan \(deprovision, re-provision, power off\)\.+Failed/);
    expect(out).toContain(
      'error: BareMetalHost/metal3/node01: removed (pruned by Kustomization hosts): BMO deprovisions the host (image wiped, disks cleaned) and powers it off [deprovision]',
    );
    expect(out).toContain('--fail-on deprovision: 1 change(s)');
    run('git', ['reset', '-q', '--hard'], fleet);
  });

  it('lets a change without destructive impact through', () => {
    edit(join(fleet, 'rendered/site/workloads/app.yaml'), 'LOG_LEVEL: info', 'LOG_LEVEL: debug');
    run('git', ['add', '-A'], fleet);
    const r = run('git', ['commit', '-m', 'debug logs'], fleet);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/bare-metal plan \(deprovision, re-provision, power off\)\.+Passed/);
  });
});
