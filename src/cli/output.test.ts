import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OutputError, outputClash, writeOutput } from './output.js';

const dir = mkdtempSync(join(tmpdir(), 'cli-output-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('--output: never over an input, whole or not at all', () => {
  const site = join(dir, 'site');
  mkdirSync(join(site, 'hosts'), { recursive: true });
  writeFileSync(join(site, 'hosts/a.yaml'), 'kind: ConfigMap\n');
  symlinkSync(site, join(dir, 'link'));

  it('refuses an input file, a file inside an input folder, through a symbolic link too', () => {
    expect(outputClash(join(site, 'hosts/a.yaml'), [site])).toMatch(/inside the input folder/);
    expect(outputClash(join(site, 'hosts/a.yaml'), [join(site, 'hosts/a.yaml')])).toMatch(/is one of the inputs/);
    expect(outputClash(join(dir, 'link/new.txt'), [site])).toMatch(/inside the input folder/);
    expect(outputClash(join(dir, 'report.txt'), [site])).toBeUndefined();
    expect(outputClash(join(dir, 'site-report.txt'), [site])).toBeUndefined(); // a sibling whose name starts alike
    expect(() => writeOutput(join(site, 'hosts/a.yaml'), 'report', [site])).toThrow(OutputError);
    expect(readFileSync(join(site, 'hosts/a.yaml'), 'utf8')).toBe('kind: ConfigMap\n');
  });

  it('writes through a temporary file beside the target, which it leaves nowhere', () => {
    const out = join(dir, 'out', 'report.txt');
    mkdirSync(join(dir, 'out'));
    writeFileSync(out, 'old');
    writeOutput(out, 'new', [site]);
    expect(readFileSync(out, 'utf8')).toBe('new');
    expect(readdirSync(join(dir, 'out'))).toEqual(['report.txt']);
    // a failed write leaves the old file as it was, and no temporary file
    expect(() => writeOutput(join(dir, 'missing', 'r.txt'), 'x', [])).toThrow(/ENOENT/);
  });

  it('a path that is no regular file (/dev/null) is written as it is, not replaced', () => {
    expect(() => writeOutput('/dev/null', 'x', [])).not.toThrow();
  });
});
