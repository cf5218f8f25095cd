/**
 * `baremetal-krm report <site>...`: one report across many sites. `reportMain(argv)` returns the
 * exit code: 0, 1 when a --fail-on threshold is broken, 2 on a usage or input error.
 */
import { OutputError, writeOutput } from '../cli/output.js';
import { Redactor } from '../secrets/redact.js';
import { InstallError, KrmError, loadYaml } from '../krm/index.js';
import { fileErrorText, readRegularFile } from '../cli/files.js';
import type { IntentValidateSpec } from '../validate/analyse.js';
import validateIntentSpec from '../validate/generated/spec.validate.js';
import validateConfig from './generated/config.validate.js';
import { ArtifactError, readArtifacts, toArtifact } from './artifact.js';
import { ajvText } from './schema-errors.js';
import { addGathered, assembleReport, gatherSite, THRESHOLDS, type ReportOptions, type ThresholdName } from './build.js';
import { ignorePatternError, type ValueClass } from './divergence.js';
import { loadSite, parseSiteArg, SiteError, type Site } from './load.js';
import { type CommandArgs, parseCommandArgs, UsageError } from '../cli/args.js';
import { REPORT_API_VERSION, REPORT_KIND, type Report } from './model.js';
import { renderHtml } from './render-html.js';
import { renderMarkdown, renderText } from './render-text.js';
import { REPORT_TOOL, reportFindings } from './findings.js';
import { toJUnit } from '../cli/junit.js';
import { toSarif } from '../cli/sarif.js';
import { isRfc3339Time } from '../model/time.js';

export const REPORT_HELP = `baremetal-krm report [options] SITE...

One report across many sites: certificates (sorted by days left), hardware per site and overall
(hosts that match none of their profiles), divergence between sites (hosts matched by role and
profile; addresses, MACs, serials and names ignored), workloads side by side, security
(plaintext secrets, insecure BMC settings) and capacity per role. The rules are
intent-validate's.

SITE is a folder of rendered YAML (read recursively), a rendered YAML file, or a folder with a
kustomization.yaml (built with \`kubectl kustomize\` first; KUBECTL overrides the binary).
Name a site with NAME=PATH; the default name is the folder or file name.

Options:
  --format FORMAT                    text (default), json (the documented schema), markdown, html,
                                     sarif (SARIF 2.1.0) or junit (JUnit XML) for CI, or artifact
                                     (one site's slice, for --merge)
  --merge                            the SITE arguments are artifacts (report --format artifact of
                                     one site each, e.g. from per-site CI jobs): the fleet report
                                     of all of them, the same as reading every site directly
  --output FILE                      write there instead of stdout
  --reference NAME                   compare every site against this one
  --fail-on LIST                     exit 1 when one of these is found (comma-separated):
                                     ${THRESHOLDS.join(', ')}
  --now TIME                         evaluate certificates at TIME (RFC 3339; env BAREMETAL_KRM_NOW)
  --warn-days N                      certificates expiring within N days are "expiring" (default 30)
  --role-label KEY                   host label naming the role (default airshipit.org/k8s-role)
  --ignore LIST                      more fields to ignore in divergence (comma-separated globs:
                                     spec.interval, **.tag, HelmRelease:spec.values.**,
                                     spec.containers[name=app].image)
  --no-default-ignores               compare addresses, MACs, serials, status, annotations too
                                     (no built-in field ignores, no MAC/IP/site-name masking)
  --config FILE                      a CrossSiteReport document (see src/report/README.md)
  --max-rows N                       rows per table in the text output (default 25, 0: all)

Exit codes: 0 done, 1 a --fail-on threshold is broken, 2 bad arguments, or a site that cannot be
read or holds no KRM object (empty files, a wrong path).
`;

const WITH_VALUE = ['format', 'output', 'reference', 'fail-on', 'now', 'warn-days', 'role-label', 'ignore', 'config', 'max-rows'];
const FLAGS = ['no-default-ignores', 'merge'];

interface ConfigSpec {
  reference?: string;
  roleLabel?: string;
  divergence?: { ignoreFields?: string[]; ignoreValues?: ValueClass[]; defaultIgnores?: boolean };
  failOn?: ThresholdName[];
  intent?: IntentValidateSpec;
}

export function readConfig(path: string): ConfigSpec {
  let doc: unknown;
  try {
    const r = readRegularFile(path);
    if ('skip' in r) throw new KrmError(`${r.skip}, not a regular file`);
    doc = loadYaml(r.text);
  } catch (e) {
    if (e instanceof InstallError) throw e; // a broken install, not this input's problem
    const why =
      e instanceof KrmError || !(e as NodeJS.ErrnoException).code ? (e as Error).message : fileErrorText(e as NodeJS.ErrnoException);
    throw new UsageError(`--config ${path}: ${why.split('\n')[0]}`);
  }
  const d = doc as { apiVersion?: unknown; kind?: unknown; spec?: unknown } | null;
  if (!d || d.kind !== REPORT_KIND || d.apiVersion !== REPORT_API_VERSION)
    throw new UsageError(`--config ${path}: expected apiVersion ${REPORT_API_VERSION}, kind ${REPORT_KIND}`);
  const spec = d.spec ?? {};
  if (!validateConfig(spec)) throw new UsageError(`--config ${path}: ${ajvText(validateConfig.errors, 'spec')}`);
  const s = spec as ConfigSpec;
  if (s.intent !== undefined && !validateIntentSpec(s.intent))
    throw new UsageError(`--config ${path}: ${ajvText(validateIntentSpec.errors, 'spec.intent')}`);
  return s;
}

export function render(report: Report, format: string, maxRows: number): string {
  switch (format) {
    case 'json':
      return JSON.stringify(report, null, 2) + '\n';
    case 'markdown':
    case 'md':
      return renderMarkdown(report);
    case 'html':
      return renderHtml(report);
    case 'sarif':
      return toSarif(REPORT_TOOL, reportFindings(report));
    case 'junit': {
      const findings = reportFindings(report);
      return toJUnit(REPORT_TOOL, findings, [...new Set(findings.map((f) => f.file).filter((f): f is string => f !== undefined))]);
    }
    default:
      return renderText(report, { maxRows });
  }
}

export async function reportMain(
  argv: string[],
  io: { out: (s: string) => void; err: (s: string) => void } = {
    out: (s) => void process.stdout.write(s),
    err: (s) => void process.stderr.write(s),
  },
): Promise<number> {
  let args: CommandArgs;
  let opts: ReportOptions;
  let format: string;
  let maxRows: number;
  let output: string | undefined;
  try {
    args = parseCommandArgs(argv, WITH_VALUE, FLAGS);
    if (args.flag('help')) {
      io.out(REPORT_HELP);
      return 0;
    }
    const one = args.one;
    output = one('output');
    const cfg = one('config') ? readConfig(one('config')!) : {};
    format = one('format') ?? 'text';
    if (!['text', 'json', 'markdown', 'md', 'html', 'sarif', 'junit', 'artifact'].includes(format))
      throw new UsageError(`--format ${format}: use text, json, markdown, html, sarif, junit or artifact`);
    const shaping = ['now', 'warn-days', 'role-label', 'ignore', 'config'].filter((k) => args.has(k));
    if (args.flag('merge') && (shaping.length > 0 || args.flag('no-default-ignores')))
      throw new UsageError(
        `--merge takes the options that shape a site's slice from the artifacts: drop --${shaping[0] ?? 'no-default-ignores'} (give it to the per-site runs)`,
      );
    if (format === 'artifact' && (args.positional.length !== 1 || args.flag('merge')))
      throw new UsageError("--format artifact takes exactly one site (an artifact is one site's slice of the report)");
    if (one('role-label') === '')
      throw new UsageError("--role-label: give the label key that names a host's role (e.g. airshipit.org/k8s-role)");
    const nowText = one('now') ?? process.env.BAREMETAL_KRM_NOW ?? cfg.intent?.now ?? new Date().toISOString();
    if (!isRfc3339Time(nowText)) {
      const from =
        one('now') !== undefined
          ? '--now'
          : process.env.BAREMETAL_KRM_NOW !== undefined
            ? 'BAREMETAL_KRM_NOW='
            : `--config ${one('config')}: intent.now`;
      throw new UsageError(`${from}${from.endsWith('=') ? '' : ' '}${nowText}: use an RFC 3339 time such as 2024-01-31T00:00:00Z`);
    }
    const failOn = [...(cfg.failOn ?? []), ...args.list('fail-on')];
    for (const f of failOn)
      if (!(THRESHOLDS as readonly string[]).includes(f))
        throw new UsageError(`--fail-on ${f}: unknown threshold; use ${THRESHOLDS.join(', ')}`);
    const intent: IntentValidateSpec = { ...(cfg.intent ?? {}) };
    const wd = one('warn-days');
    if (wd !== undefined) {
      if (!/^\d+$/.test(wd)) throw new UsageError(`--warn-days ${wd}: use a whole number of days`);
      intent.certificates = { ...intent.certificates, warnDays: Number(wd) };
    }
    const mr = one('max-rows') ?? '25';
    if (!/^\d+$/.test(mr)) throw new UsageError(`--max-rows ${mr}: use a whole number (0: all rows)`);
    maxRows = Number(mr);
    const configIgnores = cfg.divergence?.ignoreFields ?? [];
    const flagIgnores = args.list('ignore');
    for (const [from, fields] of [
      [`--config ${one('config')}: divergence.ignoreFields:`, configIgnores],
      ['--ignore', flagIgnores],
    ] as const)
      for (const f of fields) {
        const why = ignorePatternError(f);
        if (why) throw new UsageError(`${from} ${JSON.stringify(f)}: ${why}`);
      }
    opts = {
      now: nowText,
      reference: one('reference') ?? cfg.reference,
      roleLabel: one('role-label') ?? cfg.roleLabel ?? 'airshipit.org/k8s-role',
      ignoreFields: [...configIgnores, ...flagIgnores],
      usedIgnores: new Set(),
      ignoreValues: args.flag('no-default-ignores') ? [] : (cfg.divergence?.ignoreValues ?? ['mac', 'ip', 'site-name']),
      defaultIgnores: args.flag('no-default-ignores') ? false : (cfg.divergence?.defaultIgnores ?? true),
      failOn: [...new Set(failOn)] as ThresholdName[],
      intent,
    };
    if (args.positional.length === 0)
      throw new UsageError('no site given: pass one or more folders of rendered YAML, YAML files or kustomization folders');
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`baremetal-krm report: ${e.message}\n\nRun \`baremetal-krm report --help\` for the options.\n`);
      return 2;
    }
    throw e;
  }

  if (args.flag('merge')) return mergeMain(args.positional, opts, format, maxRows, output, io);
  const sites: Site[] = [];
  const names = new Set<string>();
  try {
    for (const a of args.positional) {
      const { name, path } = parseSiteArg(a);
      if (names.has(name)) throw new SiteError(`two sites are named ${name}: name them with NAME=PATH (e.g. ${name}-2=${path})`);
      names.add(name);
      sites.push(nonEmpty(loadSite(name, path)));
    }
  } catch (e) {
    if (e instanceof SiteError) {
      io.err(`baremetal-krm report: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  if (opts.reference && !names.has(opts.reference)) {
    io.err(`baremetal-krm report: --reference ${opts.reference} is not one of the sites (${[...names].join(', ')})\n`);
    return 2;
  }
  // every credential of every site (and of the environment), removed from whatever is printed
  // or written, in every format, after the report's own redaction (src/secrets)
  const secrets = new Redactor().addEnv(process.env);
  for (const s of sites) for (const o of s.objects) addSiteCredentials(secrets, o);
  const err = (s: string): void => io.err(secrets.scrub(s));
  for (const s of sites) {
    for (const line of [...s.skipped, ...s.notes]) err(`${line}\n`);
  }

  const all = await gatherSite(sites[0]!, opts);
  for (const site of sites.slice(1)) addGathered(all, await gatherSite(site, opts));
  const report = assembleReport(all, opts);
  for (const f of new Set(opts.ignoreFields))
    if (!opts.usedIgnores?.has(f))
      err(
        `baremetal-krm report: note: the ignored field pattern ${JSON.stringify(f)} matched no field of ${sites.length === 1 ? `site ${sites[0]!.name}` : `the ${sites.length} sites`}: a pattern starts at the object's root (spec.interval; **.interval at any depth)\n`,
      );
  const text = secrets.scrubKnown(format === 'artifact' ? toArtifact(all, opts) : render(report, format, maxRows));
  return finish(
    report,
    text,
    output,
    args.positional.map((a) => parseSiteArg(a).path),
    err,
    io,
  );
}

/** Writes the output (stdout or --output), says which thresholds broke, and gives the exit code. */
function finish(
  report: Report,
  text: string,
  output: string | undefined,
  /** what was read: --output may not replace it, nor be written inside it */
  inputs: readonly string[],
  err: (s: string) => void,
  io: { out: (s: string) => void },
): number {
  if (output) {
    try {
      writeOutput(output, text, inputs);
    } catch (e) {
      if (!(e instanceof OutputError)) throw e;
      err(`baremetal-krm report: ${e.message}\n`);
      return 2;
    }
  } else io.out(text);
  const broken = report.thresholds.filter((t) => t.broken);
  for (const t of broken) err(`baremetal-krm report: threshold broken: --fail-on ${t.name} (${t.count})\n`);
  return broken.length ? 1 : 0;
}

/**
 * The site, when it holds a KRM object: a report of none (empty files, a wrong path in CI) would
 * pass any --fail-on threshold while reporting nothing. What was skipped says why.
 */
function nonEmpty(site: Site): Site {
  if (site.objects.length > 0) return site;
  const skipped = site.skipped.map((s) => `\n  ${s}`).join('') || ' (its YAML files hold no document, or only Lists with no items)';
  throw new SiteError(`site ${site.name}: ${site.source} holds no KRM object (apiVersion and kind): nothing to report${skipped}`);
}

function addSiteCredentials(secrets: Redactor, o: Site['objects'][number]): void {
  try {
    secrets.addData(o.data);
  } catch {
    // skipped on load already: nothing of it is shown
  }
}

/**
 * `--merge`: the fleet report from per-site artifacts. The options that shape a slice (now,
 * role label, ignores, intent) come from the artifacts; --reference, --fail-on and the output
 * options apply here.
 */
function mergeMain(
  paths: string[],
  cli: ReportOptions,
  format: string,
  maxRows: number,
  output: string | undefined,
  io: { out: (s: string) => void; err: (s: string) => void },
): number {
  const secrets = new Redactor().addEnv(process.env);
  const err = (s: string): void => io.err(secrets.scrub(s));
  let merged: ReturnType<typeof readArtifacts>;
  try {
    if (format === 'artifact') throw new ArtifactError('--merge writes a report: use --format text, json, markdown, html, sarif or junit');
    merged = readArtifacts(paths);
  } catch (e) {
    if (!(e instanceof ArtifactError)) throw e;
    err(`baremetal-krm report: ${e.message}\n`);
    return 2;
  }
  const opts: ReportOptions = { ...merged.options, reference: cli.reference, failOn: cli.failOn };
  if (opts.reference && !merged.slice.summaries.some((s) => s.name === opts.reference)) {
    err(
      `baremetal-krm report: --reference ${opts.reference} is not one of the sites (${merged.slice.summaries.map((s) => s.name).join(', ')})\n`,
    );
    return 2;
  }
  const report = assembleReport(merged.slice, opts);
  return finish(report, secrets.scrubKnown(render(report, format, maxRows)), output, paths, err, io);
}
