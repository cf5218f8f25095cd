import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blockedParent, targetInside } from './file-target.js';

describe('file targets of --sink and render --out: inside the folder, never through a file or a link', () => {
  const root = mkdtempSync(join(tmpdir(), 'file-target-'));
  it.each([
    ['a.yaml', 'ok'],
    ['a/b/c.yaml', 'ok'],
    ['a/../b.yaml', 'ok'],
    ['../x.yaml', 'outside'],
    ['a/../../x.yaml', 'outside'],
    ['/etc/passwd', 'outside'],
    ['', 'outside'],
    ['.', 'outside'],
    ['a\\b.yaml', 'unusable name'],
    ['a\0.yaml', 'unusable name'],
  ])('%j: %s', (rel, expected) => {
    const t = targetInside(root, rel);
    expect('problem' in t ? t.problem : 'ok').toBe(expected);
  });

  it('names the first folder on the way that is a file or a link out; none for new folders', () => {
    const outside = mkdtempSync(join(tmpdir(), 'file-target-out-'));
    mkdirSync(join(root, 'real'));
    writeFileSync(join(root, 'file'), '');
    symlinkSync(outside, join(root, 'link'));
    expect(blockedParent(root, join(root, 'real', 'new', 'x.yaml'))).toBeUndefined();
    expect(blockedParent(root, join(root, 'file', 'x.yaml'))).toBe(join(root, 'file'));
    expect(blockedParent(root, join(root, 'link', 'deeper', 'x.yaml'))).toBe(join(root, 'link'));
  });
});
