/**
 * Reading a folder costs a few file-system calls per entry, however deep the tree: a realpath per
 * folder (each one a call per folder above it) made `validate` and `report` quadratic in depth
 * (800 folders deep: 7.5 s). The calls are counted, not timed.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

const calls = { stat: 0, lstat: 0, realpath: 0 };
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  // a realpath is a call per folder of the path (Node resolves each component): counted so
  const realpathSync = Object.assign(
    (...a: Parameters<typeof fs.realpathSync>) => {
      calls.realpath += String(a[0]).split('/').length;
      return fs.realpathSync(...a);
    },
    {
      native: fs.realpathSync.native,
    },
  );
  return {
    ...fs,
    statSync: ((...a: Parameters<typeof fs.statSync>) => {
      calls.stat++;
      return fs.statSync(...a);
    }) as typeof fs.statSync,
    lstatSync: ((...a: Parameters<typeof fs.lstatSync>) => {
      calls.lstat++;
      return fs.lstatSync(...a);
    }) as typeof fs.lstatSync,
    realpathSync,
  };
});

const { filesUnder } = await import('../../src/cli/files.js');
const root = mkdtempSync(join(tmpdir(), 'walk-work-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A chain of `depth` folders with one YAML file at the bottom. */
function chain(depth: number): string {
  const top = join(root, `d${depth}`);
  let d = top;
  for (let i = 0; i < depth; i++) d = join(d, 'a');
  mkdirSync(d, { recursive: true });
  writeFileSync(join(d, 'x.yaml'), 'kind: ConfigMap\n');
  return top;
}

describe('a folder walk is linear in the entries, whatever the depth', () => {
  it('file-system calls per folder stay the same from 50 to 400 folders deep', () => {
    const perFolder: number[] = [];
    for (const depth of [50, 400]) {
      const top = chain(depth);
      Object.assign(calls, { stat: 0, lstat: 0, realpath: 0 });
      expect(filesUnder(top, (e) => e.endsWith('.yaml'))).toHaveLength(1);
      perFolder.push((calls.stat + calls.lstat + calls.realpath) / depth);
    }
    expect(perFolder[0]).toBeLessThanOrEqual(3);
    expect(perFolder[1]).toBeLessThanOrEqual(perFolder[0]! * 1.05);
  });
});
