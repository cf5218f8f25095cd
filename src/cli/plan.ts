/**
 * `baremetal-krm plan BASE HEAD` and `baremetal-krm plan --git BASE..HEAD [PATH...]`: what a
 * change will do to the fleet (src/plan). Arguments are read with parseCommandArgs (node:util parseArgs), as every command's. The
 * document goes to stdout (or --output) and nothing else does; notes and the verdict go to
 * stderr. Exit codes: 0, 1 when a --fail-on class is hit, 2 on bad arguments or input.
 */
import { parseCommandArgs, UsageError } from './args.js';
import { SiteError } from '../report/load.js';
import { buildPlan, type TreePair } from '../plan/build.js';
import { IMPACT_CLASSES, type ImpactClass, isImpactClass, PLAN_RULES } from '../plan/classes.js';
import { GitError, parseRange, repoPathOf, repoTop } from '../plan/git.js';
import { loadGitPath, loadPath, type Loaded } from '../plan/load.js';
import type { Plan } from '../plan/model.js';
import { planFindings, renderJson, renderMarkdown, renderText } from '../plan/render.js';
import type { CiTool } from './ci-finding.js';
import { toJUnit } from './junit.js';
import { toSarif } from './sarif.js';
import type { CliIo } from './validate.js';
import { OutputError, writeOutput } from './output.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const PLAN_HELP = `baremetal-krm plan [options] BASE HEAD
baremetal-krm plan [options] --git RANGE [PATH...]

What a change does to the fleet once Flux applies it: for every object added, removed or
changed between two rendered trees, an impact class and a one-line reason from the Bare Metal
Operator's and Flux's rules (src/plan/README.md). Secret values are never read into the output.

BASE and HEAD are folders of rendered YAML (read recursively), YAML files, or folders with a
kustomization.yaml (built with \`kubectl kustomize\`). With --git, both sides come from git
objects (the work tree is not touched): RANGE is A..B, A...B (the merge base of A and B against
B, what a pull request shows) or A (against the work tree); each PATH (default: the current
folder) is planned on its own.

Options:
  --git RANGE          compare commits of the repository of the current folder
  --format FORMAT      text (default), markdown (a pull-request comment), json, sarif, junit
  --output FILE        write there instead of stdout
  --fail-on LIST       exit 1 when a change has one of these classes (comma-separated, repeatable)
                       that no baremetal-krm.dev/plan-allow annotation on the object allows

Impact classes, most severe first:
${PLAN_RULES.map((r) => `  ${r.id.padEnd(20)} ${r.short}`).join('\n')}

Exit codes: 0 done, 1 a --fail-on class is hit, 2 bad arguments or unreadable input.
`;

const FORMATS = ['text', 'markdown', 'json', 'sarif', 'junit'] as const;
type Format = (typeof FORMATS)[number];

export const PLAN_TOOL: CiTool = { command: 'plan', rules: PLAN_RULES };

interface PlanOptions {
  format: Format;
  output?: string;
  failOn: ImpactClass[];
  git?: string;
  paths: string[];
}

function readOptions(argv: string[]): PlanOptions | 'help' {
  const args = parseCommandArgs(argv, ['git', 'format', 'output', 'fail-on'], []);
  const v = { git: args.one('git'), format: args.one('format') ?? 'text', output: args.one('output'), 'fail-on': args.list('fail-on') };
  if (args.flag('help')) return 'help';
  if (!(FORMATS as readonly string[]).includes(v.format)) throw new UsageError(`--format ${v.format}: use ${FORMATS.join(', ')}`);
  const failOn: ImpactClass[] = [];
  for (const c of v['fail-on']) {
    if (!isImpactClass(c)) throw new UsageError(`--fail-on ${c}: not an impact class; use ${IMPACT_CLASSES.join(', ')}`);
    failOn.push(c);
  }
  if (v.git === undefined && args.positional.length !== 2)
    throw new UsageError('give BASE and HEAD (two folders, files or kustomizations), or --git RANGE [PATH...]');
  return { format: v.format as Format, output: v.output, failOn, git: v.git, paths: args.positional };
}

function pairs(opts: PlanOptions, io: CliIo): TreePair[] {
  // skipped documents and merged copies, as file:line: severity: message [rule] lines
  const note = (skipped: string[]): void => {
    for (const s of skipped) io.err(`${s}\n`);
  };
  // a document that could not be read is not in its side: planned without it, its objects would
  // show as removed or added (a wrong plan that may pass its gate)
  const readable = (...sides: Loaded[]): void => {
    const n = sides.reduce((sum, s) => sum + s.unreadable, 0);
    if (n > 0) throw new SiteError(`${n} document(s) or file(s) could not be read (above): no plan without them; fix them`);
  };
  if (opts.git === undefined) {
    const [b, h] = opts.paths as [string, string];
    const base = loadPath(b);
    const head = loadPath(h);
    note(base.skipped);
    note(head.skipped);
    readable(base, head);
    return [{ name: h, baseLabel: b, headLabel: h, base: base.tree, head: head.tree }];
  }
  const cwd = process.cwd();
  const top = repoTop(cwd);
  const range = parseRange(opts.git, cwd);
  return (opts.paths.length ? opts.paths : ['.']).map((p) => {
    const repoPath = repoPathOf(top, p, cwd);
    const base = loadGitPath(range.base, repoPath, top, cwd);
    const head = loadGitPath(range.head, repoPath, top, cwd);
    note(base.skipped);
    note(head.skipped);
    readable(base, head);
    // a misspelt PATH is in neither commit: an empty plan would pass every gate
    if (base.tree.entries.size === 0 && head.tree.entries.size === 0 && !existsSync(join(top, repoPath)))
      throw new SiteError(`${p}: in neither ${range.baseLabel} nor ${range.headLabel}, nor in the work tree: check the path`);
    return {
      name: p,
      baseLabel: `${range.baseLabel}:${repoPath || '.'}`,
      headLabel: `${range.headLabel}:${repoPath || '.'}`,
      base: base.tree,
      head: head.tree,
    };
  });
}

function render(plan: Plan, format: Format): string {
  switch (format) {
    case 'markdown':
      return renderMarkdown(plan);
    case 'json':
      return renderJson(plan);
    case 'sarif':
      return toSarif(PLAN_TOOL, planFindings(plan));
    case 'junit':
      return toJUnit(PLAN_TOOL, planFindings(plan), [
        ...new Set(plan.changes.map((c) => c.file).filter((f): f is string => f !== undefined)),
      ]);
    default:
      return renderText(plan);
  }
}

export async function runPlan(argv: string[], io: CliIo): Promise<number> {
  let opts: PlanOptions | 'help';
  let plan: Plan;
  try {
    opts = readOptions(argv);
    if (opts === 'help') {
      io.out(PLAN_HELP);
      return 0;
    }
    plan = buildPlan(pairs(opts, io), opts.failOn);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`baremetal-krm plan: ${e.message}\n\nRun \`baremetal-krm plan --help\` for the options.\n`);
      return 2;
    }
    if (e instanceof SiteError || e instanceof GitError) {
      io.err(`baremetal-krm plan: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const text = render(plan, opts.format);
  if (opts.output) {
    try {
      // with --git the inputs are commits, not the work tree
      writeOutput(opts.output, text, opts.git === undefined ? opts.paths : []);
    } catch (e) {
      if (!(e instanceof OutputError)) throw e;
      io.err(`baremetal-krm plan: ${e.message}\n`);
      return 2;
    }
    io.err(`baremetal-krm plan: wrote ${opts.output} (${plan.changes.length} change(s))\n`);
  } else io.out(text);
  for (const c of plan.failed) {
    const n = plan.changes.filter((x) => x.impacts.some((i) => i.class === c && !i.allowed)).length;
    io.err(`baremetal-krm plan: --fail-on ${c}: ${n} change(s)\n`);
  }
  return plan.failed.length ? 1 : 0;
}
