/**
 * examples/kustomize/<scenario>: every scenario's README commands run verbatim (kustomize with
 * container functions through the podman shim, kpt with exec functions), plus kpt with the
 * images, and each gives the checked-in expected output (or fails with the expected message).
 * Run: npm run test:e2e (or npx vitest run --config vitest.e2e.config.ts test/journey)
 */
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { clusterObjects, repoRoot, run, tempDir } from '../e2e/helpers.js';

const examples = join(repoRoot, 'examples/kustomize');
const FUNCTIONS = ['bmh-from-redfish', 'site-from-catalogue', 'phase-plan-expand', 'intent-validate'];
const SCENARIOS: { dir: string; fn: string }[] = [
  { dir: 'greenfield-bmh', fn: 'bmh-from-redfish' },
  { dir: 'site-from-catalogues', fn: 'site-from-catalogue' },
  { dir: 'phase-plan-flux', fn: 'phase-plan-expand' },
  { dir: 'validation', fn: 'intent-validate' },
];
const objects = clusterObjects;

/** The shell commands of a README's ```sh blocks (comments and blank lines dropped). */
function readmeCommands(readme: string): string[] {
  const out: string[] = [];
  for (const m of readFileSync(readme, 'utf8').matchAll(/```sh\n([\s\S]*?)```/g))
    for (const line of (m[1] ?? '').split('\n')) if (line.trim() && !line.trim().startsWith('#')) out.push(line.replace(/\s+#.*$/, ''));
  return out;
}

const sh = (command: string) => run('sh', ['-c', command], { cwd: repoRoot });

describe('examples/kustomize', () => {
  beforeAll(() => {
    execFileSync(process.execPath, [join(repoRoot, 'scripts/build.mjs'), '--no-typecheck'], { stdio: 'inherit', cwd: repoRoot });
    execFileSync('bash', [join(repoRoot, 'scripts/build-images.sh'), ...FUNCTIONS], { stdio: 'inherit', cwd: repoRoot });
  });

  for (const s of SCENARIOS) {
    const dir = join(examples, s.dir);
    const expected = readFileSync(join(dir, 'expected.yaml'), 'utf8');

    it(`${s.dir}: the README's two commands are a kustomize build and a kpt render of this folder`, () => {
      const cmds = readmeCommands(join(dir, 'README.md'));
      expect(cmds.filter((c) => c.includes('kubectl kustomize'))).toEqual([
        `PATH="$PWD/test/e2e/bin:$PATH" kubectl kustomize --enable-alpha-plugins examples/kustomize/${s.dir}`,
      ]);
      expect(cmds.filter((c) => c.startsWith('kpt '))).toEqual([`kpt fn render --allow-exec examples/kustomize/${s.dir} -o unwrap`]);
    });

    it(`${s.dir}: kubectl kustomize with the container functions prints expected.yaml, byte for byte`, () => {
      const cmd = readmeCommands(join(dir, 'README.md')).find((c) => c.includes('kubectl kustomize'))!;
      const r = sh(cmd);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toBe(expected);
    });

    it(`${s.dir}: kpt fn render with the exec functions gives the same objects and leaves the folder alone`, () => {
      const before = run('git', ['status', '--porcelain', '--', dir], { cwd: repoRoot }).stdout;
      const cmd = readmeCommands(join(dir, 'README.md')).find((c) => c.startsWith('kpt '))!;
      const r = sh(cmd);
      expect(r.status, r.stderr).toBe(0);
      expect(objects(r.stdout)).toEqual(objects(expected));
      expect(objects(expected).length).toBeGreaterThan(0);
      expect(run('git', ['status', '--porcelain', '--', dir], { cwd: repoRoot }).stdout).toBe(before);
    });

    it(`${s.dir}: kpt fn render with the container image gives the same objects`, () => {
      const copy = tempDir(`journey-kpt-image-${s.dir}`);
      cpSync(dir, copy, { recursive: true });
      const kptfile = readFileSync(join(copy, 'Kptfile'), 'utf8');
      expect(kptfile).toContain(`exec: ./dist/${s.fn}.cjs`);
      writeFileSync(join(copy, 'Kptfile'), kptfile.replace(`exec: ./dist/${s.fn}.cjs`, `image: localhost/baremetal-krm/${s.fn}:dev`));
      const r = run('kpt', ['fn', 'render', copy, '--image-pull-policy', 'never', '-o', 'unwrap'], {
        cwd: repoRoot,
        env: { KPT_FN_RUNTIME: 'podman' },
      });
      expect(r.status, r.stderr).toBe(0);
      expect(objects(r.stdout)).toEqual(objects(expected));
    });
  }

  describe('validation-broken', () => {
    const dir = join(examples, 'validation-broken');
    const expectedError = readFileSync(join(dir, 'expected-error.txt'), 'utf8').trim();
    // the finding without the location, which differs between kustomize (its own made-up path,
    // no line) and kpt (the file and line)
    const finding = expectedError.replace(/^[^ ]*: error: /, '');

    it('the expected message is the hardware-profile finding for r750-01', () => {
      expect(finding).toBe(
        "metadata.labels: BareMetalHost/target-infra/r750-01 does not match HardwareClassification compute-large-memory (hardware from HardwareInventory r750-01): cpu count: wanted >= 128, found 72; ram: wanted >= 1024 GB (x1024 MiB), found 524288 MiB. Fix the host's hardware or assign another profile [hardware-profile]",
      );
    });

    it('kubectl kustomize (the README command) fails with exactly that error', () => {
      const cmd = readmeCommands(join(dir, 'README.md')).find((c) => c.includes('kubectl kustomize'))!;
      expect(cmd).toBe('PATH="$PWD/test/e2e/bin:$PATH" kubectl kustomize --enable-alpha-plugins examples/kustomize/validation-broken');
      const r = sh(cmd);
      expect(r.status).not.toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n').filter((l) => l.includes(': error: '))).toEqual([expectedError]);
      expect(r.stderr).toContain('1 error(s), 0 warning(s)');
    });

    it('is a kpt package whose render sees only its own files, and passes', () => {
      const r = run('kpt', ['fn', 'render', '--allow-exec', dir, '-o', 'unwrap'], { cwd: repoRoot });
      expect(r.status, r.stderr).toBe(0);
    });

    it('kpt fn render on the validation package with the same change fails with the same finding', () => {
      const copy = tempDir('journey-kpt-broken');
      cpSync(join(examples, 'validation'), copy, { recursive: true });
      const host = join(copy, 'hosts/r750-01.yaml');
      const text = readFileSync(host, 'utf8');
      expect(text).toContain('baremetal-krm.dev/hardware-profile: control-plane');
      writeFileSync(
        host,
        text.replace('baremetal-krm.dev/hardware-profile: control-plane', 'baremetal-krm.dev/hardware-profile: compute-large-memory'),
      );
      const r = run('kpt', ['fn', 'render', '--allow-exec', copy, '-o', 'unwrap'], { cwd: repoRoot });
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain(finding);
      expect(r.stderr).toMatch(/hosts\/r750-01\.yaml:\d+: error: /);
    });
  });
});
