/**
 * `baremetal-krm validate [--config intent-validate.yaml] <files...>`: intent-validate on YAML
 * files (pre-commit, CI). Prints `file:line: severity: message [rule]` per result on stderr, a
 * summary per severity, and exits 1 on any error.
 */
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { API_VERSION, KrmError, Results, formatResult, loadYaml, readSpec } from '../krm/index.js';
import { KubeObject } from '../krm/index.js';
import { analyse, CONFIG, type Finding, type IntentValidateSpec, lineOfPath, readExtraCrds, rulesHelp } from '../validate/index.js';
import { dirname, join, resolve } from 'node:path';
import { type CommandArgs, parseCommandArgs, UsageError } from './args.js';
import { CLUSTER_SCOPED, kustomizeFacts } from './kustomization.js';
import { type FileObject, type ReadFiles, readRegularFile, readYamlFiles } from './files.js';

export const VALIDATE_HELP = `baremetal-krm validate [--config FILE] [--quiet] FILE|FOLDER...

Validates YAML files (and every YAML file under a FOLDER) with intent-validate's rules (the
same as the KRM function) and prints one line per result: FILE:LINE: SEVERITY: RESOURCE FIELD: MESSAGE [RULE]. Exits 1 on any error.
A ResourceList or \`kind: List\` file (kubectl get -o yaml) is its items. Only regular files are
read (others are named), up to 256 MiB each, in UTF-8; documents that are not KRM objects are
named (info) and skipped.

  --config FILE   an IntentValidate document (apiVersion ${API_VERSION}); default: every rule
  --quiet         only errors and the summary

Rules:
${rulesHelp()}
`;

/**
 * YAML/JSON files named, and those under named folders (sorted, dot-folders and node_modules
 * skipped, each folder once however symbolic links lead to it). Named paths that are not
 * .yaml/.yml/.json files are listed in `skipped`.
 */
export function expandPaths(paths: string[], skipped: string[] = []): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const walk = (dir: string): void => {
    const real = realpathSync(dir);
    if (seen.has(real)) return; // a link back up: each folder is read once
    seen.add(real);
    for (const e of readdirSync(dir).sort()) {
      if (e.startsWith('.') || e === 'node_modules') continue;
      const p = join(dir, e);
      let isDir = false;
      try {
        isDir = statSync(p).isDirectory();
      } catch {
        isDir = false; // a broken link: read (and reported) below if it looks like YAML
      }
      if (isDir) walk(p);
      else if (/\.(ya?ml|json)$/i.test(e)) out.push(p);
    }
  };
  for (const p of paths) {
    let isDir = false;
    try {
      isDir = statSync(p).isDirectory();
    } catch {
      throw new UsageError(`${p}: no such file or folder`);
    }
    if (isDir) walk(p);
    else if (/\.(ya?ml|json)$/i.test(p)) out.push(p);
    else skipped.push(`${p}: not a .yaml, .yml or .json file: not read`);
  }
  return out;
}

export interface CliIo {
  out: (s: string) => void;
  err: (s: string) => void;
}

/** The spec from --config FILE (an IntentValidate document); usage problems are UsageError. */
function readConfigSpec(cfg: string, results: Results): IntentValidateSpec {
  let fc: KubeObject;
  try {
    const r = readRegularFile(cfg);
    if ('skip' in r) throw new KrmError(`${r.skip}, not a regular file`);
    loadYaml(r.text);
    fc = KubeObject.fromDocument(r.text);
  } catch (e) {
    throw new UsageError(`--config ${cfg}: ${(e as Error).message.split('\n')[0]}`);
  }
  const s = readSpec<IntentValidateSpec>(CONFIG, fc, results);
  if (s === undefined) throw new UsageError(results.list.map((r) => `${cfg}: ${formatResult(r)}`).join('\n'));
  return s;
}

/**
 * The KRM objects among the files' items. Items that cannot be read or have only one of
 * apiVersion and kind are errors; items that are not KRM objects at all (a kustomization, a
 * JSON patch, a values file) are skipped with an info line, except files kustomize uses as patches.
 */
function krmObjects(objects: FileObject[], patches: Set<string>, results: Results): FileObject[] {
  return objects.filter((f) => {
    const at = `${f.path}:${f.line}`;
    let o: KubeObject['data'];
    try {
      o = f.object.data;
    } catch (e) {
      if (!(e instanceof KrmError)) throw e;
      if (/ is not a mapping /.test(e.message)) {
        if (!patches.has(resolve(f.path))) results.info(`${at}: ${e.message.split(':')[0]}: skipped, not a KRM object`, { rule: 'input' });
      } else results.error(`${at}: ${e.message}`, { rule: 'input' });
      return false;
    }
    for (const n of f.object.notes) results.info(`${at}: ${n}`, { rule: 'input' });
    const hasKind = typeof o.kind === 'string' && o.kind !== '';
    const hasVersion = typeof o.apiVersion === 'string' && o.apiVersion !== '';
    if (!hasKind || !hasVersion) {
      if (hasKind || hasVersion)
        results.error(
          `${at}: ${f.object.where} has ${hasKind ? 'kind but no apiVersion' : 'apiVersion but no kind'}: every KRM resource needs both`,
          {
            rule: 'input',
          },
        );
      else if (!patches.has(resolve(f.path)))
        results.info(`${at}: ${f.object.where} has no apiVersion and kind: skipped, not a KRM object`, { rule: 'input' });
      return false;
    }
    return !(o.kind === 'Kustomization' && (o.apiVersion as string).startsWith('kustomize.config.k8s.io/'));
  });
}

/** Parses validate's arguments, reads --config and the files. */
function prepare(
  argv: string[],
  results: Results,
): { args: CommandArgs; spec: IntentValidateSpec; files: string[]; read: ReadFiles } | 'help' {
  const args = parseCommandArgs(argv, ['config'], ['quiet']);
  if (args.flag('help')) return 'help';
  const cfg = args.one('config');
  const spec = cfg ? readConfigSpec(cfg, results) : {};
  const skipped: string[] = [];
  const files = expandPaths(args.positional, skipped);
  const read = readYamlFiles(files);
  read.skipped.unshift(...skipped);
  return { args, spec, files, read };
}

export async function runValidate(argv: string[], io: CliIo): Promise<number> {
  const results = new Results();
  let prepared: ReturnType<typeof prepare>;
  try {
    prepared = prepare(argv, results);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`baremetal-krm validate: ${e.message}${/unknown option/.test(e.message) ? ' (see --help)' : ''}\n`);
    return 2;
  }
  if (prepared === 'help') {
    io.out(VALIDATE_HELP);
    return 0;
  }
  const { args, files, read } = prepared;
  let spec: IntentValidateSpec = prepared.spec;
  for (const s of read.skipped) results.info(s, { rule: 'input' });
  for (const e of read.errors) results.error(e, { rule: 'input' });
  // kustomization files beside the files: patches are partial, generators make Secrets
  const kf = kustomizeFacts(files);
  const krm = krmObjects(read.objects, kf.patches, results);
  // a kustomization's `namespace:` sets the namespace of what it lists (as kustomize does) before
  // references are checked; lines still come from the file as written
  const original = new Map<KubeObject, KubeObject>();
  for (const f of krm) {
    const ns = kf.namespaceOf(f.path);
    if (!ns || CLUSTER_SCOPED.has(f.object.kind) || f.object.namespace === ns) continue;
    const copy = KubeObject.fromDocument(f.object.body);
    copy.sourceLine = f.object.sourceLine;
    copy.set('metadata.namespace', ns);
    original.set(copy, f.object);
    f.object = copy;
  }
  const partial = new Set(krm.filter((f) => kf.patches.has(resolve(f.path))).map((f) => f.object));
  if (kf.generated.length) {
    const s = spec as { references?: { external?: string[] } };
    spec = {
      ...s,
      references: { ...(s.references ?? {}), external: [...(s.references?.external ?? []), ...kf.generated] },
    } as IntentValidateSpec;
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
    },
  );
  const lines = resultLines(results, a.findings, fileOf, original);
  const quiet = args.flag('quiet');
  for (const l of lines) if (!quiet || l.severity === 'error') io.err(l.text + '\n');
  const count = (s: Finding['severity']): number => lines.filter((l) => l.severity === s).length;
  const errors = count('error');
  io.err(
    `${errors} error(s), ${count('warning')} warning(s), ${count('info')} info in ${krm.length} object(s) from ${files.length} file(s)\n`,
  );
  return errors > 0 ? 1 : 0;
}

/** One sorted line per result and finding: `file:line: severity: Kind/name field: message [rule]`. */
function resultLines(
  results: Results,
  findings: readonly Finding[],
  fileOf: Map<KubeObject, FileObject>,
  original: Map<KubeObject, KubeObject>,
): { key: string; text: string; severity: Finding['severity'] }[] {
  const lines: { key: string; text: string; severity: Finding['severity'] }[] = [];
  for (const r of results.list) lines.push({ key: '', text: `${r.severity}: ${r.message} [${r.tags?.rule ?? ''}]`, severity: r.severity });
  for (const f of findings) {
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
  return lines;
}
