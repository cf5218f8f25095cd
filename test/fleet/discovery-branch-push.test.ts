/**
 * The discovery Job's commit step (COMMIT_SCRIPT, run by `sh` as the git image runs it) against a
 * real bare repository on disk, cloned as the Job clones it (`git clone --depth 1 --branch main
 * file://...`): the first push creates the branch, the same hardware again pushes nothing, new
 * hardware replaces the branch's commit (leased on the fetched commit), hardware that is the
 * base's again deletes the branch, and a push to the branch since the fetch is never overwritten.
 * A property test runs random sequences of runs, base moves and merges against the same rules.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMIT_SCRIPT } from '../../src/fleet/discovery.js';

type Inventory = Record<string, string>;
const SITE_PATH = 'sites/s';
const BRANCH = 'discovery/s';
const BASE: Inventory = { 'node01.yaml': 'cpus: 2\n' };
const STATES: Record<string, Inventory> = {
  base: BASE,
  more: { 'node01.yaml': 'cpus: 2\n', 'node02.yaml': 'cpus: 4\n' },
  changed: { 'node01.yaml': 'cpus: 8\n' },
  none: {},
};

let root: string;
let runs = 0;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'discovery-push-'));
  mkdirSync(join(root, 'home'));
  writeFileSync(join(root, 'commit.sh'), COMMIT_SCRIPT);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ENV = () => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: join(root, 'home'),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
});

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, env: ENV(), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

function writeInventory(dir: string, inv: Inventory): void {
  const path = join(dir, SITE_PATH, 'inventory');
  rmSync(path, { recursive: true, force: true });
  mkdirSync(path, { recursive: true });
  for (const [name, text] of Object.entries(inv)) writeFileSync(join(path, name), text);
}

/** A fleet repository (bare) whose main holds `sites/s/inventory` = BASE. */
function fleet(): string {
  const bare = join(root, `fleet-${runs++}.git`);
  git(root, 'init', '-q', '--bare', '-b', 'main', bare);
  const seed = join(root, `seed-${runs++}`);
  git(root, 'clone', '-q', `file://${bare}`, seed);
  writeInventory(seed, BASE);
  writeFileSync(join(seed, SITE_PATH, 'kustomization.yaml'), 'resources: []\n');
  git(seed, 'add', '-A');
  git(seed, 'commit', '-q', '-m', 'site s');
  git(seed, 'push', '-q', 'origin', 'HEAD:refs/heads/main');
  return bare;
}

/** Changes main as a person would: `inv` as its inventory (a merge of the pull request), else an unrelated file. */
function moveBase(bare: string, inv?: Inventory): void {
  const dir = join(root, `person-${runs++}`);
  git(root, 'clone', '-q', '--branch', 'main', `file://${bare}`, dir);
  if (inv) writeInventory(dir, inv);
  else writeFileSync(join(dir, 'README.md'), `change ${runs}\n`);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '--allow-empty', '-m', 'a change on main');
  git(dir, 'push', '-q', 'origin', 'HEAD:refs/heads/main');
}

/** One Job: the clone step as the Pod runs it, discovery writing `inv`, then the commit step. */
function job(bare: string, inv: Inventory, hook?: string): { status: number | null; out: string } {
  const work = join(root, `job-${runs++}`);
  git(root, 'clone', '-q', '--depth', '1', '--branch', 'main', `file://${bare}`, work);
  writeInventory(work, inv);
  writeFileSync(join(work, SITE_PATH, 'kustomization.yaml'), 'resources: [touched-outside-inventory]\n');
  if (hook) {
    writeFileSync(join(work, '.git/hooks/pre-push'), hook);
    chmodSync(join(work, '.git/hooks/pre-push'), 0o755);
  }
  const env = { ...ENV(), SITE: 's', SITE_PATH, BRANCH };
  const r = spawnSync('sh', [join(root, 'commit.sh')], { cwd: work, env, encoding: 'utf8' });
  return { status: r.status, out: r.stdout + r.stderr };
}

const sha = (bare: string, ref: string): string | undefined => {
  const r = spawnSync('git', ['--git-dir', bare, 'rev-parse', '--verify', '-q', ref], { env: ENV(), encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
};

/** The inventory a commit holds, and every path it changes against its parent. */
function inventoryAt(bare: string, ref: string): Inventory {
  const names = git(root, '--git-dir', bare, 'ls-tree', '--name-only', `${ref}:${SITE_PATH}/inventory`);
  return Object.fromEntries(
    names
      .split('\n')
      .filter(Boolean)
      .map((n) => [n, `${git(root, '--git-dir', bare, 'cat-file', 'blob', `${ref}:${SITE_PATH}/inventory/${n}`)}\n`]),
  );
}
const inventoryOf = (bare: string, ref: string): Inventory =>
  spawnSync('git', ['--git-dir', bare, 'rev-parse', '--verify', '-q', `${ref}:${SITE_PATH}/inventory`], { env: ENV() }).status === 0
    ? inventoryAt(bare, ref)
    : {};
const changedPaths = (bare: string, ref: string): string[] =>
  git(root, '--git-dir', bare, 'diff', '--name-only', `${ref}^`, ref).split('\n').filter(Boolean);

describe('the discovery commit step, against a bare repository', () => {
  it('pushes once, pushes nothing for the same hardware, replaces the commit for new hardware (the reviewer`s three runs)', () => {
    const bare = fleet();
    const first = job(bare, STATES.more!);
    expect(first.status, first.out).toBe(0);
    const pushed = sha(bare, BRANCH)!;
    expect(sha(bare, `${BRANCH}^`)).toBe(sha(bare, 'main'));
    expect(inventoryOf(bare, BRANCH)).toEqual(STATES.more);
    // only the inventory is committed, not what else the Pod touched
    expect(changedPaths(bare, BRANCH)).toEqual([`${SITE_PATH}/inventory/node02.yaml`]);

    const again = job(bare, STATES.more!);
    expect(again.status, again.out).toBe(0);
    expect(again.out).toContain(`no hardware change since ${BRANCH}`);
    expect(sha(bare, BRANCH)).toBe(pushed);

    const third = job(bare, STATES.changed!);
    expect(third.status, third.out).toBe(0);
    expect(third.out).not.toMatch(/stale info|rejected/);
    expect(sha(bare, BRANCH)).not.toBe(pushed);
    expect(sha(bare, `${BRANCH}^`)).toBe(sha(bare, 'main'));
    expect(inventoryOf(bare, BRANCH)).toEqual(STATES.changed);
  });

  it('pushes nothing without a change, and deletes the branch when the hardware is the base`s again', () => {
    const bare = fleet();
    const quiet = job(bare, BASE);
    expect(quiet.status, quiet.out).toBe(0);
    expect(sha(bare, BRANCH)).toBeUndefined();
    expect(job(bare, STATES.none!).status).toBe(0);
    expect(inventoryOf(bare, BRANCH)).toEqual({});
    const back = job(bare, BASE);
    expect(back.status, back.out).toBe(0);
    expect(sha(bare, BRANCH)).toBeUndefined();
  });

  it('never overwrites a push to the branch made since its fetch (the lease names the fetched commit)', () => {
    const bare = fleet();
    expect(job(bare, STATES.more!).status).toBe(0);
    const main = sha(bare, 'main')!;
    // between the fetch and the push, someone else moves the branch
    const hook = `#!/bin/sh\ngit --git-dir='${bare}' update-ref refs/heads/${BRANCH} ${main}\n`;
    const raced = job(bare, STATES.changed!, hook);
    expect(raced.status).not.toBe(0);
    expect(sha(bare, BRANCH)).toBe(main);
  });

  it('keeps its rules over random sequences of runs, base changes and merges', () => {
    const step = fc.oneof(
      fc.record({ run: fc.constantFrom(...Object.keys(STATES)) }),
      fc.record({ move: fc.constantFrom('unrelated', 'merge') }),
    );
    fc.assert(
      fc.property(fc.array(step, { minLength: 2, maxLength: 6 }), (steps) => {
        const bare = fleet();
        for (const s of steps) {
          if ('move' in s) {
            const branch = sha(bare, BRANCH);
            moveBase(bare, s.move === 'merge' && branch ? inventoryOf(bare, BRANCH) : undefined);
            continue;
          }
          const inv = STATES[s.run]!;
          const before = sha(bare, BRANCH);
          const beforeInv = before ? inventoryOf(bare, BRANCH) : undefined;
          const r = job(bare, inv);
          expect(r.status, r.out).toBe(0);
          const after = sha(bare, BRANCH);
          const baseInv = inventoryOf(bare, 'main');
          if (JSON.stringify(inv) !== JSON.stringify(baseInv)) expect(after && inventoryOf(bare, BRANCH)).toEqual(inv);
          else if (after) expect(inventoryOf(bare, BRANCH)).toEqual(inv); // merged: the branch holds the base's hardware
          // a push only when the branch's hardware changes
          expect(after === before).toBe(JSON.stringify(beforeInv) === JSON.stringify(inv) || (!before && !after));
          if (after && after !== before) expect(sha(bare, `${BRANCH}^`)).toBe(sha(bare, 'main'));
        }
      }),
      { numRuns: 4, seed: 20240611 },
    );
  });
});
