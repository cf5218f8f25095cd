/**
 * The fleet CI examples, run here as the CI engines would run them, on a generated fleet of
 * three site packages in a throwaway git repository (a pull request changes two of them):
 *   - GitHub Actions (examples/fleet/github-actions.yaml): the `sites` job's script gives the
 *     matrix; each matrix entry's `site` steps run in their own clone (a runner each); the
 *     `fleet` job's script merges the slices;
 *   - GitLab CI (examples/fleet/gitlab-ci.yml, gitlab-site.yml): the parent `sites` script writes
 *     the child pipeline; each entry of its parallel:matrix runs the `site` script; then `fleet`.
 * The fan-in's fleet report must equal the single-machine report of the same rendered sites,
 * byte for byte, and the exit codes must say what the change does (one site deprovisions a host).
 * `uses:` steps (checkout, setup-node, upload/download-artifact, upload-sarif) are the engines'
 * own: here a clone, the machine's node, and a shared folder.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { execForm } from '../examples/kptfile.js';
import { repoRoot, run, tempDir } from '../e2e/helpers.js';

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'ci',
  GIT_AUTHOR_EMAIL: 'ci@example.com',
  GIT_COMMITTER_NAME: 'ci',
  GIT_COMMITTER_EMAIL: 'ci@example.com',
};
let bin = '';
let repo = '';

/** `baremetal-krm` on PATH, as `npm install --global baremetal-krm` would put it. */
function installCli(): string {
  const dir = tempDir('fleet-bin');
  writeFileSync(join(dir, 'baremetal-krm'), `#!/bin/sh\nexec "${process.execPath}" "${join(repoRoot, 'dist/baremetal-krm.cjs')}" "$@"\n`, {
    mode: 0o755,
  });
  return dir;
}

function sh(script: string, cwd: string, env: Record<string, string> = {}) {
  return run('bash', ['-e', '-c', script], { cwd, env: { ...GIT_ENV, PATH: `${bin}:${process.env.PATH}`, ...env } });
}

function git(cwd: string, ...args: string[]): string {
  const r = run('git', args, { cwd, env: GIT_ENV });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

/** A site package: the bmh-from-redfish generate example, its Kptfile in the exec form. */
function addSite(root: string, name: string): void {
  const dir = join(root, 'sites', name);
  cpSync(join(repoRoot, 'examples/bmh-from-redfish/generate'), dir, { recursive: true });
  for (const f of ['.expected', 'kustomization.yaml', 'README.md']) rmSync(join(dir, f), { recursive: true, force: true });
  writeFileSync(join(dir, '.krmignore'), '');
  execForm(dir);
  const cfg = join(dir, 'generate.yaml');
  writeFileSync(cfg, readFileSync(cfg, 'utf8').replace('site.example.com/rack: rack1', `site.example.com/rack: ${name}-rack1`));
  // the hosts' BMC Secrets, SOPS-encrypted as a fleet repository keeps them (values are placeholders)
  mkdirSync(join(dir, 'secrets'));
  const secret = (host: string) =>
    `apiVersion: v1\nkind: Secret\nmetadata:\n  name: ${host}-bmc-secret\n  namespace: metal3\ntype: Opaque\ndata:\n  username: ENC[AES256_GCM,data:AAAA,iv:BBBB,tag:CCCC,type:str]\n  password: ENC[AES256_GCM,data:DDDD,iv:EEEE,tag:FFFF,type:str]\nsops:\n  version: 3.10.2\n`;
  writeFileSync(join(dir, 'secrets/bmc.yaml'), ['r750-01', 'dl385-01', 'sys821ge-01'].map(secret).join('---\n'));
}

/** main: three sites; the pull request (HEAD): a label changed on site-b, a host removed from site-c. */
function makeFleet(): string {
  const root = tempDir('fleet-repo');
  for (const s of ['site-a', 'site-b', 'site-c']) addSite(root, s);
  writeFileSync(join(root, 'README.md'), '# fleet\n');
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'fleet');
  git(root, 'update-ref', 'refs/remotes/origin/main', 'HEAD');
  git(root, 'checkout', '-q', '-b', 'change');
  const cfg = join(root, 'sites/site-b/generate.yaml');
  writeFileSync(cfg, readFileSync(cfg, 'utf8').replace('site-b-rack1', 'site-b-rack2'));
  rmSync(join(root, 'sites/site-c/inventory/sys821ge-01.yaml'));
  git(root, 'commit', '-q', '-a', '-m', 'relabel site-b, retire a host of site-c');
  return root;
}

/** A runner: a fresh clone of the repository at the pull request, with origin/main. */
function runner(label: string): string {
  const dir = join(tempDir(`fleet-runner-${label}`), 'repo');
  git(repoRoot, 'clone', '-q', repo, dir);
  git(dir, 'checkout', '-q', 'change');
  return dir;
}

/** The single-machine fleet report of the rendered sites the fan-out produced (same relative paths). */
function singleMachine(runners: Map<string, string>, now: string): string {
  const dir = tempDir('fleet-single');
  for (const [site, runnerDir] of runners) cpSync(join(runnerDir, 'out/head', site), join(dir, 'out/head', site), { recursive: true });
  const args = [...runners.keys()].map((site) => `"${site}=out/head/${site}"`).join(' ');
  const r = sh(`baremetal-krm report --format markdown --now "${now}" ${args}`, dir);
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

beforeAll(() => {
  run(process.execPath, [join(repoRoot, 'scripts/build.mjs'), '--no-typecheck'], { cwd: repoRoot });
  bin = installCli();
  repo = makeFleet();
});

describe('fleet fan-out on GitHub Actions (examples/fleet/github-actions.yaml)', () => {
  type Step = { run?: string; uses?: string };
  type Job = { steps: Step[]; env?: Record<string, string> };
  const wf = parse(readFileSync(join(repoRoot, 'examples/fleet/github-actions.yaml'), 'utf8')) as { jobs: Record<string, Job> };
  const expr = (text: string, matrix: Record<string, string> = {}): string =>
    text.replace(/\$\{\{\s*github\.base_ref\s*\}\}/g, 'main').replace(/\$\{\{\s*matrix\.(\w+)\s*\}\}/g, (_, k: string) => matrix[k] ?? '');
  const scripts = (job: Job): string[] => job.steps.filter((s) => s.run && !s.run.includes('npm install')).map((s) => s.run!);

  it('selects the changed sites, runs each as its own job, and merges a fleet report equal to the single-machine one', () => {
    // 1. sites
    const sitesRunner = runner('sites');
    const output = join(sitesRunner, 'github-output');
    for (const script of scripts(wf.jobs.sites!)) {
      const r = sh(script, sitesRunner, { BASE: 'origin/main', GITHUB_OUTPUT: output });
      expect(r.status, r.stderr).toBe(0);
    }
    const outputs = Object.fromEntries(
      readFileSync(output, 'utf8')
        .trim()
        .split('\n')
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    expect(outputs.count).toBe('2');
    const matrix = JSON.parse(outputs.matrix!) as { include: { site: string; path: string }[] };
    expect(matrix.include.map((e) => e.site)).toEqual(['site-b', 'site-c']);
    // 2. one job per matrix entry, on its own runner; artifacts into one folder
    const artifacts = tempDir('fleet-gh-artifacts');
    const runners = new Map<string, string>();
    for (const entry of matrix.include) {
      const dir = runner(`gh-${entry.site}`);
      runners.set(entry.site, dir);
      const env = Object.fromEntries(Object.entries(wf.jobs.site!.env ?? {}).map(([k, v]) => [k, expr(v, entry)]));
      for (const script of scripts(wf.jobs.site!)) {
        const r = sh(expr(script, entry), dir, env);
        expect(r.status, `${entry.site}: ${r.stderr}`).toBe(0);
      }
      for (const f of [`report-${entry.site}.json`, `status-${entry.site}`]) cpSync(join(dir, 'out', f), join(artifacts, f));
    }
    expect(readFileSync(join(artifacts, 'status-site-b'), 'utf8').trim()).toBe('0');
    expect(readFileSync(join(artifacts, 'status-site-c'), 'utf8').trim()).toBe('1'); // a host would be deprovisioned
    // 3. fleet: the merge fails the pipeline (site-c's plan), and its report is the single-machine report
    const fleet = tempDir('fleet-gh-fleet');
    cpSync(artifacts, join(fleet, 'out'), { recursive: true });
    const [merge] = scripts(wf.jobs.fleet!);
    const r = sh(merge!, fleet);
    expect(r.status).toBe(1);
    const now = git(repo, 'log', '-1', '--format=%cI');
    expect(readFileSync(join(fleet, 'out/fleet.md'), 'utf8')).toBe(singleMachine(runners, now));
  });
});

describe('fleet fan-out on GitLab CI (examples/fleet/gitlab-ci.yml, gitlab-site.yml)', () => {
  type Job = { script: string[]; variables?: Record<string, string>; parallel?: { matrix: { SITE: string; SITE_PATH: string }[] } };
  const vars = (v: Record<string, string> | undefined): Record<string, string> =>
    Object.fromEntries(Object.entries(v ?? {}).map(([k, x]) => [k, String(x).replace('$CI_MERGE_REQUEST_TARGET_BRANCH_NAME', 'main')]));
  const script = (job: Job): string => job.script.filter((l) => !l.includes('npm install')).join('\n');

  it('writes the child pipeline with a matrix of the changed sites, runs it, and merges the same fleet report', () => {
    const parent = parse(readFileSync(join(repoRoot, 'examples/fleet/gitlab-ci.yml'), 'utf8')) as Record<string, Job>;
    const sitesRunner = runner('gl-sites');
    mkdirSync(join(sitesRunner, 'ci'));
    for (const f of ['gitlab-site.yml', 'gitlab-no-site.yml']) cpSync(join(repoRoot, 'examples/fleet', f), join(sitesRunner, 'ci', f));
    const r = sh(script(parent.sites!), sitesRunner, { CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main' });
    expect(r.status, r.stderr).toBe(0);
    const child = parse(readFileSync(join(sitesRunner, 'child.yml'), 'utf8')) as Record<string, Job>;
    const matrix = child.site!.parallel!.matrix;
    expect(matrix).toEqual([
      { SITE: 'site-b', SITE_PATH: 'sites/site-b' },
      { SITE: 'site-c', SITE_PATH: 'sites/site-c' },
    ]);
    const artifacts = tempDir('fleet-gl-artifacts');
    const runners = new Map<string, string>();
    for (const entry of matrix) {
      const dir = runner(`gl-${entry.SITE}`);
      runners.set(entry.SITE, dir);
      const s = sh(script(child.site!), dir, { ...vars(child.site!.variables), ...entry });
      expect(s.status, `${entry.SITE}: ${s.stderr}`).toBe(0);
      for (const f of readdirSync(join(dir, 'out')).filter((f) => /^(report|status)-/.test(f)))
        cpSync(join(dir, 'out', f), join(artifacts, f));
    }
    const fleet = tempDir('fleet-gl-fleet');
    cpSync(artifacts, join(fleet, 'out'), { recursive: true });
    const f = sh(script(child.fleet!), fleet);
    expect(f.status).toBe(1); // site-c deprovisions a host
    const now = git(repo, 'log', '-1', '--format=%cI');
    expect(readFileSync(join(fleet, 'out/fleet.md'), 'utf8')).toBe(singleMachine(runners, now));
  });

  it('writes a no-site child pipeline when the change touches no site', () => {
    const parent = parse(readFileSync(join(repoRoot, 'examples/fleet/gitlab-ci.yml'), 'utf8')) as Record<string, Job>;
    const dir = runner('gl-none');
    mkdirSync(join(dir, 'ci'));
    for (const f of ['gitlab-site.yml', 'gitlab-no-site.yml']) cpSync(join(repoRoot, 'examples/fleet', f), join(dir, 'ci', f));
    git(dir, 'checkout', '-q', '-b', 'docs', 'origin/main');
    writeFileSync(join(dir, 'README.md'), '# fleet, reworded\n');
    git(dir, 'commit', '-q', '-a', '-m', 'docs only');
    const r = sh(script(parent.sites!), dir, { CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main' });
    expect(r.status, r.stderr).toBe(0);
    expect(existsSync(join(dir, 'child.yml'))).toBe(true);
    expect(Object.keys(parse(readFileSync(join(dir, 'child.yml'), 'utf8')) as object)).toEqual(['no-site']);
  });
});
