/**
 * `baremetal-krm fleet sites [ROOT] [--changed BASE..HEAD] [--format ...]`: the site packages of
 * a fleet repository, or only those a change touches, as a list or as a CI matrix (GitHub
 * Actions `strategy.matrix`, GitLab `parallel:matrix`), so that CI fans out one job per site.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseCommandArgs } from './args.js';
import { changedSites, indexFleet, matrixEntries, type SitePackage } from '../fleet/sites.js';
import { redactToolOutput } from '../secrets/redact.js';
import { shallowHint } from '../plan/git.js';

export const FLEET_HELP = `baremetal-krm fleet sites [ROOT] [--changed BASE..HEAD] [--format text|json|github|gitlab]

Lists the site packages under ROOT (default: .): folders with a Kptfile, airshipctl sites (a
metadata.yaml of kind ManifestMetadata), and kustomizations no other kustomization refers to;
the outermost one wins. With --changed, only the sites whose inputs changed between two git
revisions: a file under the site, or under a folder or file the site's kustomizations and
Kptfiles refer to, followed transitively (shared types, catalogues, functions). The tree is read
as it is checked out (HEAD).

  --changed BASE..HEAD   git revisions to compare (origin/main..HEAD; origin/main...HEAD: since
                         the merge base, what a pull request shows)
  --format FORMAT        text (one folder a line, the default), json ([{site, path, kind}]),
                         github ({"include": [...]} for strategy.matrix: fromJSON(...)),
                         gitlab (a parallel:matrix block with SITE and SITE_PATH)

A kustomization or Kptfile that cannot be read is a warning naming it; every change then selects
the sites using it. Two sites going by one matrix name (a/east and a-east: "a-east") are an error
(json, github, gitlab).

Exit codes: 0 (also when no site is selected), 2 on usage errors, when git fails or two sites
share a matrix name.
`;

interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
}

/**
 * The files that differ between two revisions, relative to `root`. Paths come NUL-separated
 * (`-z`: no quoting, so `sites/zürich` is `sites/zürich`); a revision never reaches git as an
 * option (`-x..HEAD` is refused, and `--end-of-options` ends git's options before the revisions).
 */
export function gitChangedFiles(root: string, range: string): string[] {
  const m = /^([^.\s][^\s]*?)\.\.(\.?)([^.\s][^\s]*)$/.exec(range);
  if (!m) throw new Error(`--changed takes BASE..HEAD (two git revisions), got "${range}"`);
  if (m[1]!.startsWith('-') || m[3]!.startsWith('-'))
    throw new Error(`--changed ${range}: a git revision does not start with "-" (it would be read as an option)`);
  // A...B: what B changed since the merge base (what a pull request shows); A..B: between the two
  const revs = m[2] ? [`${m[1]}...${m[3]}`] : [m[1]!, m[3]!];
  const args = ['-c', 'core.quotePath=false', '-C', root, 'diff', '--name-only', '-z', '--no-renames', '--relative'];
  // node:child_process on first use: loading it (with net and stream) costs every CLI start ~10 ms
  const r = process
    .getBuiltinModule('node:child_process')
    .spawnSync('git', [...args, '--end-of-options', ...revs, '--'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.error || r.status !== 0)
    throw new Error(
      redactToolOutput(
        `git diff ${range} failed in ${root}: ${(r.stderr || r.error?.message || '').trim().split('\n')[0]}${/no merge base/.test(r.stderr ?? '') ? shallowHint(root) : ''}`,
      ),
    );
  return r.stdout.split('\0').filter((l) => l !== '');
}

function render(sites: SitePackage[], fleet: SitePackage[], format: string): string {
  if (format === 'text') return sites.map((s) => `${s.path || '.'}\n`).join('');
  const entries = matrixEntries(sites, fleet);
  switch (format) {
    case 'json':
      return `${JSON.stringify(entries, null, 2)}\n`;
    case 'github':
      return `${JSON.stringify({ include: entries })}\n`;
    case 'gitlab':
      // GitLab refuses an empty matrix: with no site, a job that says so
      if (entries.length === 0) return 'parallel:\n  matrix: []\n';
      return `parallel:\n  matrix:\n${entries.map((e) => `    - SITE: ${JSON.stringify(e.site)}\n      SITE_PATH: ${JSON.stringify(e.path)}\n`).join('')}`;
    default:
      return entries.map((e) => `${e.path}\n`).join('');
  }
}

export async function runFleet(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    io.out(FLEET_HELP);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== 'sites') {
    io.err(`baremetal-krm fleet: unknown subcommand "${sub}" (see --help)\n`);
    return 2;
  }
  let parsed: ReturnType<typeof parseSitesArgs>;
  try {
    parsed = parseSitesArgs(rest);
  } catch (e) {
    io.err(`baremetal-krm fleet sites: ${(e as Error).message}\n`);
    return 2;
  }
  if (parsed.help) {
    io.out(FLEET_HELP);
    return 0;
  }
  const root = resolve(parsed.root);
  const kind = statSync(root, { throwIfNoEntry: false });
  if (!kind?.isDirectory()) {
    io.err(
      `baremetal-krm fleet sites: ROOT ${parsed.root}: ${kind ? 'not a folder' : 'no such folder'}: give the fleet repository's folder (default: .)\n`,
    );
    return 2;
  }
  try {
    const index = indexFleet(root);
    for (const u of index.unreadable)
      io.err(`warning: ${u.file} ${u.reason}: what it refers to is unknown, so every change selects the sites using it; fix the file\n`);
    const sites = parsed.changed ? changedSites(index, gitChangedFiles(root, parsed.changed)) : index.sites;
    const text = render(sites, index.sites, parsed.format);
    io.out(text);
    io.err(`${sites.length} of ${index.sites.length} site(s)${parsed.changed ? ` changed in ${parsed.changed}` : ''}\n`);
    return 0;
  } catch (e) {
    io.err(`baremetal-krm fleet sites: ${(e as Error).message}\n`);
    return 2;
  }
}

function parseSitesArgs(argv: string[]): { root: string; changed?: string; format: string; help: boolean } {
  const args = parseCommandArgs(argv, ['changed', 'format'], []);
  const positionals = args.positional;
  if (positionals.length > 1) throw new Error(`one ROOT folder at most, got ${positionals.length}`);
  const format = args.one('format') ?? 'text';
  if (!['text', 'json', 'github', 'gitlab'].includes(format))
    throw new Error(`--format must be text, json, github or gitlab, got "${format}"`);
  return { root: positionals[0] ?? '.', changed: args.one('changed'), format, help: args.flag('help') };
}
