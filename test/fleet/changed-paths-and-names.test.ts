/**
 * `fleet sites --changed`: paths git would quote (non-ASCII, spaces) still select their site; a
 * revision never reaches git as an option; two sites with one matrix name are an error; an
 * unreadable kustomization is named and its sites are selected by any change. Each case in a
 * throwaway git repository.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFleet } from '../../src/cli/fleet.js';
import { git, write } from '../git-repo.js';

let tmp = '';
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'fleet-changed-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let repos = 0;
/** A repository with a kustomize site in each folder, committed; returns its root. */
function repo(sites: string[], extra: Record<string, string> = {}): string {
  const root = join(tmp, `r${repos++}`);
  for (const s of sites) {
    write(root, `${s}/kustomization.yaml`, 'resources:\n- cm.yaml\n');
    write(root, `${s}/cm.yaml`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n');
  }
  for (const [f, text] of Object.entries(extra)) write(root, f, text);
  git(root, 'init', '-q');
  git(root, 'add', '.');
  git(root, 'commit', '-q', '-m', 'fleet');
  return root;
}

function change(root: string, rel: string): string {
  write(root, rel, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: changed-${Date.now()}\n`);
  git(root, 'add', '.');
  git(root, 'commit', '-q', '-m', 'change');
  return 'HEAD~1..HEAD';
}

async function fleet(root: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runFleet(['sites', root, ...args], { out: (s) => void (out += s), err: (s) => void (err += s) });
  return { code, out, err };
}

describe('fleet sites --changed', () => {
  it('property: a change under a site whose path git would quote selects exactly that site', async () => {
    const segment = fc.constantFrom('zürich', '東京', 'site a', 'naïve"q', 'tab\there', 'plain', 'ünïcødé-ß', 'emoji-🚀');
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(segment, { minLength: 2, maxLength: 4 }), fc.nat(), async (names, pick) => {
        const sites = names.map((n) => `sites/${n}`);
        const root = repo(sites);
        const chosen = sites[pick % sites.length]!;
        const r = await fleet(root, '--changed', change(root, `${chosen}/cm.yaml`));
        expect(r.code, r.err).toBe(0);
        expect(r.out).toBe(`${chosen}\n`);
      }),
      { numRuns: 12, seed: 17 },
    );
  });

  it('refuses a revision that starts with "-": nothing reaches git as an option', async () => {
    const root = repo(['sites/a']);
    const target = join(tmp, 'written-by-git');
    for (const range of [`--output=${target}..HEAD`, `HEAD~1..--output=${target}`, '-p..HEAD']) {
      const r = await fleet(root, `--changed=${range}`);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/a git revision does not start with "-"/);
    }
    expect(existsSync(target)).toBe(false);
  });

  it('two sites with one matrix name are an error naming both; names do not depend on what changed', async () => {
    const root = repo(['a/east', 'b/east', 'a-east']);
    const r = await fleet(root, '--format', 'json');
    expect(r.code).toBe(2);
    expect(r.err).toContain('sites a-east and a/east both go by "a-east" in the CI matrix: rename one folder');
    expect((await fleet(root)).code).toBe(0); // a plain list has no names
    const stable = repo(['a/east', 'b/east', 'c/west']);
    const only = await fleet(stable, '--changed', change(stable, 'a/east/cm.yaml'), '--format', 'json');
    expect(JSON.parse(only.out)).toEqual([{ site: 'a-east', path: 'a/east', kind: 'kustomize' }]);
  });

  it('names an unreadable kustomization, and any change selects the sites using it', async () => {
    const root = repo(['sites/a', 'sites/b'], {
      'types/base/kustomization.yaml': 'resources: [\n',
      'sites/b/kustomization.yaml': 'resources:\n- ../../types/base\n',
    });
    const r = await fleet(root, '--changed', change(root, 'docs/notes.yaml'));
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/^warning: types\/base\/kustomization\.yaml does not parse as YAML \(.*\): .*fix the file$/m);
    expect(r.out).toBe('sites/b\n');
  });
});
