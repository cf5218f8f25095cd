/**
 * render --out into a GitOps checkout: only the files renders wrote are ever removed or
 * overwritten; dot-entries (.git, .sops.yaml, .github/) and the checkout's own files survive.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RENDER_HEADER } from './flatten.js';
import { renderSite } from './render.js';
import { WriteError, writeTree } from './write-tree.js';
import { git, write } from '../../test/git-repo.js';

let tmp = '';
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'render-ownership-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const cm = (name: string): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "${name}"\ndata:\n  a: "1"\n`;

/** A package with one object per name, each in the folder before the `/`. */
function writePackage(site: string, objects: string[]): void {
  rmSync(site, { recursive: true, force: true });
  write(site, 'Kptfile', 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: s\n');
  for (const o of objects) {
    const [folder, name] = o.split('/');
    write(site, `${folder}/${name}.yaml`, cm(name!));
  }
}

const render = (site: string, out: string) => renderSite({ site, out, noKpt: true, env: {}, log: () => {} });

/** The checkout's own files: a test asserts each survives every render byte for byte. */
const CHECKOUT: Record<string, string> = {
  'README.md': '# fleet\n',
  '.sops.yaml': 'creation_rules: []\n',
  '.github/workflows/ci.yaml': 'on: push\n',
  '.gitignore': 'tmp/\n',
  'docs/notes.yaml': 'not: rendered\n',
};

describe('render --out a Git checkout', () => {
  it('keeps the repository, its dot-entries and its own files across renders, removing only what a render wrote', () => {
    const site = join(tmp, 'git/pkg');
    const out = join(tmp, 'git/out');
    writePackage(site, ['hosts/a', 'hosts/b', 'net/n']);
    expect(render(site, out).summary!.written).toContain('hosts/configmap_a.yaml');
    git(out, 'init', '-q');
    for (const [f, text] of Object.entries(CHECKOUT)) write(out, f, text);
    git(out, 'add', '-A');
    git(out, 'commit', '-q', '-m', 'rendered');
    const again = render(site, out);
    expect(again.summary!.removed).toEqual([]);
    expect(again.summary!.written).toEqual([]);
    expect(git(out, 'status', '--porcelain')).toBe('');

    writePackage(site, ['hosts/a']);
    const pruned = render(site, out).summary!;
    expect(pruned.removed.sort()).toEqual(['hosts/configmap_b.yaml', 'net/configmap_n.yaml', 'net/kustomization.yaml']);
    expect(existsSync(join(out, 'net'))).toBe(false);
    expect(git(out, 'rev-parse', '--is-inside-work-tree').trim()).toBe('true');
    for (const [f, text] of Object.entries(CHECKOUT)) expect(readFileSync(join(out, f), 'utf8')).toBe(text);
    expect(git(out, 'status', '--porcelain').split('\n').filter(Boolean).sort()).toEqual([
      ' D hosts/configmap_b.yaml',
      ' D net/configmap_n.yaml',
      ' D net/kustomization.yaml',
      ' M hosts/kustomization.yaml',
      ' M kustomization.yaml',
    ]);
  });

  it('renders into a fresh checkout (empty but for dot-entries), still not into a folder of other files', () => {
    const site = join(tmp, 'fresh/pkg');
    const out = join(tmp, 'fresh/out');
    writePackage(site, ['hosts/a']);
    mkdirSync(out, { recursive: true });
    git(out, 'init', '-q');
    write(out, '.sops.yaml', CHECKOUT['.sops.yaml']!);
    expect(render(site, out).summary!.written).toContain('kustomization.yaml');
    expect(existsSync(join(out, '.git/HEAD'))).toBe(true);

    const other = join(tmp, 'fresh/other');
    write(other, 'README.md', 'mine\n');
    expect(() => render(site, other)).toThrow(WriteError);
    expect(existsSync(join(other, 'kustomization.yaml'))).toBe(false);
  });

  it('refuses to overwrite a file no render wrote, and never removes what a tampered kustomization lists outside', () => {
    const site = join(tmp, 'over/pkg');
    const out = join(tmp, 'over/out');
    writePackage(site, ['hosts/a']);
    render(site, out);
    write(out, 'net/configmap_n.yaml', 'mine\n');
    writePackage(site, ['hosts/a', 'net/n']);
    expect(() => render(site, out)).toThrow(/configmap_n\.yaml exists and no earlier render wrote it/);
    expect(readFileSync(join(out, 'net/configmap_n.yaml'), 'utf8')).toBe('mine\n');
    expect(existsSync(join(out, 'net/kustomization.yaml'))).toBe(false);

    write(join(tmp, 'over'), 'victim.yaml', 'keep\n');
    write(out, 'hosts/kustomization.yaml', `${RENDER_HEADER}resources:\n- ../../victim.yaml\n- ../.git/config\n`);
    rmSync(join(out, 'net'), { recursive: true });
    writeTree(out, new Map([['kustomization.yaml', RENDER_HEADER]]), RENDER_HEADER);
    expect(readFileSync(join(tmp, 'over/victim.yaml'), 'utf8')).toBe('keep\n');
  });

  it('property: whatever files a checkout adds between renders survive, and the output is exactly what the render produces', () => {
    const names = ['a', 'b', 'c'];
    const folders = ['hosts', 'net', 'target'];
    const objects = fc.uniqueArray(fc.constantFrom(...folders.flatMap((f) => names.map((n) => `${f}/${n}`))), { minLength: 1 });
    const userFile = fc.tuple(
      fc.constantFrom('', '.', '_'),
      fc.constantFrom(...folders, 'docs', '.github'),
      fc.constantFrom('notes.yaml', 'README.md', '.keep', 'x.yml', 'kustomization.yml'),
    );
    let run = 0;
    fc.assert(
      fc.property(fc.array(objects, { minLength: 1, maxLength: 4 }), fc.uniqueArray(userFile, { maxLength: 5 }), (renders, users) => {
        const site = join(tmp, `prop/${run}/pkg`);
        const out = join(tmp, `prop/${run++}/out`);
        const mine = new Map(users.map(([p, folder, file]) => [`${p}${folder}/${file}`, `user ${p}${folder}/${file}\n`]));
        for (const [i, objs] of renders.entries()) {
          writePackage(site, objs);
          const r = render(site, out);
          expect(r.summary).toBeDefined();
          if (i === 0) for (const [f, text] of mine) write(out, f, text);
          for (const o of objs) expect(existsSync(join(out, `${o.split('/')[0]}/configmap_${o.split('/')[1]}.yaml`))).toBe(true);
          for (const f of folders.flatMap((d) => names.map((n) => `${d}/${n}`)))
            if (!objs.includes(f)) expect(existsSync(join(out, `${f.split('/')[0]}/configmap_${f.split('/')[1]}.yaml`))).toBe(false);
        }
        for (const [f, text] of mine) expect(readFileSync(join(out, f), 'utf8')).toBe(text);
      }),
      { numRuns: 25, seed: 17 },
    );
  });
});
