/**
 * The npm package as a user gets it: `npm pack` gives a tarball that installs on a clean machine
 * (no registry needed: the bins are bundles with no runtime dependencies), and `npx baremetal-krm`
 * and each function's bin work from the installed package.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { listFiles, repoRoot, run, tempDir } from './helpers.js';

const FUNCTIONS = ['bmh-from-redfish', 'site-from-catalogue', 'phase-plan-expand', 'intent-validate'];
const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  private?: boolean;
  dependencies?: Record<string, string>;
  bin: Record<string, string>;
};

describe('npm package', () => {
  let project = '';
  let tarball = '';
  let contents: string[] = [];

  beforeAll(() => {
    const packDir = tempDir('npm-pack');
    const r = run('npm', ['pack', '--json', '--pack-destination', packDir], { cwd: repoRoot });
    expect(r.status, r.stderr).toBe(0);
    // prepack (the build) prints first; the JSON report is the last thing on stdout
    const info = JSON.parse(r.stdout.slice(r.stdout.search(/^\[/m))) as { filename: string; files: { path: string }[] }[];
    tarball = join(packDir, info[0]!.filename);
    contents = info[0]!.files.map((f) => f.path).sort();
    project = tempDir('npm-install');
    const init = run('npm', ['init', '-y'], { cwd: project });
    expect(init.status, init.stderr).toBe(0);
    // --offline: a clean machine needs nothing but the tarball
    const inst = run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: project });
    expect(inst.status, inst.stderr).toBe(0);
  }, 600_000);

  it('is publishable and holds only what runs: the bins (with their code, code cache and lazy modules), README and LICENSE', () => {
    expect(pkg.private).toBeUndefined();
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(contents).toEqual(
      [
        'LICENSE',
        'README.md',
        'package.json',
        ...['baremetal-krm', ...FUNCTIONS].flatMap((f) => [`dist/${f}.cjs`, `dist/lib/${f}.js`, `dist/lib/${f}.cache`]),
        ...listFiles(join(repoRoot, 'dist/lazy')).map((f) => `dist/lazy/${f}`),
      ].sort(),
    );
    expect(Object.keys(pkg.bin).sort()).toEqual(['baremetal-krm', ...FUNCTIONS].sort());
  });

  it('npx baremetal-krm --help works from the installed package', () => {
    const r = run('npx', ['--no-install', 'baremetal-krm', '--help'], { cwd: project });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('baremetal-krm <command>');
    expect(r.stdout).toContain('validate');
  });

  for (const fn of FUNCTIONS) {
    it(`${fn}: its bin prints its help and runs on a ResourceList`, () => {
      const help = run('npx', ['--no-install', fn, '--help'], { cwd: project });
      expect(help.status, help.stderr).toBe(0);
      expect(help.stdout.startsWith(`${fn}: `)).toBe(true);
      const input =
        'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\n';
      const r = run('npx', ['--no-install', fn], { cwd: project, input });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain('kind: ResourceList');
      expect(r.stdout).toContain('name: x');
    });
  }
});
