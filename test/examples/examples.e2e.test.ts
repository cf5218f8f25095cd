/**
 * examples/<function>/<case>/: every example is a kpt package with its expected output in
 * `.expected/` (the kpt function catalog's scheme), run here as it would be by a user:
 *   - `kpt fn render` with the Kptfile as committed (the images, ghcr.io/baremetal-krm/<fn>,
 *     built locally by scripts/build-images.sh): the package changes by exactly
 *     `.expected/diff.patch`, kpt writes `.expected/results.yaml`, and exits with `exitCode`;
 *   - the same with the exec form (the Kptfile's `image:` swapped for `exec: dist/<fn>.cjs`):
 *     the same diff;
 *   - `kubectl kustomize --enable-alpha-plugins` (container functions through the docker shim),
 *     where the case says `kustomize: true`: `.expected/kustomize.yaml`, or a failure with the
 *     error line of `.expected/kustomize-error.txt`;
 *   - the README's commands name this folder and these forms.
 * `UPDATE_EXPECTED=1` rewrites the expected files (read the diff).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repoRoot, run, tempDir } from '../e2e/helpers.js';
import { execForm, KPT_IMAGE, readmeCommands } from './kptfile.js';

const FUNCTIONS = ['bmh-from-redfish', 'site-from-catalogue', 'phase-plan-expand', 'intent-validate'];
const update = process.env.UPDATE_EXPECTED === '1';
const shim = `${join(repoRoot, 'test/e2e/bin')}:${process.env.PATH}`;

interface Case {
  fn: string;
  name: string;
  dir: string;
  config: { testType: 'render' | 'eval'; exitCode: number; kustomize: boolean; fnConfig?: string; target?: string };
}

function cases(): Case[] {
  const out: Case[] = [];
  for (const fn of FUNCTIONS) {
    const root = join(repoRoot, 'examples', fn);
    for (const name of existsSync(root) ? readdirSync(root).sort() : []) {
      const dir = join(root, name);
      const cfg = join(dir, '.expected/config.yaml');
      if (existsSync(cfg)) out.push({ fn, name, dir, config: parse(readFileSync(cfg, 'utf8')) as Case['config'] });
    }
  }
  return out;
}

const git = (cwd: string, ...args: string[]) => {
  const r = run('git', args, {
    cwd,
    env: { GIT_AUTHOR_NAME: 'e2e', GIT_AUTHOR_EMAIL: 'e2e@example.com', GIT_COMMITTER_NAME: 'e2e', GIT_COMMITTER_EMAIL: 'e2e@example.com' },
  });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
};

/** A copy of the package as its own git repository, `.expected/` left out, committed. */
function checkout(c: Case, label: string, edit?: (dir: string) => void): string {
  const dir = join(tempDir(`example-${c.fn}-${c.name}-${label}`), c.name);
  cpSync(c.dir, dir, { recursive: true, filter: (src) => !src.includes('/.expected') });
  edit?.(dir);
  git(dir, 'init', '-q');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'example');
  return dir;
}

/** What rendering changed in the package: `git diff` with new files included. */
function diffOf(dir: string): string {
  git(dir, 'add', '-A', '-N');
  return git(dir, 'diff', '--no-color');
}

function expectOrUpdate(c: Case, file: string, actual: string): void {
  const p = join(c.dir, '.expected', file);
  if (update) writeFileSync(p, actual);
  expect(actual, `${relative(repoRoot, p)} (UPDATE_EXPECTED=1 rewrites it)`).toBe(existsSync(p) ? readFileSync(p, 'utf8') : '');
}

describe('examples (kpt catalog scheme: a package per case, .expected/ beside it)', () => {
  beforeAll(() => {
    execFileSync(process.execPath, [join(repoRoot, 'scripts/build.mjs'), '--no-typecheck'], { stdio: 'inherit', cwd: repoRoot });
    execFileSync('bash', [join(repoRoot, 'scripts/build-images.sh'), ...FUNCTIONS], { stdio: 'inherit', cwd: repoRoot });
  });

  it('every function has an example, and every example is in the scheme', () => {
    const all = cases();
    expect(new Set(all.map((c) => c.fn))).toEqual(new Set(FUNCTIONS));
    for (const fn of FUNCTIONS)
      for (const name of readdirSync(join(repoRoot, 'examples', fn)))
        expect(existsSync(join(repoRoot, 'examples', fn, name, '.expected/config.yaml')), `examples/${fn}/${name}`).toBe(true);
  });

  for (const c of cases()) {
    const id = `${c.fn}/${c.name}`;

    it(`${id}: the Kptfile (or the eval) names the image; the README shows kpt pkg get, the image and the exec form`, () => {
      const cmds = readmeCommands(join(c.dir, 'README.md'));
      expect(cmds).toContain(`kpt pkg get https://github.com/baremetal-krm/baremetal-krm.git/examples/${id} ${c.name}`);
      if (c.config.testType === 'eval') {
        expect(cmds.some((x) => x.startsWith('kpt fn eval ') && x.includes(`--image ${KPT_IMAGE(c.fn)}`))).toBe(true);
      } else {
        expect(readFileSync(join(c.dir, 'Kptfile'), 'utf8')).toContain(`image: ${KPT_IMAGE(c.fn)}`);
        expect(cmds.some((x) => x.startsWith(`kpt fn render ${c.name}`))).toBe(true);
      }
      expect(cmds.some((x) => x.startsWith(`kpt fn eval --exec ./dist/${c.fn}.cjs `))).toBe(true);
    });

    it(`${id}: kpt with the image changes the package by .expected/diff.patch, results as expected`, () => {
      const dir = checkout(c, 'image');
      const results = tempDir(`example-results-${c.name}`);
      const args =
        c.config.testType === 'eval'
          ? ['fn', 'eval', join(dir, c.config.target!), '--image', KPT_IMAGE(c.fn), '--fn-config', join(dir, c.config.fnConfig!)]
          : ['fn', 'render', dir];
      const r = run('kpt', [...args, '--image-pull-policy', 'never', '--results-dir', results], {
        cwd: repoRoot,
        env: { KPT_FN_RUNTIME: 'podman' },
      });
      expect(r.status, r.stderr).toBe(c.config.exitCode);
      expectOrUpdate(c, 'diff.patch', diffOf(dir));
      expectOrUpdate(c, 'results.yaml', readFileSync(join(results, 'results.yaml'), 'utf8'));
    });

    it(`${id}: kpt with the exec form gives the same diff`, () => {
      const evalCase = c.config.testType === 'eval';
      const dir = checkout(c, 'exec', evalCase ? undefined : (d) => execForm(d));
      const bundle = join(repoRoot, 'dist', `${c.fn}.cjs`);
      const args = evalCase
        ? ['fn', 'eval', join(dir, c.config.target!), '--exec', bundle, '--fn-config', join(dir, c.config.fnConfig!)]
        : ['fn', 'render', '--allow-exec', dir];
      const r = run('kpt', args, { cwd: repoRoot });
      expect(r.status, r.stderr).toBe(c.config.exitCode);
      expect(diffOf(dir)).toBe(readFileSync(join(c.dir, '.expected/diff.patch'), 'utf8'));
    });

    if (c.config.kustomize)
      it(`${id}: kubectl kustomize with the container functions gives .expected/kustomize.yaml (or its error)`, () => {
        const cmd = readmeCommands(join(c.dir, 'README.md')).find((x) => x.includes('kubectl kustomize'));
        expect(cmd).toBe(`PATH="$PWD/test/e2e/bin:$PATH" kubectl kustomize --enable-alpha-plugins examples/${id}`);
        const r = run('kubectl', ['kustomize', '--enable-alpha-plugins', c.dir], { cwd: repoRoot, env: { PATH: shim } });
        const errorFile = join(c.dir, '.expected/kustomize-error.txt');
        if (existsSync(errorFile)) {
          expect(r.status).not.toBe(0);
          expect(r.stdout).toBe('');
          const expected = readFileSync(errorFile, 'utf8').trim();
          expect(r.stderr.split('\n').filter((l) => l.includes(': error: '))).toEqual([expected]);
        } else {
          expect(r.status, r.stderr).toBe(0);
          expectOrUpdate(c, 'kustomize.yaml', r.stdout);
        }
      });
  }

  describe('intent-validate/broken-site', () => {
    const dir = join(repoRoot, 'examples/intent-validate/broken-site');
    const expectedError = readFileSync(join(dir, '.expected/kustomize-error.txt'), 'utf8').trim();
    // the finding without the location, which differs between kustomize (its own made-up path,
    // no line) and kpt (the file and line)
    const finding = expectedError.replace(/^[^ ]*: error: /, '');

    it('the expected message is the hardware-profile finding for r750-01', () => {
      expect(finding).toBe(
        "metadata.labels: BareMetalHost/target-infra/r750-01 does not match HardwareClassification compute-large-memory (hardware from HardwareInventory r750-01): cpu count: wanted >= 128, found 72; ram: wanted >= 1024 GB (x1024 MiB), found 524288 MiB. Fix the host's hardware or assign another profile [hardware-profile]",
      );
    });

    it('kpt fn render on valid-site with the same change fails with the same finding, at the file and line', () => {
      const c = cases().find((x) => x.name === 'valid-site')!;
      const copy = checkout(c, 'broken', (d) => {
        execForm(d);
        const host = join(d, 'hosts/r750-01.yaml');
        const text = readFileSync(host, 'utf8');
        expect(text).toContain('baremetal-krm.dev/hardware-profile: control-plane');
        writeFileSync(host, text.replace('hardware-profile: control-plane', 'hardware-profile: compute-large-memory'));
      });
      const r = run('kpt', ['fn', 'render', '--allow-exec', copy], { cwd: repoRoot });
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain(finding);
      expect(r.stderr).toMatch(/hosts\/r750-01\.yaml:\d+: error: /);
    });
  });

  it('leaves the examples as committed (nothing rendered into the repository)', () => {
    const r = run('git', ['status', '--porcelain', '--', 'examples'], { cwd: repoRoot });
    expect(r.stdout.split('\n').filter((l) => l && !l.includes('/.expected/'))).toEqual([]);
  });
});
