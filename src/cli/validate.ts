/**
 * `baremetal-krm validate [--config intent-validate.yaml] <files...>`: intent-validate on YAML
 * files (pre-commit, CI). Prints `file:line: severity: message [rule]` per result on stderr, a
 * summary per severity, and exits 1 on any error.
 */
import { statSync } from 'node:fs';
import {
  addCredentialsOf,
  API_VERSION,
  collectBeforeResults,
  collectGarbage,
  pushAll,
  KrmError,
  Results,
  formatResult,
  loadYaml,
  missingInstallFile,
  readSpec,
} from '../krm/index.js';
import { type HeaderProblem, InstallError, KubeObject } from '../krm/index.js';
import { analyse, CONFIG, FieldLines, type Finding, type IntentValidateSpec, readExtraCrds, RULES, rulesHelp } from '../validate/index.js';
import { dirname, resolve } from 'node:path';
import { parseCommandArgs, UsageError } from './args.js';
import { type CiFinding, type CiRule, type CiTool, findingLine, sortFindings } from './ci-finding.js';
import { toJUnit } from './junit.js';
import { Redactor } from '../secrets/redact.js';
import { CLUSTER_SCOPED, kustomizeFacts } from './kustomization.js';
import {
  type FileItems,
  fileErrorText,
  NO_DOCUMENT,
  type ReadFiles,
  readRegularFile,
  readYamlFiles,
  STDIN,
  splitWithLines,
  filesUnder,
} from './files.js';
import { toSarif } from './sarif.js';

export const VALIDATE_HELP = `baremetal-krm validate [--config FILE] [--quiet] [--format text|sarif|junit] FILE|FOLDER|-...

Validates YAML files (and every YAML file under a FOLDER; - reads stdin, e.g. \`kustomize build
. | baremetal-krm validate -\`) with intent-validate's rules (the same as the KRM function) and
prints one line per result on stderr, in the form CI problem matchers read: FILE:LINE:
SEVERITY: RESOURCE FIELD: MESSAGE [RULE]. A ResourceList or \`kind: List\` file (kubectl get -o
yaml) is its items. Only regular files are read (others are named), up to 256 MiB each, in
UTF-8; documents that are not KRM objects are named (info) and skipped, and so are files that
hold no document (empty, only comments). A KRM object whose header is wrong (a kind that is
not a string, metadata: null, a label value that is a number...) is an error.

Exit codes: 0 no error (warnings allowed), 1 at least one error, 2 a usage error or nothing to
validate: no FILE given, no YAML file among the paths given (each is named), or nothing on
stdin. A CI step whose glob matches nothing fails.

  --config FILE     an IntentValidate document (apiVersion ${API_VERSION}); default: every rule
  --quiet           only errors and the summary
  --format FORMAT   text (default, on stderr); sarif (SARIF 2.1.0) or junit (JUnit XML) on stdout,
                    nothing else there: the summary stays on stderr

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
  const walk = (dir: string): void => void filesUnder(dir, (e) => /\.(ya?ml|json)$/i.test(e), out, seen);
  for (const p of paths) {
    let isDir = false;
    try {
      isDir = statSync(p).isDirectory();
    } catch {
      throw new Error(`${p}: no such file or folder`);
    }
    const before = out.length;
    if (isDir) walk(p);
    else if (/\.(ya?ml|json)$/i.test(p)) out.push(p);
    else skipped.push(`${p}: not a .yaml, .yml or .json file: not read`);
    if (isDir && out.length === before)
      skipped.push(`${p}: a folder with no .yaml, .yml or .json file (dot-folders and node_modules are not read)`);
  }
  return out;
}

export interface CliIo {
  out: (s: string) => void;
  err: (s: string) => void;
  /** the bytes of standard input (`-`); default: read fd 0 */
  stdin?: () => Uint8Array;
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
  try {
    return options(parseCommandArgs(argv, ['config', 'format'], ['quiet']));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return `${e.message}${/unknown option/.test(e.message) ? ' (see --help)' : ''}`;
  }
}

function options(args: ReturnType<typeof parseCommandArgs>): Options | string {
  if (args.flag('help')) return 'help';
  if (args.positional.length === 0)
    return 'no file given: name YAML files or folders, or - to read stdin (kustomize build . | baremetal-krm validate -) (see --help)';
  if (args.positional.filter((p) => p === '-').length > 1) return '- (stdin) is named twice: name it once';
  const format = args.one('format') ?? 'text';
  if (!(FORMATS as readonly string[]).includes(format)) return `--format ${format}: use ${FORMATS.join(', ')}`;
  return { format: format as Format, quiet: args.flag('quiet'), config: args.one('config'), paths: args.positional };
}

/** The IntentValidate spec of --config, or the lines to print when it is not valid. */
function readConfig(cfg: string | undefined): { spec: IntentValidateSpec } | { error: string } {
  if (!cfg) return { spec: {} };
  let fc: KubeObject;
  try {
    const r = readRegularFile(cfg);
    if ('skip' in r) throw new KrmError(`${r.skip}, not a regular file`);
    if (splitWithLines(r.text).length === 0)
      throw new KrmError(
        `no YAML document (empty, or only comments): write an IntentValidate document (apiVersion ${API_VERSION}, kind IntentValidate)`,
      );
    loadYaml(r.text);
    fc = KubeObject.fromDocument(r.text);
  } catch (e) {
    if (e instanceof InstallError) throw e; // a broken install, not this input's problem
    const why = e instanceof KrmError ? e.message : fileErrorText(e as NodeJS.ErrnoException);
    return { error: `baremetal-krm validate: --config ${cfg}: ${why}\n` };
  }
  const results = new Results();
  const s = readSpec<IntentValidateSpec>(CONFIG, fc, results);
  if (s === undefined) return { error: results.list.map((r) => `${cfg}: ${formatResult(r)}\n`).join('') };
  return { spec: s };
}

/** Says why an item is not validated: at its line, or at the line of the field named. */
type InputFinding = (
  o: KubeObject,
  severity: 'error' | 'info',
  message: string,
  field?: { field: string; path: readonly string[] },
) => void;

/**
 * The KRM objects among the files' items. Items that cannot be read or whose header is wrong
 * (KubeObject.headerProblems: a field of the wrong type, kind without apiVersion ...) are input
 * errors; items that are not KRM objects at all (a JSON patch, a values file) are named (info)
 * and skipped, except files kustomize uses as patches; a kustomization is skipped silently. The
 * header is enough to tell: the analysis reads each item once.
 */
function krmObjects(files: FileItems[], patches: Set<string>, findings: CiFinding[], paths: Paths): KrmObjects {
  const krm: KrmObjects = { objects: [], fileOf: new Map() };
  for (const { path, objects } of files) {
    const input: InputFinding = (o, severity, message, field) => {
      // kustomize's own files and the patches they name are not KRM objects, and need not be
      if (severity === 'info' && (patches.has(paths.absolute(path)) || /(?:^|[\\/])(?:kustomization\.ya?ml|Kustomization)$/.test(path)))
        return;
      const finding: CiFinding = { rule: 'input', severity, message, file: path, line: o.sourceLine };
      if (field) {
        if (o.identityKnown) finding.resource = o.id;
        finding.field = field.field;
        finding.line = o.lineOf(field.path) ?? o.sourceLine;
      }
      findings.push(finding);
    };
    for (const o of objects) {
      if (!isKrmObject(o, input)) continue;
      krm.objects.push(o);
      krm.fileOf.set(o, path);
    }
  }
  return krm;
}

/** Whether an item is a KRM object to validate; `input` is told why not, when that is worth saying. */
function isKrmObject(o: KubeObject, input: InputFinding): boolean {
  let problems: readonly HeaderProblem[];
  try {
    problems = o.headerProblems;
  } catch (e) {
    if (!(e instanceof KrmError)) throw e;
    if (/ is not a mapping /.test(e.message)) input(o, 'info', `${e.message.split(':')[0]}: skipped, not a KRM object`);
    else input(o, 'error', e.message);
    return false;
  }
  for (const p of problems) input(o, 'error', o.headerMessage(p), p);
  // an item whose identity is known is validated (the analysis does not repeat what is said here)
  if (!o.identityKnown) return false;
  const { kind, apiVersion } = o;
  if (!kind && !apiVersion) {
    input(o, 'info', `${o.label()} has no apiVersion and kind: skipped, not a KRM object`);
    return false;
  }
  return !(kind === 'Kustomization' && apiVersion.startsWith('kustomize.config.k8s.io/'));
}

/**
 * The KRM objects of the files, in order, and the file of each (its line is its `sourceLine`):
 * one map entry per object, no record (at fleet scale a record per object is megabytes).
 */
interface KrmObjects {
  objects: KubeObject[];
  fileOf: Map<KubeObject, string>;
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
function applyKustomizations(kf: ReturnType<typeof kustomizeFacts>, krm: KrmObjects, spec: IntentValidateSpec, paths: Paths): Prepared {
  const original = new Map<KubeObject, KubeObject>();
  const { objects, fileOf } = krm;
  objects.forEach((o, i) => {
    const path = fileOf.get(o)!;
    const ns = kf.namespaceOf(path);
    if (!ns || CLUSTER_SCOPED.has(o.kind) || o.namespace === ns) return;
    const copy = KubeObject.fromDocument(o.body);
    copy.sourceLine = o.sourceLine;
    try {
      copy.set('metadata.namespace', ns);
    } catch {
      return; // not valid YAML: the analysis reports it as written
    }
    original.set(copy, o);
    objects[i] = copy;
    fileOf.delete(o);
    fileOf.set(copy, path);
  });
  const partial = new Set(objects.filter((o) => kf.patches.has(paths.absolute(fileOf.get(o)!))));
  if (kf.generated.length) {
    const s = spec as { references?: { external?: string[] } };
    spec = { ...s, references: { ...(s.references ?? {}), external: [...(s.references?.external ?? []), ...kf.generated] } };
  }
  return { spec, partial, original };
}

/**
 * The item's FieldLines for its findings: one at a time. An item's findings come together (its
 * rules run on it in one visit), so its lines are worked out once for them; keeping every item's
 * (a Map) held the lines of 20k BareMetalHosts until the end (+70 MiB peak).
 */
type LinesOf = (o: KubeObject) => FieldLines;
function linesOneAtATime(): LinesOf {
  let current: { o: KubeObject; fields: FieldLines } | undefined;
  return (o) => {
    if (current?.o !== o) current = { o, fields: new FieldLines(o) };
    return current.fields;
  };
}

/** The line a finding points at, counted in the file as written. */
function findingLineNumber(f: Finding, original: Map<KubeObject, KubeObject>, linesOf: LinesOf): number | undefined {
  let line = f.line;
  if (line === undefined && f.object && f.path) line = linesOf(original.get(f.object) ?? f.object).lineOf(f.path);
  return line ?? f.object?.sourceLine;
}

/** Absolute paths and folders of files, worked out once per file per run (asked once per object: a file holds thousands). */
interface Paths {
  absolute(path: string): string;
  folderOf(path: string): string;
}
function pathsOnce(): Paths {
  const absolutes = new Map<string, string>();
  const folders = new Map<string, string>();
  const absolute = (path: string): string => {
    let a = absolutes.get(path);
    if (a === undefined) absolutes.set(path, (a = resolve(path)));
    return a;
  };
  const folderOf = (path: string): string => {
    let d = folders.get(path);
    if (d === undefined) folders.set(path, (d = dirname(absolute(path))));
    return d;
  };
  return { absolute, folderOf };
}

/** Nothing was read: the paths named no YAML file, or stdin held no document (exit 2). */
class NothingToValidate extends Error {}

/** What was read, or NothingToValidate; files and stdin holding nothing are named (info). */
function readInputs(files: string[], notRead: string[], findings: CiFinding[], readStdin?: () => Uint8Array): ReadFiles {
  const read = readYamlFiles(files, readStdin);
  pushAll(notRead, read.skipped);
  if (read.files.length === 0 && read.errors.length === 0)
    throw new NothingToValidate(`nothing to validate: no YAML file among the paths given${notRead.map((s) => `\n  ${s}`).join('')}`);
  if (read.empty.some((e) => e.path === STDIN && e.why.startsWith(NO_DOCUMENT)))
    throw new NothingToValidate('nothing to validate: stdin held no YAML document (did the command that feeds it fail?)');
  for (const s of notRead) findings.push({ rule: 'input', severity: 'info', message: s });
  for (const e of read.errors) findings.push({ rule: 'input', severity: 'error', message: e.message, file: e.path });
  for (const e of read.empty) findings.push({ rule: 'input', severity: 'info', message: `${e.why}: nothing to validate`, file: e.path });
  return read;
}

/** Every finding of intent-validate's rules on the files (and stdin, STDIN among them), with file and line. */
async function validateFiles(
  files: string[],
  spec: IntentValidateSpec,
  findings: CiFinding[],
  secrets: Redactor,
  inputs: { notRead: string[]; readStdin?: () => Uint8Array },
): Promise<number> {
  const read = readInputs(files, inputs.notRead, findings, inputs.readStdin);
  const kf = kustomizeFacts(files.filter((f) => f !== STDIN));
  const paths = pathsOnce();
  const krm = krmObjects(read.files, kf.patches, findings, paths);
  const { objects, fileOf } = krm;
  // a document the analysis cannot read is an input finding at its file and line
  const inputError = (o: KubeObject, message: string): void => {
    if (!/not a YAML mapping/.test(message))
      findings.push({ rule: 'input', severity: 'error', message, file: fileOf.get(o), line: o.sourceLine });
  };
  const prepared = applyKustomizations(kf, krm, spec, paths);
  const results = new Results();
  const extraCrds = readExtraCrds((prepared.spec as { schemas?: { paths?: string[] } }).schemas?.paths ?? [], results);
  for (const r of results.list) findings.push({ rule: r.tags?.rule ?? 'input', severity: r.severity, message: r.message });
  const a = await analyse(objects, prepared.spec, {
    extraCrds,
    partial: prepared.partial,
    scopeOf: (o) => {
      const file = fileOf.get(o) ?? '';
      return file === STDIN ? STDIN : paths.folderOf(file);
    },
    locate: (o) => (fileOf.has(o) ? `${fileOf.get(o)}:${o.sourceLine}` : undefined),
    unreadable: inputError,
  });
  // the analysis's working state (indexes, records) is garbage now: freed before many findings are made, not under them
  if (collectBeforeResults(read.size, a.findings.length)) collectGarbage();
  // what the reader accepted as go-yaml does, though it is not standard YAML
  for (const o of objects)
    for (const n of o.notes) findings.push({ rule: 'input', severity: 'info', message: n, file: fileOf.get(o), line: o.sourceLine });
  // the credentials of the objects the findings are about (read again, not kept: the analysis keeps no tree)
  for (const o of new Set(a.findings.map((f) => f.object))) if (o) addCredentialsOf(secrets, o);
  const linesOf = linesOneAtATime();
  for (const f of a.findings) {
    const file = f.object ? fileOf.get(f.object) : undefined;
    const ref = f.object ? `${f.object.id}${f.field ? ' ' + f.field : ''}: ` : '';
    const msg = f.object && f.message.startsWith(f.object.id + ': ') ? f.message.slice(f.object.id.length + 2) : f.message;
    const finding: CiFinding = { rule: f.rule, severity: f.severity, message: ref + msg };
    if (file !== undefined) {
      finding.file = file;
      finding.line = findingLineNumber(f, prepared.original, linesOf);
    }
    if (f.object) finding.resource = f.object.id;
    if (f.field) finding.field = f.field;
    findings.push(finding);
  }
  return objects.length;
}

export async function runValidate(argv: string[], io: CliIo): Promise<number> {
  // every line, in every format, leaves through the redaction: the environment's credentials, and those of the objects findings name
  const secrets = new Redactor().addEnv(process.env);
  const err = (s: string): void => io.err(secrets.scrub(s));
  const opts = readOptions(argv);
  if (opts === 'help') {
    io.out(VALIDATE_HELP);
    return 0;
  }
  if (typeof opts === 'string') {
    err(`baremetal-krm validate: ${opts}\n`);
    return 2;
  }
  const cfg = readConfig(opts.config);
  if ('error' in cfg) {
    err(cfg.error);
    return 2;
  }
  let files: string[];
  const findings: CiFinding[] = [];
  let objects: number;
  try {
    const notRead: string[] = [];
    files = expandPaths(
      opts.paths.filter((p) => p !== '-'),
      notRead,
    );
    if (opts.paths.includes('-')) files.push(STDIN);
    objects = await validateFiles(files, cfg.spec, findings, secrets, { notRead, readStdin: io.stdin });
  } catch (e) {
    err(`baremetal-krm validate: ${missingInstallFile(e) ?? (e as Error).message}\n`);
    return 2;
  }
  for (const f of findings) f.message = secrets.scrub(f.message);
  const sorted = sortFindings(findings);
  if (opts.format === 'sarif') io.out(secrets.scrubKnown(toSarif(VALIDATE_TOOL, sorted)));
  else if (opts.format === 'junit') io.out(secrets.scrubKnown(toJUnit(VALIDATE_TOOL, sorted, files)));
  else {
    // each line scrubbed on its own, written ~64 KiB at a time: 60k findings are not 60k writes
    let batch = '';
    for (const f of sorted) {
      if (opts.quiet && f.severity !== 'error') continue;
      batch += secrets.scrub(findingLine(f) + '\n');
      if (batch.length < 1 << 16) continue;
      io.err(batch);
      batch = '';
    }
    if (batch) io.err(batch);
  }
  const count = (s: Finding['severity']): number => sorted.filter((f) => f.severity === s).length;
  const errors = count('error');
  err(`${errors} error(s), ${count('warning')} warning(s), ${count('info')} info in ${objects} object(s) from ${files.length} file(s)\n`);
  return errors > 0 ? 1 : 0;
}
