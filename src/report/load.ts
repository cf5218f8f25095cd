/**
 * Loading a site: a folder of rendered YAML (read recursively, sorted), a single rendered YAML
 * file or stream, or a kustomization (a folder with kustomization.yaml, also a kpt package with
 * one) built first with `kubectl kustomize`. Each document becomes a KubeObject; its file is
 * remembered (relative to the site) so the report can say where a certificate lives.
 */
import { existsSync, lstatSync, readdirSync, statSync } from 'node:fs';
import { basename, extname, join, relative, resolve } from 'node:path';
import { formatLine, type HeaderProblem, KrmError, type KubeObject, sameData } from '../krm/index.js';
import { type FileObject, fileObjects, filesUnder, readRegularFile } from '../cli/files.js';
import { followFluxPaths } from '../gitops/flux-paths.js';
import { redactToolOutput } from '../secrets/redact.js';

export interface Site {
  name: string;
  /** the path as given */
  source: string;
  /** how it was read */
  mode: 'folder' | 'file' | 'kustomize';
  objects: KubeObject[];
  /** object -> file relative to the site (absent for kustomize output) */
  files: Map<KubeObject, string>;
  /** documents that are not KRM objects, do not parse or whose identity cannot be read, and files not read, as `file:line: message` */
  skipped: string[];
  /** input errors (documents not read: bad YAML, not UTF-8, too large, a wrong header): errors for `--fail-on errors` */
  unreadable: number;
  /** files not read because they are no regular file (a FIFO, a device): a report notes them, a plan cannot be made without them */
  specialFiles?: number;
  /** what the reader merged or could not merge (identical copies counted once, conflicting copies), and errors in objects it keeps (a label of the wrong type) */
  notes: string[];
}

export class SiteError extends Error {}

const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

function listYaml(dir: string, out: string[]): void {
  filesUnder(dir, (e) => /\.ya?ml$/i.test(e) && !KUSTOMIZATION_FILES.includes(e), out);
}

/** A site's file as the command line reaches it (the site folder joined with the file), for messages. */
function shownPath(site: Site, file: string | undefined): string {
  if (file === undefined || site.mode !== 'folder') return site.source;
  return join(site.source, file).split('\\').join('/');
}

/** A skipped document or file as one line; `unreadable` ones are errors (and count for `--fail-on errors`). */
function skip(site: Site, file: string | undefined, line: number | undefined, message: string, unreadable = false): void {
  const severity = unreadable ? 'error' : 'warning';
  site.skipped.push(formatLine({ file: shownPath(site, file), line, severity, message: `skipped: ${message}`, rule: 'input' }));
  if (unreadable) site.unreadable++;
}

/** An input error in an object the report keeps (a label of the wrong type): an error, counted for `--fail-on errors`. */
function inputError(site: Site, file: string | undefined, line: number | undefined, message: string): void {
  site.notes.push(formatLine({ file: shownPath(site, file), line, severity: 'error', message, rule: 'input' }));
  site.unreadable++;
}

/** The items of a file's text (ResourceList and List files unwrapped), as the functions read them. */
function addStream(site: Site, text: string, file: string | undefined, lazy: boolean): void {
  let items: FileObject[];
  try {
    items = fileObjects(shownPath(site, file), text);
  } catch (e) {
    if (!(e instanceof KrmError)) throw e;
    skip(site, file, undefined, e.message, true);
    return;
  }
  for (const { object: o, line } of items) {
    let problems: readonly HeaderProblem[];
    try {
      // parse now: a broken document is reported once, here, not deep inside a rule (lazy
      // readers, the plan, parse only what they compare and then say which document is broken)
      if (!lazy) void o.data;
      problems = o.headerProblems;
    } catch (e) {
      if (!(e instanceof KrmError)) throw e;
      const msg = e.message.split('\n')[0]!;
      const notMapping = / is not a mapping \((.*?)\)/.exec(msg);
      if (notMapping) skip(site, file, line, `not a KRM object (not a mapping: ${notMapping[1]})`);
      else skip(site, file, line, `does not parse as YAML (${msg})`, true);
      continue;
    }
    // a wrong header is an error (counted for --fail-on errors); an item whose identity it leaves unknown is skipped
    for (const p of problems) {
      if (o.identityKnown) inputError(site, file, o.lineOf(p.path) ?? line, o.headerMessage(p));
      else skip(site, file, o.lineOf(p.path) ?? line, o.headerMessage(p), true);
    }
    if (!o.identityKnown) continue;
    if (!o.kind || !o.apiVersion) {
      skip(site, file, line, 'not a KRM object (no apiVersion/kind)');
      continue;
    }
    if (o.isKptfile()) continue;
    site.objects.push(o);
    if (file) site.files.set(o, file);
  }
}

/** Reads one file of a site: special files and unreadable ones are noted, not fatal. */
function addFile(site: Site, path: string, rel: string, lazy: boolean): void {
  let r: ReturnType<typeof readRegularFile>;
  try {
    r = readRegularFile(path);
  } catch (e) {
    if (!(e instanceof KrmError)) throw e;
    skip(site, rel, undefined, e.message, true);
    return;
  }
  if ('skip' in r) {
    skip(site, rel, undefined, `${r.skip}, not a regular file: not read`);
    site.specialFiles = (site.specialFiles ?? 0) + 1;
  } else addStream(site, r.text, rel, lazy);
}

/** Runs `kubectl kustomize DIR` (KUBECTL overrides the binary). */
function kustomize(dir: string): string {
  const bin = process.env.KUBECTL || 'kubectl';
  // node:child_process on first use: loading it (with net and stream) costs every CLI start ~10 ms
  const r = process.getBuiltinModule('node:child_process').spawnSync(bin, ['kustomize', dir], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.error)
    throw new SiteError(
      `cannot run "${bin} kustomize ${dir}" (${r.error.message}): install kubectl, set KUBECTL, or pass the rendered YAML instead`,
    );
  if (r.status !== 0)
    throw new SiteError(`"${bin} kustomize ${dir}" failed: ${redactToolOutput(r.stderr.trim().split('\n').slice(-3).join(' | '))}`);
  return r.stdout;
}

/** `name=path` names a site; otherwise the name is the folder or file name (without .yaml). */
export function parseSiteArg(arg: string): { name: string; path: string } {
  const eq = arg.indexOf('=');
  if (eq > 0 && !arg.slice(0, eq).includes('/')) return { name: arg.slice(0, eq), path: arg.slice(eq + 1) };
  const clean = arg.replace(/\/+$/, '');
  const base = basename(resolve(clean));
  return { name: base.replace(/\.(ya?ml|json)$/i, ''), path: arg };
}

/** A file-system error while reading a site, as a SiteError naming the file and the fix. */
function fsError(name: string, path: string, e: unknown): SiteError {
  const err = e as NodeJS.ErrnoException;
  const file = err.path ?? path;
  let link = false;
  try {
    link = lstatSync(file).isSymbolicLink();
  } catch {
    // not there at all
  }
  const why =
    err.code === 'ENOENT' && link
      ? 'a broken symbolic link'
      : err.code === 'EACCES' || err.code === 'EPERM'
        ? 'permission denied'
        : (err.message ?? String(e)).split('\n')[0];
  return new SiteError(`site ${name}: cannot read ${file} (${why}): fix or remove it, or pass the rendered YAML elsewhere`);
}

export function loadSite(name: string, path: string, opts: { lazy?: boolean } = {}): Site {
  try {
    return loadSiteUnchecked(name, path, opts.lazy ?? false);
  } catch (e) {
    if (e instanceof SiteError) throw e;
    if (e && typeof e === 'object' && 'code' in e) throw fsError(name, path, e);
    throw e;
  }
}

function loadSiteUnchecked(name: string, path: string, lazy: boolean): Site {
  if (!existsSync(path))
    throw new SiteError(`site ${name}: ${path} does not exist: pass a folder of rendered YAML, a YAML file or a kustomization folder`);
  const site: Site = { name, source: path, mode: 'file', objects: [], files: new Map(), skipped: [], unreadable: 0, notes: [] };
  const st = statSync(path);
  if (st.isDirectory()) {
    if (KUSTOMIZATION_FILES.some((f) => existsSync(join(path, f)))) {
      site.mode = 'kustomize';
      // a rendered root applies its phases through Flux Kustomizations: follow them (what Flux applies)
      followFluxPaths(path, (dir) => {
        const before = site.objects.length;
        addStream(site, kustomize(dir), undefined, lazy);
        return site.objects.slice(before);
      });
      siteRootCheck(site, path);
    } else {
      site.mode = 'folder';
      const files: string[] = [];
      listYaml(path, files);
      if (files.length === 0) throw new SiteError(`site ${name}: ${path} holds no .yaml/.yml file`);
      for (const f of files) addFile(site, f, relative(path, f).split('\\').join('/'), lazy);
    }
  } else {
    if (!['.yaml', '.yml', '.json'].includes(extname(path).toLowerCase()))
      throw new SiteError(`site ${name}: ${path} is not a .yaml/.yml file`);
    addFile(site, path, basename(path), lazy);
  }
  mergeCopies(site);
  return site;
}

/**
 * The same object in two files of one site (a host generated into two phase folders) is one
 * object: identical copies are counted once. Copies that differ are kept (intent-validate's
 * duplicate rule names them) and said.
 */
function mergeCopies(site: Site): void {
  const seen = new Map<string, KubeObject>();
  const kept: KubeObject[] = [];
  const where = (o: KubeObject): string => `${shownPath(site, site.files.get(o))}:${o.sourceLine ?? 1}`;
  const note = (o: KubeObject, message: string): void => {
    site.notes.push(
      formatLine({ file: shownPath(site, site.files.get(o)), line: o.sourceLine ?? 1, severity: 'info', message, rule: 'duplicate' }),
    );
  };
  for (const o of site.objects) {
    const key = `${o.group}|${o.kind}|${o.namespace ?? ''}|${o.name}`;
    const first = seen.get(key);
    if (!first) {
      seen.set(key, o);
      kept.push(o);
    } else if (first.body === o.body || sameData(first.data, o.data)) {
      note(o, `${o.id} is identical to the copy at ${where(first)}: counted once`);
      site.files.delete(o);
    } else {
      note(o, `${o.id} differs from the copy at ${where(first)}: both are kept; make them one`);
      kept.push(o);
    }
  }
  site.objects = kept;
}

/** Folders under `dir` (two levels) that hold a kustomization: the phase entry points of a site. */
function entryPoints(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, depth: number): void => {
    for (const e of readdirSync(d).sort()) {
      const p = join(d, e);
      if (e.startsWith('.') || !statSync(p).isDirectory()) continue;
      if (KUSTOMIZATION_FILES.some((f) => existsSync(join(p, f)))) out.push(relative(dir, p).split('\\').join('/'));
      if (depth < 2) walk(p, depth + 1);
    }
  };
  walk(dir, 1);
  return out;
}

/**
 * An airshipctl site root: its kustomization lists only metadata.yaml, so it builds one
 * ManifestMetadata and none of the site's manifests. Said, with the entry points to use instead.
 */
function siteRootCheck(site: Site, dir: string): void {
  if (site.objects.length === 0 || !site.objects.every((o) => o.kind === 'ManifestMetadata' && o.group === 'airshipit.org')) return;
  const phases = site.objects[0]!.get('spec.phase.path');
  const points = entryPoints(dir);
  throw new SiteError(
    [
      `site ${site.name}: ${dir} is an airshipctl site root: its kustomization builds only ManifestMetadata`,
      typeof phases === 'string' ? ` (the phases are in ${phases})` : '',
      ", none of the site's manifests. Pass the rendered output of its phases, or phase entry points",
      points.length ? ` such as ${points.map((p) => join(dir, p)).join(', ')}` : '',
      ' (NAME=PATH names them as one site each)',
    ].join(''),
  );
}
