/** `baremetal-krm fleet sites`: which sites a fleet has, and which a commit touches, on a generated fleet. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFleet } from '../../src/cli/fleet.js';
import { indexFleet } from '../../src/fleet/sites.js';
import { commitChange, makeFleet } from './fleet-fixture.js';

const SITES = 1000;
let root = '';

async function fleet(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runFleet(['sites', root, ...args], { out: (s) => void (out += s), err: (s) => void (err += s) });
  return { code, out, err };
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'fleet-'));
  makeFleet(root, SITES);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('fleet sites', () => {
  it('finds every site: kustomize roots, kpt packages, the airshipctl site; not the types they use', () => {
    const index = indexFleet(root);
    const kinds = new Map<string, number>();
    for (const s of index.sites) kinds.set(s.kind, (kinds.get(s.kind) ?? 0) + 1);
    expect(Object.fromEntries(kinds)).toEqual({ kustomize: SITES, kpt: 3, airship: 1 });
    expect(index.sites.some((s) => s.path.startsWith('types/') || s.path.endsWith('/hosts'))).toBe(false);
  });

  it('an edit to one site selects that site alone', async () => {
    const range = commitChange(root, 'sites/site-7/patch.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: changed\n');
    const r = await fleet('--changed', range);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe('sites/site-7\n');
  });

  it('an edit inside a nested folder of a site selects the site', async () => {
    const r = await fleet('--changed', commitChange(root, 'sites/site-8/hosts/host.yaml', 'kind: ConfigMap\n'));
    expect(r.out).toBe('sites/site-8\n');
  });

  it('an edit to a shared type selects every site using it, directly or through another type', async () => {
    const small = await fleet('--changed', commitChange(root, 'types/small/namespace.yaml', 'kind: Namespace\n'));
    // every kustomize site (small directly, large through small), the kpt packages and the airshipctl site
    expect(small.out.split('\n').filter(Boolean)).toHaveLength(SITES + 3 + 1);
    const large = await fleet('--changed', commitChange(root, 'types/large/extra.yaml', 'kind: ConfigMap\n'));
    expect(large.out.split('\n').filter(Boolean)).toHaveLength(SITES / 2 + 1);
    expect(large.out).toContain('sites/site-1\n');
    expect(large.out).not.toContain('sites/site-0\n');
    expect(large.out).toContain('airship/site\n');
  });

  it('a catalogue file and a function config select the sites that refer to them; an exec selects its users', async () => {
    const cat = await fleet('--changed', commitChange(root, 'catalogues/hosts.yaml', 'hosts: {a: 1}\n'));
    expect(cat.out.split('\n').filter(Boolean)).toHaveLength(SITES);
    const exec = await fleet('--changed', commitChange(root, 'tools/fn.cjs', '#!/usr/bin/env node\n// v2\n'));
    // sites 0, 10, 20... list functions/fn.yaml, whose exec is tools/fn.cjs; the kpt packages exec it
    expect(exec.out.split('\n').filter(Boolean)).toHaveLength(SITES / 10 + 3);
  });

  it('an edit to an unrelated file selects none', async () => {
    expect((await fleet('--changed', commitChange(root, 'docs/README.md', '# changed\n'))).out).toBe('');
    expect((await fleet('--changed', commitChange(root, 'catalogues/unused.yaml', 'unused: false\n'))).out).toBe('');
  });

  it('prints a GitHub Actions matrix, a GitLab parallel:matrix and JSON', async () => {
    const range = commitChange(root, 'sites/site-3/patch.yaml', 'kind: Namespace\n');
    const gh = JSON.parse((await fleet('--changed', range, '--format', 'github')).out);
    expect(gh).toEqual({ include: [{ site: 'site-3', path: 'sites/site-3', kind: 'kustomize' }] });
    expect((await fleet('--changed', range, '--format', 'gitlab')).out).toBe(
      'parallel:\n  matrix:\n    - SITE: "site-3"\n      SITE_PATH: "sites/site-3"\n',
    );
    expect(JSON.parse((await fleet('--changed', range, '--format', 'json')).out)).toEqual(gh.include);
  });

  it('BASE...HEAD compares with the merge base (what a pull request shows)', async () => {
    const range = commitChange(root, 'sites/site-9/patch.yaml', 'kind: Namespace\n');
    expect((await fleet('--changed', range.replace('..', '...'))).out).toBe('sites/site-9\n');
  });

  it('usage errors exit 2 with one line', async () => {
    const bad = await fleet('--changed', 'main');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--changed takes BASE\.\.HEAD/);
    const unknownRev = await fleet('--changed', 'nope..HEAD');
    expect(unknownRev.code).toBe(2);
    expect(unknownRev.err).toMatch(/git diff nope\.\.HEAD failed/);
    expect((await fleet('--format', 'yaml')).code).toBe(2);
  });

  it('a ROOT that is missing or a file: one line saying so, exit 2', async () => {
    for (const [arg, what] of [
      [join(root, 'no-such'), 'no such folder'],
      [join(root, 'docs/README.md'), 'not a folder'],
    ]) {
      let err = '';
      const code = await runFleet(['sites', arg!], { out: () => undefined, err: (s) => void (err += s) });
      expect(code).toBe(2);
      expect(err).toBe(`baremetal-krm fleet sites: ROOT ${arg}: ${what}: give the fleet repository's folder (default: .)\n`);
    }
  });
});
