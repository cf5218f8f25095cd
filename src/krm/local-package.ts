/**
 * A function bundle on a folder instead of stdin and stdout, as `kpt fn source` and `kpt fn sink`
 * do it: `--source DIR` reads the folder's YAML files into a ResourceList (each item annotated
 * with its file and index), `--sink DIR` writes the output items back into files by those
 * annotations. This is how a bundle runs where no orchestrator is (a Job's container, a script):
 * the discovery CronJob's `discover` step (src/fleet/discovery.ts) uses it.
 *
 * What the sink keeps: a document that reads the same as before keeps its bytes (and the comments
 * and separator above it); a changed one keeps the comments above it; a file whose documents all
 * read the same is not written (a `kind: List` file too: when one of its items changes, they are
 * written as documents, as kpt's sink writes them); files the source read items from and the
 * output no longer holds are removed when the sink is the source (files without documents stay).
 * Nothing is written outside the folder or through a link, and every path is checked before the
 * first write.
 */
import {
  accessSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type Ignore from 'ignore';
import { lazy } from './lazy.js';
import { sameData } from './data.js';
import { blockedParent, isPresent, targetInside } from './file-target.js';
import { decodeYamlText } from './input-bytes.js';
import { ANN, KrmError, type KubeObject } from './kube-object.js';
import { readInput } from './resource-list.js';
import { indentItem } from './scan.js';

export interface PackageFile {
  /** slash-separated, relative to the package folder */
  path: string;
  text: string;
}

/** The `ignore` package (.krmignore), set up on first use: a run on stdin reads no package folder. */
const ignoreLib = lazy(() => require('ignore') as typeof Ignore, 'ignore', import.meta.url);

const byName = (a: { name: string }, b: { name: string }): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The package's YAML files and its Kptfile, as kpt reads them: dot-files and dot-folders skipped,
 * and what the package's `.krmignore` (gitignore syntax) names; in path order. A file that is not
 * UTF-8, or holds a character YAML does not allow (a NUL), is an error naming it.
 */
export function packageFiles(dir: string): PackageFile[] {
  const krmignore = join(dir, '.krmignore');
  const ignored = ignoreLib()().add(existsSync(krmignore) ? readFileSync(krmignore, 'utf8') : '');
  const out: PackageFile[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort(byName)) {
      if (e.name.startsWith('.')) continue;
      const p = join(d, e.name);
      const rel = relative(dir, p).split(sep).join('/');
      if (ignored.ignores(e.isDirectory() ? `${rel}/` : rel)) continue;
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && (/\.ya?ml$/.test(e.name) || e.name === 'Kptfile'))
        out.push({ path: rel, text: decodeYamlText(readFileSync(p), rel) });
    }
  };
  walk(dir);
  return out;
}

/** The annotations the source adds and the sink removes. */
const FILE_ANNOTATIONS: readonly string[] = [ANN.path, ANN.index, ANN.internalPath, ANN.internalIndex];

/** Runs `read` on a file's text: what does not read is an error naming the file. */
function inFile<T>(f: PackageFile, read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof KrmError && !e.message.startsWith(`${f.path}: `)) throw new KrmError(`${f.path}: ${e.message}`);
    throw e;
  }
}

/** A file's documents as the runtime reads them. */
function documentsOf(f: PackageFile): { items: KubeObject[]; tail: string } {
  return inFile(f, () => {
    const p = readInput(f.text.replace(/^\ufeff/, ''));
    return { items: p.items, tail: p.layout.kind === 'stream' ? p.layout.tail : '' };
  });
}

/** The key of a document in `documentLines`: its file and index. */
export function documentKey(path: string, index: number): string {
  return `${path}\u0000${index}`;
}

/**
 * A ResourceList of the files' documents (each annotated with its file and index), and the
 * functionConfig. `documentLines`, when given, gets the line each document starts on in its file
 * (by `documentKey`), for the documents whose text in the list is theirs plus the annotation
 * lines (not those the annotations made the YAML library write anew): a result's line in the
 * list is then a line in the file (KubeObject.fileLine).
 */
export function sourceResourceList(files: readonly PackageFile[], functionConfig?: string, documentLines?: Map<string, number>): string {
  let items = '';
  for (const f of files)
    inFile(f, () =>
      documentsOf(f).items.forEach((o, index) => {
        // a document with file annotations of its own keeps their lines (values replaced in place): which lines
        // the source added is then not what the function can tell (results.ts), so it gets no line, not a wrong one
        const own = FILE_ANNOTATIONS.some((a) => a in o.annotations);
        o.setAnnotation(ANN.path, f.path);
        o.setAnnotation(ANN.index, String(index));
        o.setAnnotation(ANN.internalPath, f.path);
        o.setAnnotation(ANN.internalIndex, String(index));
        if (documentLines && o.sourceLine !== undefined && o.rewriteNote === undefined && !own)
          documentLines.set(documentKey(f.path, index), o.sourceLine);
        items += indentItem(o.documentText(), 0);
      }),
    );
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

/** A document of a file the source read: its bytes, what was above it, and its data. */
interface Original {
  lead: string;
  text: string;
  data: () => Record<string, unknown>;
}

/** A file the source read: its documents, the text after the last one, whether it had a BOM, and its text. */
interface SourcedFile {
  docs: Original[];
  tail: string;
  bom: boolean;
  text: string;
}

/** The sourced files by path, each read once (for their bytes, and for what prune removes). */
function sourcedByPath(sourced: readonly PackageFile[]): Map<string, SourcedFile> {
  const out = new Map<string, SourcedFile>();
  for (const f of sourced) {
    const { items, tail } = documentsOf(f);
    const docs = items.map((o) => ({ lead: o.lead, text: o.documentText(), data: () => o.data }));
    out.set(f.path, { docs, tail, bom: f.text.startsWith('\ufeff'), text: f.text });
  }
  return out;
}

/** Where an item goes: its file annotation, or `<kind>_<name>.yaml` as kpt names a new one. */
function targetOf(o: KubeObject): { path: string; index?: number } {
  const f = o.file();
  if (f) return f;
  return { path: `${o.kind.toLowerCase()}_${o.name}.yaml` };
}

/** The item's data without the file annotations (and without what they alone made: empty maps the original lacks). */
function withoutFileAnnotations(data: Record<string, unknown>, original: Record<string, unknown> | undefined): unknown {
  const own = annotationsOf(data);
  if (!own || !FILE_ANNOTATIONS.some((a) => a in own)) return data; // nothing to take out (an original, mostly): no copy
  const copy = structuredClone(data);
  const meta = copy.metadata as Record<string, unknown>;
  const ann = meta.annotations as Record<string, unknown>;
  for (const a of FILE_ANNOTATIONS) delete ann[a];
  const had = original?.metadata as Record<string, unknown> | null | undefined;
  // what the file annotations alone made goes: a map the original lacked, or held as null (`annotations:`, `metadata: ~`)
  if (Object.keys(ann).length === 0) {
    if (had && had.annotations === null) meta.annotations = null;
    else if (!(had && 'annotations' in had)) delete meta.annotations;
  }
  if (Object.keys(meta).length === 0) {
    if (original && original.metadata === null) copy.metadata = null;
    else if (!(original && 'metadata' in original)) delete copy.metadata;
  }
  return copy;
}

/**
 * A changed item's text, its file annotations removed in place (and the maps they alone made);
 * one the document had in its file (hand-written) gets its value back.
 */
function changedText(o: KubeObject, original: Record<string, unknown> | undefined): string {
  const had = annotationsOf(original);
  for (const a of FILE_ANNOTATIONS) {
    const own = had?.[a];
    if (own !== undefined) o.set(['metadata', 'annotations', a], own);
    else if (a in o.annotations) o.deleteAnnotation(a);
  }
  const hadMeta = original?.metadata as Record<string, unknown> | undefined;
  const meta = o.get('metadata') as Record<string, unknown> | undefined;
  if (meta && Object.keys(o.annotations).length === 0 && 'annotations' in meta && !(hadMeta && 'annotations' in hadMeta))
    o.delete('metadata.annotations');
  const after = o.get('metadata') as Record<string, unknown> | undefined;
  if (after && Object.keys(after).length === 0 && !(original && 'metadata' in original)) o.delete('metadata');
  return o.documentText();
}

function annotationsOf(data: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const ann = (data?.metadata as Record<string, unknown> | undefined)?.annotations;
  return ann !== null && typeof ann === 'object' && !Array.isArray(ann) ? (ann as Record<string, unknown>) : undefined;
}

/** Each file's new text, from the output items (a document that reads the same keeps its bytes). */
function filesOf(items: readonly KubeObject[], sourced: ReadonlyMap<string, SourcedFile>): Map<string, string> {
  const byPath = new Map<string, { index: number; order: number; lead?: string; text: string; same: boolean }[]>();
  items.forEach((o, order) => {
    const { path, index } = targetOf(o);
    const original = index === undefined ? undefined : sourced.get(path)?.docs[index];
    const originalData = original?.data();
    // the file annotations on both sides aside: a document may carry its own (hand-written), which the source replaced
    const same =
      original !== undefined && sameData(withoutFileAnnotations(o.data, originalData), withoutFileAnnotations(originalData!, originalData));
    const text = same ? original.text : changedText(o, originalData);
    const list = byPath.get(path) ?? [];
    list.push({ index: index ?? Number.MAX_SAFE_INTEGER, order, lead: original?.lead, text, same });
    byPath.set(path, list);
  });
  const out = new Map<string, string>();
  for (const [path, list] of byPath) {
    list.sort((a, b) => a.index - b.index || a.order - b.order);
    const file = sourced.get(path);
    // every item of the file as it was, in its order: the file as it was (a `kind: List` file too)
    if (file && list.length === file.docs.length && list.every((d, i) => d.same && d.index === i)) {
      out.set(path, file.text);
      continue;
    }
    // each item a document of its own (a `kind: List` file's items too, as kpt's sink writes them), separated
    const text = list.map((d, i) => (i > 0 && !SEPARATED.test(d.lead ?? '') ? '---\n' : '') + (d.lead ?? '') + d.text).join('');
    out.set(path, (file?.bom ? '\ufeff' : '') + text + (file?.tail ?? ''));
  }
  return out;
}

/** A `---` (or `...`) line in what stands above a document: it is separated from the one before. */
const SEPARATED = /(?:^|[\n\r])(?:---|\.\.\.)(?:[ \t\r\n]|$)/;

/** Checks a path of the sink before anything is written: inside, not through a link, writable. */
function checkPath(root: string, path: string): string {
  const inside = targetInside(root, path);
  if ('problem' in inside)
    throw new KrmError(
      inside.problem === 'unusable name'
        ? `an item's ${ANN.path} "${JSON.stringify(path).slice(1, -1)}" is not a usable file name: nothing written`
        : `an item's ${ANN.path} "${path}" is outside the sink folder: nothing written`,
    );
  const { target } = inside;
  const rel = relative(root, target);
  const blocked = blockedParent(root, target);
  if (blocked) throw new KrmError(`${relative(root, blocked)} in the sink folder is not a folder (a file or a link): nothing written`);
  const writable = (p: string): boolean => {
    try {
      accessSync(p, constants.W_OK);
      return true;
    } catch {
      return false;
    }
  };
  let d = dirname(target);
  for (; d !== root && !existsSync(d); d = dirname(d));
  if (isPresent(target)) {
    if (!lstatSync(target).isFile())
      throw new KrmError(`${rel} in the sink folder is not a regular file (a link or a folder): nothing written`);
    if (!writable(target)) throw new KrmError(`${rel} in the sink folder cannot be written (permissions): nothing written`);
  } else if (!writable(d))
    throw new KrmError(`${relative(root, d) || '.'} in the sink folder cannot be written (permissions): nothing written`);
  return target;
}

/** Two output files where one is a folder of the other (`d` and `d/x.yaml`). */
function checkNoFileIsAFolder(paths: readonly string[]): void {
  const files = new Set(paths);
  for (const p of paths)
    for (let d = p.lastIndexOf('/'); d > 0; d = p.lastIndexOf('/', d - 1))
      if (files.has(p.slice(0, d)))
        throw new KrmError(`items go to both ${p.slice(0, d)} and ${p}: a file cannot be a folder too; nothing written`);
}

function writeFile(root: string, path: string, target: string, text: string): void {
  try {
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
  } catch (e) {
    throw new KrmError(`${path}: cannot write it (${(e as NodeJS.ErrnoException).code ?? 'error'}) in ${root}`);
  }
}

/**
 * Writes the output items into `dir` by their file annotations. `sourced`: the files the source
 * read (their documents keep their bytes where unchanged); `prune`: remove those of them the
 * output holds nothing of (the sink is the source).
 */
export function sinkResourceList(dir: string, output: string, sourced: readonly PackageFile[] = [], prune = false): SinkSummary {
  const root = resolve(dir);
  mkdirSync(root, { recursive: true });
  const realRoot = realpathSync(root);
  const read = sourcedByPath(sourced);
  const files = filesOf(readInput(output).items, read);
  checkNoFileIsAFolder([...files.keys()]);
  const plan = [...files].map(([path, text]) => ({ path, text, target: checkPath(realRoot, path) }));
  const gone = prune ? sourced.filter((f) => !files.has(f.path) && read.get(f.path)!.docs.length > 0) : [];
  const removals = gone.map((f) => ({ path: f.path, target: checkPath(realRoot, f.path) }));
  const summary: SinkSummary = { written: [], removed: [], unchanged: 0 };
  for (const { path, text, target } of plan) {
    if (existsSync(target) && readFileSync(target, 'utf8') === text) {
      summary.unchanged++;
      continue;
    }
    writeFile(realRoot, path, target, text);
    summary.written.push(path);
  }
  for (const { path, target } of removals) {
    rmSync(target, { force: true });
    summary.removed.push(path);
  }
  return summary;
}
