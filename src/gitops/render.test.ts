/**
 * baremetal-krm render: flatten a rendered package into the folder Flux applies, with an
 * ordering Flux cannot skip (built with kubectl kustomize), safely and idempotently.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/golden.js';
import { RENDER_HEADER, type SourceFile, flatten } from './flatten.js';
import { fluxPathMapper } from './flux-paths.js';
import { packageFiles, renderSite } from './render.js';
import { WriteError, writeTree } from './write-tree.js';

let tmp = '';
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'render-test-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const fluxKs = (name: string, path: string, dependsOn?: string): string =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./sites/s1/out/${path}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: fleet\n${dependsOn ? `  dependsOn:\n  - name: ${dependsOn}\n` : ''}`;
const cm = (name: string, ns = 'default', extra = ''): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${ns}\n${extra}data:\n  a: "1"\n`;

/** An airshipctl-like package: nested phases, local-config intent, a function config, the plan. */
const PACKAGE: SourceFile[] = [
  { path: 'Kptfile', text: 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: s1\n' },
  {
    path: 'fn/validate.yaml',
    text: 'apiVersion: baremetal-krm.dev/v1alpha1\nkind: IntentValidate\nmetadata:\n  name: v\n',
  },
  {
    path: 'catalogues/hosts.yaml',
    text: 'apiVersion: airshipit.org/v1alpha1\nkind: VariableCatalogue\nmetadata:\n  name: host-catalogue\n  annotations:\n    config.kubernetes.io/local-config: "true"\n',
  },
  { path: 'namespaces/ns.yaml', text: 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: infra\n' },
  {
    path: 'target/controlplane/hosts.yaml',
    text: `${cm('cp-1', 'infra', '  annotations:\n    config.kubernetes.io/path: \'target/controlplane/hosts.yaml\'\n    keep: "yes" # a comment kept\n')}---\n${cm('cp-2', 'infra')}`,
  },
  { path: 'target/workers/hosts.yaml', text: `${cm('w-1', 'infra')}---\n${cm('w-1', 'other')}` },
  {
    path: 'plan/flux.yaml',
    text: [fluxKs('ns', 'namespaces'), fluxKs('cp', 'target/controlplane', 'ns'), fluxKs('workers', 'target/workers', 'cp')].join('---\n'),
  },
];

function writePackage(dir: string, files: SourceFile[]): void {
  for (const f of files) {
    mkdirSync(join(dir, f.path, '..'), { recursive: true });
    writeFileSync(join(dir, f.path), f.text);
  }
}

const kinds = (built: string): string[] =>
  parseAllDocuments(built)
    .map((d) => d.toJS() as { kind?: string; metadata?: { name?: string; namespace?: string } } | null)
    .filter((d) => d?.kind)
    .map((d) => `${d!.kind}/${d!.metadata?.namespace ? `${d!.metadata.namespace}/` : ''}${d!.metadata?.name}`)
    .sort();

describe('flatten', () => {
  const out = (): ReturnType<typeof flatten> =>
    flatten(PACKAGE, (p, produced) => {
      const tail = p.replace(/^\.\/sites\/s1\/out\/?/, '');
      return tail === '' || produced.has(tail) ? tail : undefined;
    });

  it('keeps only what the cluster gets, one file per object, location annotations removed and every other byte kept', () => {
    const r = out();
    expect(r.problems).toEqual([]);
    expect([...r.files.keys()].filter((f) => !f.endsWith('kustomization.yaml'))).toEqual([
      'namespaces/namespace_infra.yaml',
      'plan/kustomization_cp.yaml',
      'plan/kustomization_ns.yaml',
      'plan/kustomization_workers.yaml',
      'target/controlplane/configmap_cp-1.yaml',
      'target/controlplane/configmap_cp-2.yaml',
      'target/workers/configmap_infra_w-1.yaml',
      'target/workers/configmap_other_w-1.yaml',
    ]);
    expect(r.dropped).toBe(2); // the local-config catalogue and the function config (the Kptfile is never read)
    expect(r.files.get('target/controlplane/configmap_cp-1.yaml')).toBe(
      cm('cp-1', 'infra', '  annotations:\n    keep: "yes" # a comment kept\n'),
    );
  });

  it('orders Flux: the root lists only the Flux objects, each phase folder (nested ones too) only its own objects', () => {
    const r = out();
    const k = (p: string): unknown => parseAllDocuments(r.files.get(p)!)[0]!.toJS();
    expect(k('kustomization.yaml')).toMatchObject({ resources: ['plan'] });
    expect(k('target/controlplane/kustomization.yaml')).toMatchObject({ resources: ['configmap_cp-1.yaml', 'configmap_cp-2.yaml'] });
    expect(k('target/workers/kustomization.yaml')).toMatchObject({ resources: ['configmap_infra_w-1.yaml', 'configmap_other_w-1.yaml'] });
    expect(r.files.has('target/kustomization.yaml')).toBe(false);
    expect(r.files.get('kustomization.yaml')!.startsWith(RENDER_HEADER)).toBe(true);
  });

  it('reports a folder that mixes Flux objects with others, a phase no Kustomization applies, and a path that is not produced', () => {
    const mixed = flatten(
      [...PACKAGE, { path: 'plan/extra.yaml', text: cm('x') }, { path: 'orphan/o.yaml', text: cm('o') }],
      (p, produced) => {
        const tail = p.replace(/^\.\/sites\/s1\/out\/?/, '');
        return produced.has(tail) ? tail : tail === 'target/controlplane' ? tail : undefined;
      },
    );
    const messages = mixed.problems.map((p) => `${p.severity}: ${p.message}`);
    expect(messages.some((m) => m.startsWith('error: plan/ holds Flux objects and 1 other object(s)'))).toBe(true);
    expect(messages.some((m) => m.startsWith('warning: orphan/ is applied by no Flux Kustomization'))).toBe(true);
    const missing = flatten([...PACKAGE, { path: 'plan/more.yaml', text: fluxKs('gone', 'target/gone') }], (p, produced) => {
      const tail = p.replace(/^\.\/sites\/s1\/out\/?/, '');
      return produced.has(tail) || tail === 'target/gone' ? tail : undefined;
    });
    expect(missing.problems.map((p) => p.message)).toContain(
      'Flux Kustomization/flux-system/gone applies ./sites/s1/out/target/gone, which the render does not produce: fix spec.path',
    );
  });

  it('gives an object at the package root or defined twice an error', () => {
    const r = flatten([
      { path: 'cm.yaml', text: cm('a') },
      { path: 'x/a.yaml', text: cm('b') },
      { path: 'x/b.yaml', text: cm('b') },
    ]);
    expect(r.problems.map((p) => p.message)).toEqual([
      'cm.yaml: ConfigMap/default/a is at the package root: put deployable objects in a folder (a phase entry point)',
      'x/b.yaml: ConfigMap/default/b is also in x/a.yaml: one object, one definition',
    ]);
  });
});

describe('baremetal-krm render', () => {
  it('builds with kubectl kustomize: the root gives only Flux objects, each Kustomization path only its phase', () => {
    const repo = join(tmp, 'repo');
    mkdirSync(join(repo, '.git'), { recursive: true });
    writePackage(join(repo, 'sites/s1/pkg'), PACKAGE);
    const r = renderSite({ site: join(repo, 'sites/s1/pkg'), out: join(repo, 'sites/s1/out'), noKpt: true, env: {}, log: () => {} });
    expect(r.problems).toEqual([]);
    const build = (p: string): string[] =>
      kinds(execFileSync('kubectl', ['kustomize', join(repo, 'sites/s1/out', p)], { encoding: 'utf8' }));
    expect(build('')).toEqual(['Kustomization/flux-system/cp', 'Kustomization/flux-system/ns', 'Kustomization/flux-system/workers']);
    expect(build('namespaces')).toEqual(['Namespace/infra']);
    expect(build('target/controlplane')).toEqual(['ConfigMap/infra/cp-1', 'ConfigMap/infra/cp-2']);
    expect(build('target/workers')).toEqual(['ConfigMap/infra/w-1', 'ConfigMap/other/w-1']);
  });

  it('is idempotent, prunes what is no longer produced, and refuses to write outside --out or over foreign files', () => {
    const site = join(tmp, 'idem/pkg');
    const dest = join(tmp, 'idem/out');
    writePackage(site, PACKAGE);
    const first = renderSite({ site, out: dest, noKpt: true, env: {}, log: () => {} });
    expect(first.summary!.written.length).toBeGreaterThan(0);
    const again = renderSite({ site, out: dest, noKpt: true, env: {}, log: () => {} });
    expect(again.summary).toEqual({ written: [], removed: [], unchanged: first.summary!.written.length });
    rmSync(join(site, 'target/workers'), { recursive: true });
    writeFileSync(join(site, 'plan/flux.yaml'), [fluxKs('ns', 'namespaces'), fluxKs('cp', 'target/controlplane', 'ns')].join('---\n'));
    const pruned = renderSite({ site, out: dest, noKpt: true, env: {}, log: () => {} });
    expect(pruned.summary!.removed).toContain('target/workers/configmap_infra_w-1.yaml');
    expect(existsSync(join(dest, 'target/workers'))).toBe(false);
    // not into the package, not over a folder of someone else's files, not through a link
    expect(() => renderSite({ site, out: join(site, 'rendered'), noKpt: true, env: {}, log: () => {} })).toThrow(/overlap/);
    const foreign = join(tmp, 'foreign');
    mkdirSync(foreign);
    writeFileSync(join(foreign, 'notes.txt'), 'mine');
    expect(() => writeTree(foreign, new Map([['a/x.yaml', 'x']]), RENDER_HEADER)).toThrow(WriteError);
    expect(readFileSync(join(foreign, 'notes.txt'), 'utf8')).toBe('mine');
    expect(() => writeTree(join(tmp, 'w1'), new Map([['../escape.yaml', 'x']]), RENDER_HEADER)).toThrow(/outside/);
    const linked = join(tmp, 'w2');
    writeTree(linked, new Map([['kustomization.yaml', RENDER_HEADER]]), RENDER_HEADER);
    symlinkSync(tmp, join(linked, 'link'));
    expect(() =>
      writeTree(
        linked,
        new Map([
          ['kustomization.yaml', RENDER_HEADER],
          ['link/x.yaml', 'x'],
        ]),
        RENDER_HEADER,
      ),
    ).toThrow(/symbolic link/);
    expect(existsSync(join(tmp, 'x.yaml'))).toBe(false);
  });

  it('writes nothing when a check fails', () => {
    const site = join(tmp, 'bad/pkg');
    writePackage(site, [...PACKAGE, { path: 'plan/extra.yaml', text: cm('x') }]);
    const r = renderSite({ site, out: join(tmp, 'bad/out'), noKpt: true, env: {}, log: () => {} });
    expect(r.summary).toBeUndefined();
    expect(existsSync(join(tmp, 'bad/out'))).toBe(false);
  });

  it('maps Flux paths through the Git repository, or by folder names outside one', () => {
    const repo = join(tmp, 'maprepo');
    mkdirSync(join(repo, '.git'), { recursive: true });
    const m = fluxPathMapper(join(repo, 'a/out'));
    expect(m('./a/out/hosts', new Set())).toBe('hosts');
    expect(m('./a/out', new Set())).toBe('');
    expect(m('./b/out/hosts', new Set())).toBeUndefined();
    const loose = fluxPathMapper(join(tmp, 'nogit/out'));
    expect(loose('./examples/x/out/hosts', new Set(['hosts']))).toBe('hosts');
    expect(loose('./examples/x/out', new Set())).toBe('');
    expect(loose('./examples/x/other', new Set(['hosts']))).toBeUndefined();
  });

  it('runs from the CLI (usage errors exit 2, a failed render 1)', () => {
    const cli = join(repoRoot, 'dist/baremetal-krm.cjs');
    const site = join(tmp, 'cli/pkg');
    writePackage(site, PACKAGE);
    const ok = spawnSync(process.execPath, [cli, 'render', site, '--out', join(tmp, 'cli/out'), '--no-kpt'], { encoding: 'utf8' });
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/8 object\(s\) \(2 local-config\/function item\(s\) dropped\); 13 file\(s\) written/);
    expect(spawnSync(process.execPath, [cli, 'render', site], { encoding: 'utf8' }).status).toBe(2);
    const noPkg = spawnSync(process.execPath, [cli, 'render', join(tmp, 'cli'), '--out', join(tmp, 'cli/o2'), '--no-kpt'], {
      encoding: 'utf8',
    });
    expect(noPkg.status).toBe(1);
    expect(noPkg.stderr).toContain('is not a kpt package (no Kptfile)');
  });

  it('reads a package as kpt does (dot-files skipped)', () => {
    const site = join(tmp, 'dot/pkg');
    writePackage(site, [...PACKAGE, { path: '.sops.yaml', text: 'creation_rules: []\n' }]);
    expect(packageFiles(site).map((f) => f.path)).not.toContain('.sops.yaml');
  });
});
