/**
 * `baremetal-krm validate [--config intent-validate.yaml] <files...>`: intent-validate on YAML
 * files (pre-commit, CI). Prints `file:line: severity: message [rule]` per result on stderr, a
 * summary per severity, and exits 1 on any error.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { API_VERSION, Results, formatResult, loadYaml, readSpec } from '../krm/index.js';
import { KubeObject } from '../krm/index.js';
import { analyse, CONFIG, type Finding, type IntentValidateSpec, lineOfPath, readExtraCrds, rulesHelp } from '../validate/index.js';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from './args.js';
import { CLUSTER_SCOPED, kustomizeFacts } from './kustomization.js';
import { readYamlFiles, type FileObject } from './files.js';

export const VALIDATE_HELP = `baremetal-krm validate [--config FILE] [--quiet] FILE|FOLDER...

Validates YAML files (and every YAML file under a FOLDER) with intent-validate's rules (the
same as the KRM function) and prints one line per result: FILE:LINE: SEVERITY: RESOURCE FIELD: MESSAGE [RULE]. Exits 1 on any error.

  --config FILE   an IntentValidate document (apiVersion ${API_VERSION}); default: every rule
  --quiet         only errors and the summary

Rules:
${rulesHelp()}
`;

/** YAML/JSON files named, and those under named folders (sorted, dot-folders and node_modules skipped). */
export function expandPaths(paths: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir).sort()) {
      if (e.startsWith('.') || e === 'node_modules') continue;
      const p = join(dir, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(ya?ml|json)$/i.test(e)) out.push(p);
    }
  };
  for (const p of paths) {
    let isDir = false;
    try {
      isDir = statSync(p).isDirectory();
    } catch {
      throw new Error(`${p}: no such file or folder`);
    }
    if (isDir) walk(p);
    else if (/\.(ya?ml|json)$/i.test(p)) out.push(p);
  }
  return out;
}

export interface CliIo {
  out: (s: string) => void;
  err: (s: string) => void;
}

export async function runValidate(argv: string[], io: CliIo): Promise<number> {
  let args: ReturnType<typeof parseArgs>;
  try {
    args = parseArgs(argv, ['config']);
  } catch (e) {
    io.err(`baremetal-krm validate: ${(e as Error).message}\n`);
    return 2;
  }
  if (args.flags.has('help')) {
    io.out(VALIDATE_HELP);
    return 0;
  }
  const unknown = [...args.flags].filter((f) => f !== 'quiet');
  if (unknown.length) {
    io.err(`baremetal-krm validate: unknown option --${unknown[0]} (see --help)\n`);
    return 2;
  }
  const results = new Results();
  let spec = {};
  const cfg = args.options.get('config');
  if (cfg) {
    let fc: KubeObject;
    try {
      const text = readFileSync(cfg, 'utf8');
      loadYaml(text);
      fc = KubeObject.fromDocument(text);
    } catch (e) {
      io.err(`baremetal-krm validate: --config ${cfg}: ${(e as Error).message}\n`);
      return 2;
    }
    const s = readSpec<IntentValidateSpec>(CONFIG, fc, results);
    if (s === undefined) {
      for (const r of results.list) io.err(`${cfg}: ${formatResult(r)}\n`);
      return 2;
    }
    spec = s;
  }
  let files: string[];
  try {
    files = expandPaths(args.positional);
  } catch (e) {
    io.err(`baremetal-krm validate: ${(e as Error).message}\n`);
    return 2;
  }
  let objects: FileObject[];
  try {
    objects = readYamlFiles(files);
  } catch (e) {
    io.err(`baremetal-krm validate: ${(e as Error).message}\n`);
    return 2;
  }
  // documents that are not KRM objects (kustomization.yaml, JSON patches, values files) are skipped;
  // the header is enough to tell (the analysis reads each document once, and keeps no tree)
  const inputError = (f: FileObject, message: string): void => {
    if (!/not a YAML mapping/.test(message)) results.error(`${f.path}:${f.line}: ${message}`, { rule: 'input' });
  };
  const krm = objects.filter((f) => {
    let kind: string;
    let apiVersion: string;
    try {
      kind = f.object.kind;
      apiVersion = f.object.apiVersion;
    } catch (e) {
      inputError(f, (e as Error).message);
      return false;
    }
    if (!kind || !apiVersion) return false;
    return !(kind === 'Kustomization' && apiVersion.startsWith('kustomize.config.k8s.io/'));
  });
  // kustomization files beside the files: patches are partial, generators make Secrets
  const kf = kustomizeFacts(files);
  // a kustomization's `namespace:` sets the namespace of what it lists (as kustomize does) before
  // references are checked; lines still come from the file as written
  const original = new Map<KubeObject, KubeObject>();
  for (const f of krm) {
    const ns = kf.namespaceOf(f.path);
    if (!ns || CLUSTER_SCOPED.has(f.object.kind) || f.object.namespace === ns) continue;
    const copy = KubeObject.fromDocument(f.object.body);
    copy.sourceLine = f.object.sourceLine;
    try {
      copy.set('metadata.namespace', ns);
    } catch {
      continue; // not valid YAML: the analysis reports it as written
    }
    original.set(copy, f.object);
    f.object = copy;
  }
  const partial = new Set(krm.filter((f) => kf.patches.has(resolve(f.path))).map((f) => f.object));
  if (kf.generated.length) {
    const s = spec as { references?: { external?: string[] } };
    spec = { ...s, references: { ...(s.references ?? {}), external: [...(s.references?.external ?? []), ...kf.generated] } };
  }
  const fileOf = new Map(krm.map((f) => [f.object, f]));
  const extraCrds = readExtraCrds((spec as { schemas?: { paths?: string[] } }).schemas?.paths ?? [], results);
  const a = await analyse(
    krm.map((f) => f.object),
    spec,
    {
      extraCrds,
      partial,
      scopeOf: (o) => dirname(resolve(fileOf.get(o)?.path ?? '')),
      locate: (o) => (fileOf.get(o) ? `${fileOf.get(o)!.path}:${fileOf.get(o)!.line}` : undefined),
      unreadable: (o, message) => inputError(fileOf.get(o)!, message),
    },
  );
  const lines: { key: string; text: string; severity: Finding['severity'] }[] = [];
  for (const r of results.list) lines.push({ key: '', text: `${r.severity}: ${r.message} [${r.tags?.rule ?? ''}]`, severity: r.severity });
  for (const f of a.findings) {
    const fo = f.object ? fileOf.get(f.object) : undefined;
    let line = f.line;
    if (line === undefined && f.object && f.path) {
      const asWritten = original.get(f.object) ?? f.object;
      line = lineOfPath(asWritten, f.path);
      if (line === undefined)
        try {
          line = asWritten.lineOf(f.path);
        } catch {
          line = undefined;
        }
    }
    line ??= fo?.line;
    const where = fo ? `${fo.path}:${line ?? fo.line}: ` : '';
    const ref = f.object ? `${f.object.id}${f.field ? ' ' + f.field : ''}: ` : '';
    const msg = f.object && f.message.startsWith(f.object.id + ': ') ? f.message.slice(f.object.id.length + 2) : f.message;
    lines.push({
      key: `${fo?.path ?? ''}\u0000${String(line ?? 0).padStart(8, '0')}\u0000${f.rule}\u0000${msg}`,
      text: `${where}${f.severity}: ${ref}${msg} [${f.rule}]`,
      severity: f.severity,
    });
  }
  lines.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  const quiet = args.flags.has('quiet');
  for (const l of lines) if (!quiet || l.severity === 'error') io.err(l.text + '\n');
  const count = (s: Finding['severity']): number => lines.filter((l) => l.severity === s).length;
  const errors = count('error');
  io.err(
    `${errors} error(s), ${count('warning')} warning(s), ${count('info')} info in ${krm.length} object(s) from ${files.length} file(s)\n`,
  );
  return errors > 0 ? 1 : 0;
}
