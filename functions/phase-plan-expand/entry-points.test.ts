/**
 * Entry points Flux must build: present in the package, no kustomize plugins (KRM functions,
 * exec plugins), and a clear result when phase-plan-expand cannot see them. Inline cases beside
 * the goldens (airshipctl-site-plugins, entrypoints-missing, entrypoints-rendered).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resourceList } from '../../test/golden.js';
import { airshipctlPackage } from '../../test/phase-plan/kpt-package.js';
import { runFunction, splitStream } from '../../src/krm/index.js';
import { definition } from './function.js';

const testdata = join(import.meta.dirname, 'testdata');
const read = (c: string, f: string) => readFileSync(join(testdata, c, f), 'utf8');

/** A document with its package path, as kpt passes it. */
function at(path: string, body: string): string {
  const line = `    config.kubernetes.io/path: ${path}\n`;
  if (body.includes('\n  annotations:\n')) return body.replace('\n  annotations:\n', `\n  annotations:\n${line}`);
  const ann = `  annotations:\n${line}`;
  return body.includes('\nmetadata:\n') ? body.replace('\nmetadata:\n', `\nmetadata:\n${ann}`) : `${body}metadata:\n${ann}`;
}

const bundle = (entry = 'hosts') => [
  at('phases/plan.yaml', 'apiVersion: airshipit.org/v1alpha1\nkind: PhasePlan\nmetadata:\n  name: site\nphases:\n- name: hosts\n'),
  at(
    'phases/phases.yaml',
    `apiVersion: airshipit.org/v1alpha1\nkind: Phase\nmetadata:\n  name: hosts\nconfig:\n  executorRef: {apiVersion: airshipit.org/v1alpha1, kind: KubernetesApply, name: apply}\n  documentEntryPoint: ${entry}\n`,
  ),
  at('phases/executors.yaml', 'apiVersion: airshipit.org/v1alpha1\nkind: KubernetesApply\nmetadata:\n  name: apply\nconfig: {}\n'),
];
const cfg = (spec: string) => `apiVersion: baremetal-krm.dev/v1alpha1\nkind: PhasePlanExpand\nmetadata:\n  name: x\nspec:\n${spec}`;

async function findings(docs: string[], spec = '  outputs: [flux]\n') {
  const r = await runFunction(definition, resourceList(docs, cfg(spec)));
  return { exit: r.exitCode, results: r.results.map((x) => `${x.severity} ${x.tags?.rule}: ${x.message}`) };
}

describe('entry points', () => {
  it('the golden inputs are the airshipctl fixtures as kpt hands them over (regenerate with test/phase-plan/kpt-package.ts)', () => {
    expect(read('airshipctl-site-plugins', 'input.yaml')).toBe(airshipctlPackage());
    expect(read('entrypoints-missing', 'input.yaml')).toBe(
      airshipctlPackage({
        without: ['manifests/site/test-site/ephemeral/initinfra', 'manifests/site/test-site/ephemeral/initinfra-networking'],
      }),
    );
  });

  it('a transformer that is a KRM function, an exec plugin or an inline function config is an error; builtin ones are not', async () => {
    const fn =
      'apiVersion: example.com/v1\nkind: Stamp\nmetadata:\n  name: s\n  annotations:\n    config.kubernetes.io/function: |\n      exec:\n        path: ./stamp\n';
    for (const [transformers, files, needle] of [
      ['[stamp.yaml]', [at('hosts/stamp.yaml', fn)], 'Stamp s (KRM function, exec ./stamp, in hosts/stamp.yaml)'],
      [
        '[legacy.yaml]',
        [at('hosts/legacy.yaml', 'apiVersion: someteam/v1\nkind: SecretsFromVault\nmetadata:\n  name: v\n')],
        'exec/Go plugin someteam/v1',
      ],
      [
        '["apiVersion: example.com/v1\\nkind: Inline\\nmetadata:\\n  name: i\\n  annotations:\\n    config.kubernetes.io/function: \\"container: {image: x}\\"\\n"]',
        [],
        'Inline i (KRM function',
      ],
    ] as const) {
      const k = at('hosts/kustomization.yaml', `resources: [bmh.yaml]\ntransformers: ${transformers}\n`);
      const r = await findings([...bundle(), k, at('hosts/bmh.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n'), ...files]);
      expect(r.exit).toBe(1);
      expect(
        r.results.find((x) => x.includes('phase/needs-plugins')),
        transformers,
      ).toContain(needle);
    }
    const builtin = at('hosts/kustomization.yaml', 'resources: [bmh.yaml]\ntransformers: [ns.yaml]\n');
    const ns = at('hosts/ns.yaml', 'apiVersion: builtin\nkind: NamespaceTransformer\nmetadata:\n  name: set-namespace\n  namespace: x\n');
    const r = await findings([...bundle(), builtin, ns, at('hosts/bmh.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n')]);
    expect(r).toEqual({ exit: 0, results: [] });
  });

  it('plugins in a resources folder count (kustomize builds it with its own plugins); remote references are not followed', async () => {
    const docs = [
      ...bundle(),
      at('hosts/kustomization.yaml', 'resources: [../base, github.com/example/repo//x?ref=v1]\n'),
      at('base/kustomization.yaml', 'resources: [cm.yaml]\ngenerators: [gen]\n'),
      at('base/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n'),
      at('base/gen/kustomization.yaml', 'resources: [t.yaml]\n'),
      at(
        'base/gen/t.yaml',
        'apiVersion: airshipit.org/v1alpha1\nkind: Templater\nmetadata:\n  name: t\n  annotations:\n    config.kubernetes.io/function: "container: {image: localhost/templater}"\n',
      ),
    ];
    const r = await findings(docs);
    expect(r.results).toEqual([expect.stringContaining('Templater t (KRM function, image localhost/templater, in base/gen/t.yaml)')]);
  });

  it('an entry point missing from the package is an error; one outside it, or a package not located in the source, is an info', async () => {
    const present = at('hosts/kustomization.yaml', 'resources: []\n');
    expect((await findings([...bundle('workers'), present])).results).toEqual([
      expect.stringMatching(
        /^info phase\/entrypoint-unchecked: .*entry point \.\/workers is not checked: no entry point of the bundle is in this package/,
      ),
    ]);
    expect((await findings([...bundle('workers'), present], '  packagePath: ""\n')).results).toEqual([
      expect.stringMatching(/^error phase\/entrypoint-missing: .*entry point \.\/workers is not in the package/),
    ]);
    expect((await findings([...bundle('workers'), present], '  packagePath: clusters/mgmt\n')).results).toEqual([
      expect.stringMatching(
        /^info phase\/entrypoint-unchecked: .*entry point \.\/workers is outside this package \(spec.packagePath "clusters\/mgmt"\)/,
      ),
    ]);
    // the package is a site folder: entry points relative to it, plugins of the type outside it
    const site = [
      ...bundle('sites/a/hosts'),
      at('hosts/kustomization.yaml', 'resources: [../../../type/hosts]\ntransformers: [../../../type/hosts/replacements]\n'),
    ];
    expect((await findings(site, '  packagePath: sites/a\n')).results).toEqual([
      expect.stringMatching(
        /^warning phase\/plugins-unchecked: .*uses plugins that are not in this package: transformers \.\.\/\.\.\/\.\.\/type\/hosts\/replacements \(in hosts\/kustomization.yaml\)/,
      ),
    ]);
  });

  it('a plain stream (no file paths) gets one info for the whole run', async () => {
    const plain = bundle().map((d) => d.replace(/ {2}annotations:\n {4}config\.kubernetes\.io\/path: .*\n/, ''));
    const r = await runFunction(definition, resourceList(splitStream(plain.join('---\n')), cfg('  outputs: [flux]\n')));
    expect(r.results.map((x) => x.tags?.rule)).toEqual(['phase/entrypoint-unchecked']);
    expect(r.results[0]!.message).toContain('the input carries no file paths');
  });
});
