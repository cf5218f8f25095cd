/**
 * `plan --git`: both sides read from git objects of a throwaway repository, never from its work
 * tree; A..B, A...B (merge base) and A (against the work tree); paths planned on their own; a
 * site added by the change is all "added"; the result equals the folder-to-folder plan.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPlan } from '../../src/cli/plan.js';
import type { Plan } from '../../src/plan/model.js';
import { repoRoot } from '../golden.js';
import { CASES, SITE, writeCase } from './cases.js';

const repo = join(repoRoot, '.e2e-out/plan-git/repo');
const caseRoot = join(repoRoot, '.e2e-out/plan-git/cases');

function git(...args: string[]): string {
  const r = spawnSync('git', args, {
    cwd: repo,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z' },
  });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

async function plan(argv: string[], cwd = repo): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const before = process.cwd();
  process.chdir(cwd);
  try {
    const code = await runPlan(argv, { out: (s) => void (out += s), err: (s) => void (err += s) });
    return { code, out, err };
  } finally {
    process.chdir(before);
  }
}

const summary = (p: Plan): string[] =>
  p.changes.map((c) => `${c.action} ${c.resource.kind}/${c.resource.name} ${c.class}: ${c.reason}`).sort();

/** Replaces the site in the repository by a case's head tree and commits it. */
function commitTree(dir: string, message: string): void {
  rmSync(join(repo, 'sites/east'), { recursive: true, force: true });
  cpSync(dir, join(repo, 'sites/east'), { recursive: true });
  git('add', '-A');
  git('commit', '-q', '-m', message);
}

beforeAll(() => {
  rmSync(join(repoRoot, '.e2e-out/plan-git'), { recursive: true, force: true });
  mkdirSync(repo, { recursive: true });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'test@example.com');
  git('config', 'user.name', 'test');
  cpSync(SITE, join(repo, 'sites/east'), { recursive: true });
  writeFileSync(join(repo, 'README.md'), 'fleet\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
});
afterAll(() => rmSync(join(repoRoot, '.e2e-out/plan-git'), { recursive: true, force: true }));

describe('plan --git', () => {
  it('A..B of two commits equals the plan of the same trees as folders, and leaves the work tree alone', async () => {
    const c = CASES.find((x) => x.name === 'host-removed')!;
    const t = writeCase(caseRoot, c);
    git('checkout', '-q', '-b', 'change');
    commitTree(t.head, 'remove node01');
    // uncommitted edits in the work tree are not part of a commit range
    writeFileSync(join(repo, 'sites/east/site/hosts/node02.yaml'), 'garbage: [\n');
    const status = git('status', '--porcelain');
    const r = await plan(['--git', 'main..change', '--format', 'json', 'sites/east']);
    expect(r.code, r.err).toBe(0);
    const viaGit = JSON.parse(r.out) as Plan;
    expect(git('status', '--porcelain')).toBe(status);
    const viaFolders = JSON.parse((await plan(['--format', 'json', t.base, t.head], repoRoot)).out) as Plan;
    expect(summary(viaGit)).toEqual(summary(viaFolders));
    expect(viaGit.changes.find((x) => x.resource.kind === 'BareMetalHost')).toMatchObject({
      class: 'deprovision',
      file: 'sites/east/site/hosts/node01.yaml',
      line: 1,
    });
    expect(viaGit.trees).toEqual([
      { name: 'sites/east', base: 'main:sites/east', head: 'change:sites/east', objects: { base: 34, head: 31 } },
    ]);
    git('checkout', '-q', '--', '.');
  });

  it('A...B plans against the merge base; A alone against the work tree', async () => {
    git('checkout', '-q', 'main');
    const c = CASES.find((x) => x.name === 'power-off')!;
    const t = writeCase(caseRoot, c);
    commitTree(t.head, 'node04 off on main'); // main moved on after the branch
    const three = JSON.parse((await plan(['--git', 'main...change', '--format', 'json', 'sites/east'])).out) as Plan;
    expect(summary(three).some((s) => s.includes('node04'))).toBe(false); // main's own change is not the branch's
    expect(summary(three).some((s) => s.startsWith('removed BareMetalHost/node01 deprovision'))).toBe(true);
    const two = JSON.parse((await plan(['--git', 'main..change', '--format', 'json', 'sites/east'])).out) as Plan;
    expect(summary(two).some((s) => s.includes('BareMetalHost/node04 power-on'))).toBe(true);
    // the work tree (main checked out) against the branch's base commit
    writeFileSync(join(repo, 'sites/east/site/hosts/node03.yaml'), '');
    const wt = await plan(['--git', 'main~1', '--format', 'json', 'sites/east']);
    const p = JSON.parse(wt.out) as Plan;
    expect(p.trees[0]!.head).toBe('work tree:sites/east');
    expect(
      summary(p)
        .filter((s) => s.includes('node03') || s.includes('node04'))
        .map((s) => s.split(':')[0]),
    ).toEqual([
      'changed BareMetalHost/node04 power-off',
      'removed BareMetalHost/node03 deprovision',
      'removed Secret/node03-bmc-secret deletion',
      'removed Secret/node03-network-data deletion',
    ]);
    git('checkout', '-q', '--', '.');
  });

  it('a site that only one side has is all added; each PATH is its own tree; bad refs exit 2', async () => {
    git('checkout', '-q', 'main');
    cpSync(SITE, join(repo, 'sites/west'), { recursive: true });
    git('add', '-A');
    git('commit', '-q', '-m', 'west');
    const r = await plan(['--git', 'HEAD~1..HEAD', '--format', 'json', 'sites/east', 'sites/west']);
    const p = JSON.parse(r.out) as Plan;
    expect(p.trees.map((x) => [x.name, x.objects])).toEqual([
      ['sites/east', { base: 34, head: 34 }],
      ['sites/west', { base: 0, head: 34 }],
    ]);
    expect(new Set(p.changes.map((c) => `${c.tree} ${c.action}`))).toEqual(new Set(['sites/west added']));
    const bad = await plan(['--git', 'nope..HEAD', 'sites/east']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('nope is not a commit of this repository');
    // a misspelt PATH is in neither commit nor the work tree: not an empty plan that passes
    const misspelt = await plan(['--git', 'main..HEAD', '--fail-on', 'deprovision', 'sites/eats']);
    expect(misspelt.code).toBe(2);
    expect(misspelt.err).toContain('sites/eats: in neither main nor HEAD, nor in the work tree');
  });

  it("A...B in a shallow clone (CI's default checkout) says what to fetch", async () => {
    const shallow = join(repoRoot, '.e2e-out/plan-git/shallow');
    // a branch with a commit of its own, so that a depth-1 clone lacks the merge base
    git('checkout', '-q', '-b', 'shallow-side', 'main');
    writeFileSync(join(repo, 'README.md'), 'side\n');
    git('commit', '-q', '-am', 'side');
    git('checkout', '-q', 'main');
    const r = spawnSync('git', ['clone', '-q', '--depth', '1', '--no-single-branch', `file://${repo}`, shallow], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    spawnSync('git', ['-C', shallow, 'checkout', '-q', 'shallow-side']);
    const p = await plan(['--git', 'origin/main...HEAD', 'sites/east'], shallow);
    expect(p.code).toBe(2);
    expect(p.err).toContain('have no merge base here: this is a shallow clone, which lacks the history: fetch it');
  });
});
