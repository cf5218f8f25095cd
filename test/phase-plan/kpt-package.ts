/**
 * A folder of YAML files as `kpt fn render` hands it to a function: one item per document, with
 * `config.kubernetes.io/path` and `config.kubernetes.io/index` (kustomization.yaml files too,
 * with or without apiVersion and kind). Used to build golden inputs from the airshipctl
 * fixtures, shaped like a real Airship site, and to check they stay true to them.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { EMIT_OPTIONS } from '../../src/krm/index.js';

export const airshipctlFixtures = join(import.meta.dirname, '../../../shared/fixtures/airship/airshipctl');

/** Every `.yaml` file below `root`, relative and sorted. */
function yamlFilesBelow(root: string, dir = root): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...yamlFilesBelow(root, p));
    else if (e.endsWith('.yaml')) out.push(relative(root, p));
  }
  return out;
}

/** The documents of `files` (relative to `root`) that `keep` accepts, as a kpt-annotated YAML stream. */
function packageStream(root: string, files: string[], keep: (doc: Record<string, unknown>, file: string) => boolean): string {
  const docs: string[] = [];
  for (const file of files) {
    const parsed = parseAllDocuments(readFileSync(join(root, file), 'utf8'));
    let index = 0;
    for (const d of parsed) {
      const data = d.toJS() as Record<string, unknown> | null;
      if (!data || typeof data !== 'object') continue;
      const i = index++;
      if (!keep(data, file)) continue;
      d.setIn(['metadata', 'annotations', 'config.kubernetes.io/path'], file);
      d.setIn(['metadata', 'annotations', 'config.kubernetes.io/index'], String(i));
      docs.push(d.toString(EMIT_OPTIONS));
    }
  }
  return docs.join('---\n');
}

const BUNDLE_KINDS = new Set([
  'Phase',
  'PhasePlan',
  'ClusterMap',
  'ManifestMetadata',
  'KubernetesApply',
  'Clusterctl',
  'GenericContainer',
  'BaremetalManager',
  'BootConfiguration',
]);

/**
 * What a phase-plan-expand run on the airshipctl repository needs to see: the phase bundle,
 * every kustomization file and every plugin config (airshipctl's Templater and
 * ReplacementTransformer, kustomize's builtin transformers). The other resources (CRDs,
 * catalogues, kubeconfigs, encrypted Secrets) are left out: they carry credentials and change
 * nothing here.
 */
export function airshipctlPackage(opts: { without?: string[] } = {}): string {
  const files = yamlFilesBelow(airshipctlFixtures, join(airshipctlFixtures, 'manifests')).filter(
    (f) => !(opts.without ?? []).some((w) => f.startsWith(w + '/')) && !f.endsWith('manifests/phases/plan.yaml'),
  );
  return packageStream(airshipctlFixtures, files, (doc, file) => {
    if (/(^|\/)kustomization\.yaml$/.test(file)) return true;
    const md = (doc.metadata ?? {}) as { annotations?: Record<string, string> };
    if (doc.apiVersion === 'builtin' || md.annotations?.['config.kubernetes.io/function']) return true;
    return String(doc.apiVersion ?? '').startsWith('airshipit.org/') && BUNDLE_KINDS.has(String(doc.kind));
  });
}
