/** What this function's tests share: running it on documents, reading fixtures and outputs. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { runFunction } from '../../src/krm/index.js';
import { itemsStream, repoRoot, resourceList } from '../../test/golden.js';
import { definition } from './function.js';

export const testdata = join(import.meta.dirname, 'testdata');
export const fixtures = join(repoRoot, '../shared/fixtures');
const airship = join(fixtures, 'airship/airshipctl/manifests');

export type Doc = Record<string, unknown>;
const LOCATION = /^(internal\.)?config\.kubernetes\.io\/(path|index)$/;

export interface Run {
  items: string;
  docs: Doc[];
  results: { severity: string; message: string; field?: { path: string }; tags?: Record<string, string> }[];
  exitCode: number;
}

export function docs(stream: string): Doc[] {
  return parseAllDocuments(stream, { version: '1.1' })
    .map((d) => d.toJS() as Doc)
    .filter((d) => d && typeof d === 'object');
}

/** A file of airshipctl's manifests (../shared/fixtures/airship/airshipctl/manifests). */
export function fixture(rel: string): string {
  return readFileSync(join(airship, rel), 'utf8');
}

/** A file of a golden case. */
export function caseFile(name: string, file: string): string {
  return readFileSync(join(testdata, name, file), 'utf8');
}

/** Runs the function on documents with `spec` (YAML under `spec:`) as its functionConfig. */
export async function run(input: string[], spec?: string): Promise<Run> {
  const config =
    spec === undefined
      ? undefined
      : `apiVersion: baremetal-krm.dev/v1alpha1\nkind: SiteFromCatalogue\nmetadata:\n  name: t\nspec:\n${spec.replace(/^/gm, '  ')}\n`;
  return runConfig(input, config);
}

/** Runs the function on documents with a whole functionConfig document (or none). */
export async function runConfig(input: string[], config?: string): Promise<Run> {
  const r = await runFunction(definition, resourceList(input, config));
  const items = itemsStream(r.output);
  return { items, docs: docs(items), results: r.results, exitCode: r.exitCode };
}

/** An item without the annotations that say where it is and who wrote it. */
export function withoutLocation(d: Doc): Doc {
  const md = { ...(d.metadata as Doc) };
  const ann = Object.fromEntries(
    Object.entries((md.annotations as Record<string, string>) ?? {}).filter(
      ([k]) => !LOCATION.test(k) && k !== 'baremetal-krm.dev/generated-by',
    ),
  );
  md.annotations = ann;
  return { ...d, metadata: md };
}

/** test-site's catalogues as airshipctl merges them: base, gating type, site patch, hosts. */
export const testSiteCatalogues = [
  fixture('function/airshipctl-base-catalogues/networking.yaml'),
  fixture('type/gating/shared/catalogues/networking.yaml'),
  fixture('site/test-site/target/catalogues/shareable/networking.yaml'),
  fixture('site/test-site/target/catalogues/shareable/hosts.yaml'),
];

export const generated = (ds: Doc[]) => ds.filter((d) => d.kind === 'BareMetalHost' || d.kind === 'Secret');

/** The item's file. */
export function pathOf(d: Doc): string | undefined {
  return ((d.metadata as Doc | undefined)?.annotations as Record<string, string> | undefined)?.['config.kubernetes.io/path'];
}
