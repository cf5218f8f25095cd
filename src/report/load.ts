/**
 * Loading a site: a folder of rendered YAML (read recursively, sorted), a single rendered YAML
 * file or stream, or a kustomization (a folder with kustomization.yaml, also a kpt package with
 * one) built first with `kubectl kustomize`. Each document becomes a KubeObject; its file is
 * remembered (relative to the site) so the report can say where a certificate lives.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, extname, join, relative, resolve } from 'node:path';
import { KrmError, type KubeObject } from '../krm/index.js';
import { fileObjects, readRegularFile } from '../cli/files.js';

export interface Site {
  name: string;
  /** the path as given */
  source: string;
  /** how it was read */
  mode: 'folder' | 'file' | 'kustomize';
  objects: KubeObject[];
  /** object -> file relative to the site (absent for kustomize output) */
  files: Map<KubeObject, string>;
  /** documents that are not KRM objects or do not parse, and files not read, as `file:line: message` */
  skipped: string[];
  /** how many of `skipped` could not be read (bad YAML, not UTF-8, too large): errors for `--fail-on errors` */
  unreadable: number;
}

export class SiteError extends Error {}

const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

function listYaml(dir: string, root: string, out: string[], seen = new Set<string>()): void {
  const real = realpathSync(dir);
  if (seen.has(real)) return; // a link back up: each folder once
  seen.add(real);
  for (const e of readdirSync(dir).sort()) {
    if (e.startsWith('.') || e === 'node_modules') continue;
    const p = join(dir, e);
    const st = statSync(p);
    if (st.isDirectory()) listYaml(p, root, out, seen);
    else if (/\.ya?ml$/i.test(e) && !KUSTOMIZATION_FILES.includes(e)) out.push(p);
  }
}

function addStream(site: Site, text: string, file: string | undefined): void {
  let items: ReturnType<typeof fileObjects>;
  try {
    items = fileObjects(file ?? site.source, text);
  } catch (e) {
    if (!(e instanceof KrmError)) throw e;
    site.skipped.push(`${file ?? site.source}: ${e.message}`);
    site.unreadable++;
    return;
  }
  for (const { object: o, line } of items) {
    const where = `${file ?? site.source}:${line}`;
    try {
      // parse now: a broken document is reported once, here, not deep inside a rule
      void o.data;
    } catch (e) {
      if (!(e instanceof KrmError)) throw e;
      const msg = e.message.split('\n')[0]!;
      if (/ is not a mapping /.test(msg))
        site.skipped.push(`${where}: not a KRM object (${msg.replace(/^.* is not a mapping \((.*?)\).*$/, 'not a mapping: $1')})`);
      else {
        site.skipped.push(`${where}: does not parse as YAML (${msg})`);
        site.unreadable++;
      }
      continue;
    }
    if (!o.kind || !o.apiVersion) {
      site.skipped.push(`${where}: not a KRM object (no apiVersion/kind)`);
      continue;
    }
    if (o.isKptfile()) continue;
    site.objects.push(o);
    if (file) site.files.set(o, file);
  }
}

/** Reads one file of a site: special files and unreadable ones are noted, not fatal. */
function addFile(site: Site, path: string, rel: string): void {
  let r: ReturnType<typeof readRegularFile>;
  try {
    r = readRegularFile(path);
  } catch (e) {
    if (!(e instanceof KrmError)) throw e;
    site.skipped.push(`${rel}: ${e.message}`);
    site.unreadable++;
    return;
  }
  if ('skip' in r) site.skipped.push(`${rel}: ${r.skip}, not a regular file: not read`);
  else addStream(site, r.text, rel);
}

/** Runs `kubectl kustomize DIR` (KUBECTL overrides the binary). */
function kustomize(dir: string): string {
  const bin = process.env.KUBECTL || 'kubectl';
  const r = spawnSync(bin, ['kustomize', dir], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.error)
    throw new SiteError(
      `cannot run "${bin} kustomize ${dir}" (${r.error.message}): install kubectl, set KUBECTL, or pass the rendered YAML instead`,
    );
  if (r.status !== 0) throw new SiteError(`"${bin} kustomize ${dir}" failed: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
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

export function loadSite(name: string, path: string): Site {
  try {
    return loadSiteUnchecked(name, path);
  } catch (e) {
    if (e instanceof SiteError) throw e;
    if (e && typeof e === 'object' && 'code' in e) throw fsError(name, path, e);
    throw e;
  }
}

function loadSiteUnchecked(name: string, path: string): Site {
  if (!existsSync(path))
    throw new SiteError(`site ${name}: ${path} does not exist: pass a folder of rendered YAML, a YAML file or a kustomization folder`);
  const site: Site = { name, source: path, mode: 'file', objects: [], files: new Map(), skipped: [], unreadable: 0 };
  const st = statSync(path);
  if (st.isDirectory()) {
    if (KUSTOMIZATION_FILES.some((f) => existsSync(join(path, f)))) {
      site.mode = 'kustomize';
      addStream(site, kustomize(path), undefined);
    } else {
      site.mode = 'folder';
      const files: string[] = [];
      listYaml(path, path, files);
      if (files.length === 0) throw new SiteError(`site ${name}: ${path} holds no .yaml/.yml file`);
      for (const f of files) addFile(site, f, relative(path, f).split('\\').join('/'));
    }
  } else {
    if (!['.yaml', '.yml', '.json'].includes(extname(path).toLowerCase()))
      throw new SiteError(`site ${name}: ${path} is not a .yaml/.yml file`);
    addFile(site, path, basename(path));
  }
  return site;
}
