/**
 * A function bundle on a folder instead of stdin and stdout, as `kpt fn source` and `kpt fn sink`
 * do it: `--source DIR` reads the folder's YAML files into a ResourceList (each item annotated
 * with its file and index), `--sink DIR` writes the output items back into files by those
 * annotations. This is how a bundle runs where no orchestrator is (a Job's container, a script):
 * the discovery CronJob's `discover` step (src/fleet/discovery.ts) uses it.
 *
 * What the sink keeps: a file whose documents read the same as before is not written (its bytes,
 * comments included, stay); files the source read and the output no longer holds are removed
 * when the sink is the source; nothing is written outside the folder or through a symbolic link,
 * and every path is checked before the first write.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { sameData } from './data.js';
import { loadYaml } from './fast-yaml.js';
import { ANN, KrmError, type KubeObject } from './kube-object.js';
import { readInput } from './resource-list.js';
import { indentItem, splitStream } from './scan.js';

export interface PackageFile {
  /** slash-separated, relative to the package folder */
  path: string;
  text: string;
}

/** The package's YAML files, as kpt reads them: dot-files and dot-folders skipped, in path order. */
export function packageFiles(dir: string): PackageFile[] {
  const out: PackageFile[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (e.name.startsWith('.')) continue;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && (/\.ya?ml$/.test(e.name) || e.name === 'Kptfile'))
        out.push({ path: relative(dir, p).split(sep).join('/'), text: readFileSync(p, 'utf8') });
    }
  };
  walk(dir);
  return out;
}

/** The annotations the source adds and the sink removes. */
const FILE_ANNOTATIONS = [ANN.path, ANN.index, ANN.internalPath, ANN.internalIndex] as const;

/** A ResourceList of the files' documents (each annotated with its file and index), and the functionConfig. */
export function sourceResourceList(files: readonly PackageFile[], functionConfig?: string): string {
  let items = '';
  for (const f of files) {
    const { items: docs } = readInput(f.text.replace(/^\ufeff/, ''));
    docs.forEach((o, index) => {
      o.setAnnotation(ANN.path, f.path);
      o.setAnnotation(ANN.index, String(index));
      o.setAnnotation(ANN.internalPath, f.path);
      o.setAnnotation(ANN.internalIndex, String(index));
      items += indentItem(o.documentText(), 0);
    });
  }
  let list = `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n${items ? `items:\n${items}` : 'items: []\n'}`;
  if (functionConfig?.trim()) list += `functionConfig:\n${indentBlock(functionConfig)}`;
  return list;
}

function indentBlock(text: string): string {
  return text
    .replace(/^\ufeff/, '')
    .replace(/^---[^\n]*\n/, '')
    .replace(/\n+$/, '')
    .split('\n')
    .map((l) => (l ? `  ${l}` : l))
    .join('\n')
    .concat('\n');
}

export interface SinkSummary {
  written: string[];
  removed: string[];
  unchanged: number;
}

/** Where an item goes: its file annotation, or `<kind>_<name>.yaml` as kpt names a new one. */
function targetOf(o: KubeObject): { path: string; index: number } {
  const f = o.file();
  if (f) return { path: f.path, index: f.index ?? Number.MAX_SAFE_INTEGER };
  return { path: `${o.kind.toLowerCase()}_${o.name}.yaml`, index: Number.MAX_SAFE_INTEGER };
}

function checkPath(root: string, path: string): string {
  const target = resolve(root, path);
  const rel = relative(root, target);
  if (isAbsolute(path) || rel === '' || rel.startsWith('..') || isAbsolute(rel))
    throw new KrmError(`an item's ${ANN.path} "${path}" is outside the sink folder: nothing written`);
  for (let d = dirname(target); d !== root; d = dirname(d))
    if (existsSync(d) && !lstatSync(d).isDirectory())
      throw new KrmError(`${relative(root, d)} in the sink folder is not a folder (a file or a link): nothing written`);
  if (existsSync(target) && !lstatSync(target).isFile())
    throw new KrmError(`${rel} in the sink folder is not a regular file (a link or a folder): nothing written`);
  return target;
}

/** The items with their file annotations removed (an annotations map left empty goes too), by file. */
function filesOf(items: readonly KubeObject[]): Map<string, string> {
  const byPath = new Map<string, { index: number; order: number; text: string }[]>();
  items.forEach((o, order) => {
    const { path, index } = targetOf(o);
    const had = Object.keys(o.annotations);
    for (const a of FILE_ANNOTATIONS) if (a in o.annotations) o.deleteAnnotation(a);
    if (had.length && Object.keys(o.annotations).length === 0) o.delete('metadata.annotations');
    const docs = byPath.get(path) ?? [];
    docs.push({ index, order, text: o.documentText() });
    byPath.set(path, docs);
  });
  const out = new Map<string, string>();
  for (const [path, docs] of byPath) {
    docs.sort((a, b) => a.index - b.index || a.order - b.order);
    out.set(path, docs.map((d) => d.text).join('---\n'));
  }
  return out;
}

/** Whether two files hold the same documents (read as data). */
function sameDocuments(a: string, b: string): boolean {
  const docs = (t: string): unknown[] => splitStream(t.replace(/^\ufeff/, '')).map((d) => loadYaml(d));
  try {
    const x = docs(a);
    const y = docs(b);
    return x.length === y.length && x.every((d, i) => sameData(d, y[i]));
  } catch {
    return false;
  }
}

/**
 * Writes the output items into `dir` by their file annotations. `sourced`: the files the source
 * read from this same folder (removed when no item is left in them), or none.
 */
export function sinkResourceList(dir: string, output: string, sourced: readonly PackageFile[] = []): SinkSummary {
  const root = resolve(dir);
  mkdirSync(root, { recursive: true });
  const realRoot = realpathSync(root);
  const files = filesOf(readInput(output).items);
  const plan = [...files].map(([path, text]) => ({ path, text, target: checkPath(realRoot, path) }));
  const summary: SinkSummary = { written: [], removed: [], unchanged: 0 };
  for (const { path, text, target } of plan) {
    const before = existsSync(target) ? readFileSync(target, 'utf8') : undefined;
    if (before !== undefined && (before === text || sameDocuments(before, text))) {
      summary.unchanged++;
      continue;
    }
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
    summary.written.push(path);
  }
  for (const f of sourced) {
    if (files.has(f.path)) continue;
    rmSync(checkPath(realRoot, f.path), { force: true });
    summary.removed.push(f.path);
  }
  return summary;
}
