/**
 * What a kustomization and a Kptfile point at on disk, the one home for it: the local paths a
 * kustomization lists (resources, bases, components, patches, generator files, KRM function
 * configs...) and the files a Kptfile pipeline uses. Remote references (URLs, `github.com/...`)
 * are left out: they are not in the repository.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InstallError, isRecord, loadYaml } from '../krm/index.js';
import { pushAll } from '../krm/index.js';

export const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

/** The kustomization file of a folder, if it has one. */
export function kustomizationFile(dir: string): string | undefined {
  return KUSTOMIZATION_FILES.map((n) => join(dir, n)).find((p) => existsSync(p));
}

/** A path a kustomization may hold that points into the repository (not a URL, not absolute). */
export function isLocalPath(p: string): boolean {
  return p !== '' && !p.includes('://') && !/^(?:github\.com|gitlab\.com|bitbucket\.org|git@)/.test(p) && !p.startsWith('/');
}

function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  return [];
}

/** `files: [key=path]`, `envs: [path]` of a ConfigMap/Secret generator entry. */
function generatorFiles(entry: unknown): string[] {
  if (!isRecord(entry)) return [];
  return [...strings(entry.files).map((f) => f.slice(f.indexOf('=') + 1)), ...strings(entry.envs), ...strings(entry.env)];
}

/**
 * The local paths a kustomization refers to, relative to its folder: each may be a folder (a
 * base, a component, a kpt package) or a file. Inline entries (YAML text) are skipped.
 */
export function kustomizationRefs(data: unknown): string[] {
  if (!isRecord(data)) return [];
  const out: string[] = [];
  for (const key of ['resources', 'bases', 'components', 'crds', 'patchesStrategicMerge', 'generators', 'transformers', 'validators'])
    pushAll(
      out,
      strings(data[key]).filter((s) => !s.includes('\n')),
    );
  for (const key of ['patches', 'patchesJson6902', 'replacements'])
    for (const p of Array.isArray(data[key]) ? data[key] : []) if (isRecord(p) && typeof p.path === 'string') out.push(p.path);
  for (const key of ['configMapGenerator', 'secretGenerator'])
    for (const g of Array.isArray(data[key]) ? data[key] : []) pushAll(out, generatorFiles(g));
  if (isRecord(data.openapi) && typeof data.openapi.path === 'string') out.push(data.openapi.path);
  if (isRecord(data.helmGlobals) && typeof data.helmGlobals.chartHome === 'string') out.push(data.helmGlobals.chartHome);
  return out.filter(isLocalPath);
}

/** The files a Kptfile pipeline uses (function configs, exec functions), relative to the package. */
export function kptfileRefs(data: unknown): string[] {
  if (!isRecord(data) || !isRecord(data.pipeline)) return [];
  const out: string[] = [];
  for (const key of ['mutators', 'validators'])
    for (const fn of Array.isArray(data.pipeline[key]) ? data.pipeline[key] : []) {
      if (!isRecord(fn)) continue;
      if (typeof fn.configPath === 'string') out.push(fn.configPath);
      if (typeof fn.exec === 'string') out.push(fn.exec.split(/\s+/)[0]!);
    }
  return out.filter(isLocalPath);
}

/** Reads a YAML file as data; undefined when it cannot be read or parsed. */
export function readYamlData(path: string): unknown {
  return readYamlFile(path).data;
}

/** Reads a YAML file as data, or says why it cannot (unreadable, or not YAML: the parser's first line). */
export function readYamlFile(path: string): { data?: unknown; error?: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if (e instanceof InstallError) throw e; // a broken install, not this input's problem
    return { error: `cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  try {
    return { data: loadYaml(text) };
  } catch (e) {
    if (e instanceof InstallError) throw e; // a broken install, not this input's problem
    return { error: `does not parse as YAML (${(e as Error).message.split('\n')[0]})` };
  }
}

/**
 * The `exec:` paths of KRM function configs a kustomization lists as generators/transformers
 * (`config.kubernetes.io/function: exec: path: ...`), relative to the kustomization's folder.
 */
export function functionConfigExecPaths(data: unknown): string[] {
  if (!isRecord(data) || !isRecord(data.metadata) || !isRecord(data.metadata.annotations)) return [];
  const spec = data.metadata.annotations['config.kubernetes.io/function'];
  if (typeof spec !== 'string') return [];
  const fn = loadYamlSafe(spec);
  if (isRecord(fn) && isRecord(fn.exec) && typeof fn.exec.path === 'string' && isLocalPath(fn.exec.path)) return [fn.exec.path];
  return [];
}

function loadYamlSafe(text: string): unknown {
  try {
    return loadYaml(text);
  } catch {
    return undefined;
  }
}
