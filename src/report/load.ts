/**
 * Loading a site: a folder of rendered YAML (read recursively, sorted), a single rendered YAML
 * file or stream, or a kustomization (a folder with kustomization.yaml, also a kpt package with
 * one) built first with `kubectl kustomize`. Each document becomes a KubeObject; its file is
 * remembered (relative to the site) so the report can say where a certificate lives.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, extname, join, relative, resolve } from 'node:path';
import { KubeObject } from '../krm/index.js';
import { splitWithLines } from '../cli/files.js';
import { followFluxPaths } from '../gitops/flux-paths.js';

export interface Site {
  name: string;
  /** the path as given */
  source: string;
  /** how it was read */
  mode: 'folder' | 'file' | 'kustomize';
  objects: KubeObject[];
  /** object -> file relative to the site (absent for kustomize output) */
  files: Map<KubeObject, string>;
  /** documents that are not KRM objects or do not parse, as `file:line: message` */
  skipped: string[];
}

export class SiteError extends Error {}

const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

function listYaml(dir: string, root: string, out: string[]): void {
  for (const e of readdirSync(dir).sort()) {
    if (e.startsWith('.') || e === 'node_modules') continue;
    const p = join(dir, e);
    const st = statSync(p);
    if (st.isDirectory()) listYaml(p, root, out);
    else if (/\.ya?ml$/i.test(e) && !KUSTOMIZATION_FILES.includes(e)) out.push(p);
  }
}

function addStream(site: Site, text: string, file: string | undefined): void {
  for (const d of splitWithLines(text)) {
    const where = `${file ?? site.source}:${d.line}`;
    let o: KubeObject;
    try {
      o = KubeObject.fromDocument(d.body);
      o.sourceLine = d.line;
      // parse now: a broken document is reported once, here, not deep inside a rule
      void o.data;
    } catch (e) {
      site.skipped.push(`${where}: does not parse as YAML (${(e as Error).message.split('\n')[0]})`);
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
  const site: Site = { name, source: path, mode: 'file', objects: [], files: new Map(), skipped: [] };
  const st = statSync(path);
  if (st.isDirectory()) {
    if (KUSTOMIZATION_FILES.some((f) => existsSync(join(path, f)))) {
      site.mode = 'kustomize';
      // a rendered root applies its phases through Flux Kustomizations: follow them (what Flux applies)
      followFluxPaths(path, (dir) => {
        const before = site.objects.length;
        addStream(site, kustomize(dir), undefined);
        return site.objects.slice(before);
      });
    } else {
      site.mode = 'folder';
      const files: string[] = [];
      listYaml(path, path, files);
      if (files.length === 0) throw new SiteError(`site ${name}: ${path} holds no .yaml/.yml file`);
      for (const f of files) addStream(site, readFileSync(f, 'utf8'), relative(path, f).split('\\').join('/'));
    }
  } else {
    if (!['.yaml', '.yml', '.json'].includes(extname(path).toLowerCase()))
      throw new SiteError(`site ${name}: ${path} is not a .yaml/.yml file`);
    addStream(site, readFileSync(path, 'utf8'), basename(path));
  }
  return site;
}
