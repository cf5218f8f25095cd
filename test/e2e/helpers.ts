/** Helpers for end-to-end tests against the real kpt and kubectl binaries. */
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from '../golden.js';

export { repoRoot };
export const dist = (fn: string): string => join(repoRoot, 'dist', `${fn}.cjs`);

export function tempDir(prefix: string): string {
  const base = join(repoRoot, '.e2e-out');
  mkdirSync(base, { recursive: true });
  return mkdtempSync(join(base, prefix + '-'));
}

export function run(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {},
): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 30, ...opts, env: { ...process.env, ...(opts.env ?? {}) } });
}

/** All files under dir, relative, sorted. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d).sort()) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out;
}

/** Copies the YAML files under `from` whose every document is a KRM resource (kpt refuses others). */
export function copyKrmFiles(from: string, to: string): number {
  let n = 0;
  for (const f of listFiles(from)) {
    if (!/\.ya?ml$/.test(f)) continue;
    const text = readFileSync(join(from, f), 'utf8');
    const docs = parseAllDocuments(text);
    const ok = docs.every((d) => {
      if (d.errors.length) return false;
      const v = d.toJS() as { apiVersion?: string; kind?: string; metadata?: { name?: string } } | null;
      return v === null || (typeof v === 'object' && !!v.apiVersion && !!v.kind && !!v.metadata?.name);
    });
    if (!ok) continue;
    mkdirSync(dirname(join(to, f)), { recursive: true });
    cpSync(join(from, f), join(to, f));
    n++;
  }
  return n;
}

export function writeKptfile(dir: string, name: string, mutators: string, validators = ''): void {
  writeFileSync(
    join(dir, 'Kptfile'),
    `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\npipeline:\n` +
      (mutators ? `  mutators:\n${mutators}` : '') +
      (validators ? `  validators:\n${validators}` : ''),
  );
}

export function haveBinary(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export const bundleExists = (fn: string): boolean => existsSync(dist(fn));

/** Annotations tools add to say where an object came from. */
const TOOL_ANNOTATION = /^(internal\.)?config\.kubernetes\.io\/|^config\.k8s\.io\/|^kustomize\.config\.k8s\.io\//;

/** JSON with object keys sorted (kustomize sorts keys, kpt keeps the functions' order). */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

/**
 * The objects of a YAML stream that reach a cluster (no local-config), without tool
 * annotations, as canonical JSON, sorted: what kpt and kustomize output can be compared by.
 */
export function clusterObjects(text: string): string[] {
  const out: string[] = [];
  for (const d of parseAllDocuments(text)) {
    const v = d.toJS() as Record<string, any> | null;
    if (!v) continue;
    const ann = v.metadata?.annotations as Record<string, string> | undefined;
    if (ann?.['config.kubernetes.io/local-config'] === 'true') continue;
    if (ann) {
      for (const k of Object.keys(ann)) if (TOOL_ANNOTATION.test(k)) delete ann[k];
      if (Object.keys(ann).length === 0) delete v.metadata.annotations;
    }
    out.push(canonical(v));
  }
  return out.sort();
}
