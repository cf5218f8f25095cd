/**
 * The root README's Kptfile pipeline (site-from-catalogue, then intent-validate with its default
 * settings) passes as written on a real package: the greenfield site's catalogues, inventory
 * and namespaces, with the README's Kptfile and site.yaml (plus the site's own allocation ranges
 * and roles). Without credentials.mode: sops the same pipeline fails on the BMC Secrets no one
 * created: one dangling reference per host.
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, run, tempDir } from '../e2e/helpers.js';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const block = (starts: string): string => {
  const b = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] ?? '').find((x) => x.startsWith(starts));
  if (!b) throw new Error(`README: no yaml block starting with ${starts}`);
  return b;
};

function pkg(siteYaml: string): string {
  const dir = join(tempDir('readme-pipeline'), 'my-site');
  cpSync(join(repoRoot, 'examples/greenfield-site/site'), dir, { recursive: true });
  rmSync(join(dir, 'fn'), { recursive: true });
  rmSync(join(dir, 'hosts'), { recursive: true });
  rmSync(join(dir, 'phase-plans'), { recursive: true });
  rmSync(join(dir, 'phases'), { recursive: true });
  // the README's Kptfile pipeline, verbatim, in a Kptfile of this package
  writeFileSync(
    join(dir, 'Kptfile'),
    `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: my-site\n${block('# Kptfile\n').replace('# Kptfile\n', '')}`,
  );
  // the README's site.yaml, with this site's address ranges and roles (its catalogue pins no addresses)
  const own = readFileSync(join(repoRoot, 'examples/greenfield-site/site/fn/site-from-catalogue.yaml'), 'utf8');
  const ranges = own.slice(own.indexOf('  ipam:'));
  writeFileSync(join(dir, 'site.yaml'), `${siteYaml.replace(/^# .*\n/gm, '')}${ranges}`);
  return dir;
}

describe('the README Kptfile pipeline', () => {
  const recipient = /# public key: (\S+)/.exec(readFileSync(join(repoRoot, 'examples/greenfield-site/demo.agekey'), 'utf8'))![1]!;
  const env = { BMC_USERNAME: 'admin', BMC_PASSWORD: 'password', SOPS_AGE_RECIPIENTS: recipient };

  it('passes as written: BMC Secrets generated SOPS-encrypted, intent-validate (defaults) finds every reference', () => {
    const dir = pkg(block('# site.yaml'));
    const r = run('kpt', ['fn', 'render', '--allow-exec', dir, '--truncate-output=false'], {
      cwd: repoRoot,
      env: { ...process.env, ...env },
    });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'hosts/r750-01-bmc-secret.sops.yaml'), 'utf8')).toContain('mac: ENC[AES256_GCM,');
  });

  it('fails without it, one missing Secret per host (what the README used to give)', () => {
    const dir = pkg(block('# site.yaml').replace('mode: sops', 'mode: reference'));
    const r = run('kpt', ['fn', 'render', '--allow-exec', dir, '--truncate-output=false'], {
      cwd: repoRoot,
      env: { ...process.env, ...env },
    });
    expect(r.status).not.toBe(0);
    expect(
      (r.stdout + r.stderr).match(/BMC credentials Secret target-infra\/\S+-bmc-secret referenced by/g)?.length,
    ).toBeGreaterThanOrEqual(3);
  });
});
