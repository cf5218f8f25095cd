/**
 * `baremetal-krm validate [--config intent-validate.yaml] <files...>`: intent-validate on YAML
 * files (pre-commit, CI). Prints `file:line: severity: message [rule]` per result on stderr, a
 * summary per severity, and exits 1 on any error.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { API_VERSION, Results, formatResult, loadYaml, readSpec } from '../krm/index.js';
import { KubeObject } from '../krm/index.js';
import { analyse, CONFIG, type Finding, type IntentValidateSpec, lineOfPath, readExtraCrds, RULES, rulesHelp } from '../validate/index.js';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from './args.js';
import { type CiFinding, type CiRule, type CiTool, findingLine, sortFindings } from './ci-finding.js';
import { toJUnit } from './junit.js';
import { CLUSTER_SCOPED, kustomizeFacts } from './kustomization.js';
import { readYamlFiles, type FileObject } from './files.js';
import { toSarif } from './sarif.js';

export const VALIDATE_HELP = `baremetal-krm validate [--config FILE] [--quiet] [--format text|sarif|junit] FILE|FOLDER...

Validates YAML files (and every YAML file under a FOLDER) with intent-validate's rules (the
same as the KRM function) and prints one line per result on stderr, in the form CI problem
matchers read: FILE:LINE: SEVERITY: RESOURCE FIELD: MESSAGE [RULE]. Exits 1 on any error.

  --config FILE     an IntentValidate document (apiVersion ${API_VERSION}); default: every rule
  --quiet           only errors and the summary
  --format FORMAT   text (default, on stderr); sarif (SARIF 2.1.0) or junit (JUnit XML) on stdout,
                    nothing else there: the summary stays on stderr

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

/** The rules of \`validate\` as CI formats describe them (intent-validate's table, plus input errors). */
export const VALIDATE_TOOL: CiTool = {
  command: 'validate',
  rules: [
    ...RULES.map(
      (r): CiRule => ({
        id: r.id,
        severity: r.severity,
        short: r.summary.split(/[:;(]/)[0]!.trim(),
        full: r.summary,
        help: `Fix what the message names, or change the rule in an IntentValidate config (--config): spec.rules.${r.id}.severity error|warning|info|off.`,
      }),
    ),
    {
      id: 'input',
      severity: 'error',
      short: 'a file or document that cannot be read',
      full: 'A YAML file or document that does not parse, or a configuration that is not valid.',
      help: 'Fix the file at the line named; nothing else is checked in a document that does not parse.',
    },
  ],
};

const FORMATS = ['text', 'sarif', 'junit'] as const;
type Format = (typeof FORMATS)[number];

interface Options {
  format: Format;
  quiet: boolean;
  config?: string;
  paths: string[];
}

function readOptions(argv: string[]): Options | string {
  let args: ReturnType<typeof parseArgs>;
  try {
    args = parseArgs(argv, ['config', 'format']);
  } catch (e) {
    return (e as Error).message;
  }
  if (args.flags.has('help')) return 'help';
  const unknown = [...args.flags].filter((f) => f !== 'quiet');
  if (unknown.length) return `unknown option --${unknown[0]} (see --help)`;
  const format = args.options.get('format') ?? 'text';
  if (!(FORMATS as readonly string[]).includes(format)) return `--format ${format}: use ${FORMATS.join(', ')}`;
  return { format: format as Format, quiet: args.flags.has('quiet'), config: args.options.get('config'), paths: args.positional };
}

/** The IntentValidate spec of --config, or the lines to print when it is not valid. */
function readConfig(cfg: string | undefined): { spec: IntentValidateSpec } | { error: string } {
  if (!cfg) return { spec: {} };
  let fc: KubeObject;
  try {
    const text = readFileSync(cfg, 'utf8');
    loadYaml(text);
    fc = KubeObject.fromDocument(text);
  } catch (e) {
    return { error: `baremetal-krm validate: --config ${cfg}: ${(e as Error).message}\n` };
  }
  const results = new Results();
  const s = readSpec<IntentValidateSpec>(CONFIG, fc, results);
  if (s === undefined) return { error: results.list.map((r) => `${cfg}: ${formatResult(r)}\n`).join('') };
  return { spec: s };
}

/** Documents that are KRM objects (kustomization.yaml, JSON patches, values files are skipped); unreadable ones as input findings. */
function krmObjects(objects: FileObject[], findings: CiFinding[]): FileObject[] {
  return objects.filter((f) => {
    // the header is enough to tell (the analysis reads each document once, and keeps no tree)
    let kind: string;
    let apiVersion: string;
    try {
      kind = f.object.kind;
      apiVersion = f.object.apiVersion;
    } catch (e) {
      if (/not a YAML mapping/.test((e as Error).message)) return false;
      findings.push({ rule: 'input', severity: 'error', message: (e as Error).message, file: f.path, line: f.line });
      return false;
    }
    if (!kind || !apiVersion) return false;
    return !(kind === 'Kustomization' && apiVersion.startsWith('kustomize.config.k8s.io/'));
  });
}

interface Prepared {
  spec: IntentValidateSpec;
  partial: Set<KubeObject>;
  /** namespaced copy -> the object as written (lines come from the file as written) */
  original: Map<KubeObject, KubeObject>;
}

/**
 * What kustomization files beside the files say: patches are partial, generators make Secrets,
 * and a kustomization's \`namespace:\` sets the namespace of what it lists (as kustomize does)
 * before references are checked.
 */
function applyKustomizations(files: string[], krm: FileObject[], spec: IntentValidateSpec): Prepared {
  const kf = kustomizeFacts(files);
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
  return { spec, partial, original };
}

/** The line a finding points at, counted in the file as written. */
function findingLineNumber(f: Finding, fo: FileObject | undefined, original: Map<KubeObject, KubeObject>): number | undefined {
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
  return line ?? fo?.line;
}

/** Every finding of intent-validate's rules on the files, with file and line. */
async function validateFiles(files: string[], spec: IntentValidateSpec, findings: CiFinding[]): Promise<number> {
  const krm = krmObjects(readYamlFiles(files), findings);
  // a document the analysis cannot read is an input finding at its file and line
  const inputError = (f: FileObject, message: string): void => {
    if (!/not a YAML mapping/.test(message)) findings.push({ rule: 'input', severity: 'error', message, file: f.path, line: f.line });
  };
  const prepared = applyKustomizations(files, krm, spec);
  const fileOf = new Map(krm.map((f) => [f.object, f]));
  const results = new Results();
  const extraCrds = readExtraCrds((prepared.spec as { schemas?: { paths?: string[] } }).schemas?.paths ?? [], results);
  for (const r of results.list) findings.push({ rule: r.tags?.rule ?? 'input', severity: r.severity, message: r.message });
  const a = await analyse(
    krm.map((f) => f.object),
    prepared.spec,
    {
      extraCrds,
      partial: prepared.partial,
      scopeOf: (o) => dirname(resolve(fileOf.get(o)?.path ?? '')),
      locate: (o) => (fileOf.get(o) ? `${fileOf.get(o)!.path}:${fileOf.get(o)!.line}` : undefined),
      unreadable: (o, message) => inputError(fileOf.get(o)!, message),
    },
  );
  for (const f of a.findings) {
    const fo = f.object ? fileOf.get(f.object) : undefined;
    const ref = f.object ? `${f.object.id}${f.field ? ' ' + f.field : ''}: ` : '';
    const msg = f.object && f.message.startsWith(f.object.id + ': ') ? f.message.slice(f.object.id.length + 2) : f.message;
    const finding: CiFinding = { rule: f.rule, severity: f.severity, message: ref + msg };
    if (fo) {
      finding.file = fo.path;
      finding.line = findingLineNumber(f, fo, prepared.original);
    }
    if (f.object) finding.resource = f.object.id;
    if (f.field) finding.field = f.field;
    findings.push(finding);
  }
  return krm.length;
}

export async function runValidate(argv: string[], io: CliIo): Promise<number> {
  const opts = readOptions(argv);
  if (opts === 'help') {
    io.out(VALIDATE_HELP);
    return 0;
  }
  if (typeof opts === 'string') {
    io.err(`baremetal-krm validate: ${opts}\n`);
    return 2;
  }
  const cfg = readConfig(opts.config);
  if ('error' in cfg) {
    io.err(cfg.error);
    return 2;
  }
  let files: string[];
  const findings: CiFinding[] = [];
  let objects: number;
  try {
    files = expandPaths(opts.paths);
    objects = await validateFiles(files, cfg.spec, findings);
  } catch (e) {
    io.err(`baremetal-krm validate: ${(e as Error).message}\n`);
    return 2;
  }
  const sorted = sortFindings(findings);
  if (opts.format === 'sarif') io.out(toSarif(VALIDATE_TOOL, sorted));
  else if (opts.format === 'junit') io.out(toJUnit(VALIDATE_TOOL, sorted, files));
  else for (const f of sorted) if (!opts.quiet || f.severity === 'error') io.err(findingLine(f) + '\n');
  const count = (s: Finding['severity']): number => sorted.filter((f) => f.severity === s).length;
  const errors = count('error');
  io.err(
    `${errors} error(s), ${count('warning')} warning(s), ${count('info')} info in ${objects} object(s) from ${files.length} file(s)\n`,
  );
  return errors > 0 ? 1 : 0;
}
