/**
 * A bundle on a folder (--fn-config, --source, --sink): the folder read as kpt's source reads it,
 * written back as kpt's sink writes it; untouched files keep their bytes; nothing outside the
 * folder, nothing half-written. In process (the library) and as a process (the test bundle).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { identity } from '../../test/identity/function.js';
import { readPackageFiles, runFunction, sinkResourceList, sourceResourceList } from './index.js';

const repoRoot = join(import.meta.dirname, '../..');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'bmk-pkg-'));
  dirs.push(dir);
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    writeFileSync(join(dir, p), text);
  }
  return dir;
}

function contents(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isSymbolicLink()) out[relative(dir, p)] = '(link)';
      else out[relative(dir, p).split(sep).join('/')] = readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return out;
}

const PACKAGE = {
  Kptfile: 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n  annotations:\n    config.kubernetes.io/local-config: "true"\n',
  'hosts/two.yaml':
    '# two hosts in one file\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a # first\ndata: {k: v}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  annotations:\n    keep: "yes"\n',
  'one.yml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns\n',
  '.hidden/skip.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hidden\n',
  'notes.txt': 'not YAML',
};
const IDENTITY = 'apiVersion: baremetal-krm.dev/v1alpha1\nkind: Identity\nmetadata:\n  name: fn\n';

describe('a folder as the input and output of a function', () => {
  it('reads what kpt reads (dot-folders and other files skipped), each item annotated with its file and index', () => {
    const dir = tree(PACKAGE);
    const files = readPackageFiles(dir);
    expect(files.map((f) => f.path)).toEqual(['Kptfile', 'hosts/two.yaml', 'one.yml']);
    const list = sourceResourceList(files, IDENTITY);
    expect(list).toContain('config.kubernetes.io/path: hosts/two.yaml');
    expect(list).toContain("config.kubernetes.io/index: '1'");
    expect(list).toMatch(/functionConfig:\n {2}apiVersion: baremetal-krm.dev\/v1alpha1\n {2}kind: Identity/);
  });

  it('a function that changes nothing writes nothing: every byte (comments, flow style) stays', async () => {
    const dir = tree(PACKAGE);
    const before = contents(dir);
    const sourced = readPackageFiles(dir);
    const r = await runFunction(identity, sourceResourceList(sourced, IDENTITY));
    expect(r.exitCode).toBe(0);
    expect(sinkResourceList(dir, r.output, sourced, true)).toEqual({ written: [], removed: [], unchanged: 3 });
    expect(contents(dir)).toEqual(before);
  });

  it('a changed item rewrites its file only, in its order, without the file annotations', async () => {
    const dir = tree(PACKAGE);
    const sourced = readPackageFiles(dir);
    const config = `${IDENTITY}spec:\n  annotate: {team: metal}\n`;
    const r = await runFunction(identity, sourceResourceList(sourced, config));
    const s = sinkResourceList(dir, r.output, sourced, true);
    expect(s).toEqual({ written: ['hosts/two.yaml', 'one.yml'], removed: [], unchanged: 1 }); // the Kptfile is the package's own (local config)
    const two = readFileSync(join(dir, 'hosts/two.yaml'), 'utf8');
    expect(two).not.toContain('config.kubernetes.io');
    expect(two.indexOf('name: a')).toBeLessThan(two.indexOf('name: b'));
    expect(two).toContain('team: metal');
    expect(two).toContain('keep: "yes"');
    // and again: now nothing changes
    const again = readPackageFiles(dir);
    const r2 = await runFunction(identity, sourceResourceList(again, config));
    expect(sinkResourceList(dir, r2.output, again, true).written).toEqual([]);
  });

  it("a document's own file annotations (hand-written) stay: its bytes when unchanged, their values when changed", async () => {
    const own =
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    config.kubernetes.io/path: elsewhere.yaml # mine\n    note: keep\n';
    const dir = tree({ 'a.yaml': own });
    const sourced = readPackageFiles(dir);
    const r = await runFunction(identity, sourceResourceList(sourced, IDENTITY));
    expect(sinkResourceList(dir, r.output, sourced, true)).toEqual({ written: [], removed: [], unchanged: 1 });
    expect(contents(dir)).toEqual({ 'a.yaml': own });
    const changed = await runFunction(identity, sourceResourceList(sourced, `${IDENTITY}spec:\n  annotate: {team: metal}\n`));
    expect(sinkResourceList(dir, changed.output, sourced, true).written).toEqual(['a.yaml']);
    const text = readFileSync(join(dir, 'a.yaml'), 'utf8');
    expect(text).toContain('config.kubernetes.io/path: elsewhere.yaml');
    expect(text).not.toContain('config.kubernetes.io/index');
    expect(text).toContain('team: metal');
  });

  it('a file whose annotations or metadata are null (`annotations:`, `metadata: ~`) stays byte for byte on an unchanged run', async () => {
    const files = {
      'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n',
      'c.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations: ~\n',
      'd.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\ndata: {k: v}\n',
    };
    const dir = tree(files);
    const sourced = readPackageFiles(dir);
    const r = await runFunction(identity, sourceResourceList(sourced, IDENTITY));
    expect(sinkResourceList(dir, r.output, sourced, true).written).toEqual([]);
    expect(contents(dir)).toEqual(files);
  });

  it('new items without a file go to <kind>_<name>.yaml; files whose items are gone are removed', () => {
    const dir = tree({ 'old.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: old\n' });
    const sourced = readPackageFiles(dir);
    const output =
      'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: new\n';
    expect(sinkResourceList(dir, output, sourced, true)).toEqual({ written: ['secret_new.yaml'], removed: ['old.yaml'], unchanged: 0 });
    expect(contents(dir)).toEqual({ 'secret_new.yaml': 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: new\n' });
  });

  it('files with no documents stay; a document without metadata is not given one; comments above a changed item stay', async () => {
    const dir = tree({
      'empty.yaml': '',
      'comment.yaml': '# only a comment\n',
      'seps.yaml': '---\n---\n',
      'kustomization.yaml': '# the build\nresources:\n- a.yaml\n',
      'a.yaml':
        '# about a\n# (two lines)\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n# about b\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n',
      '.krmignore': 'ignored/\n',
      'ignored/x.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n',
    });
    const sourced = readPackageFiles(dir);
    expect(sourced.map((f) => f.path)).not.toContain('ignored/x.yaml'); // .krmignore, as kpt
    const before = contents(dir);
    const config = `${IDENTITY}spec:\n  annotate: {team: metal}\n`;
    const r = await runFunction(identity, sourceResourceList(sourced, config));
    const s = sinkResourceList(dir, r.output, sourced, true);
    expect(s.removed).toEqual([]);
    const after = contents(dir);
    for (const f of ['empty.yaml', 'comment.yaml', 'seps.yaml', 'ignored/x.yaml']) expect(after[f], f).toBe(before[f]);
    expect(after['a.yaml']).toMatch(/^# about a\n# \(two lines\)\napiVersion: v1\n/);
    expect(after['a.yaml']).toContain('---\n# about b\napiVersion: v1\n');
    expect(after['a.yaml']).toContain('team: metal');
    // a function that changes nothing: kustomization.yaml (no apiVersion, kind or metadata) keeps its bytes
    const copy = tree(before);
    const again = readPackageFiles(copy);
    const plain = await runFunction(identity, sourceResourceList(again, IDENTITY));
    expect(sinkResourceList(copy, plain.output, again, true)).toMatchObject({ written: [], removed: [] });
    expect(contents(copy)).toEqual(before);
  });

  it('a kind: List file keeps its bytes while its items do not change; changed, its items are documents, each separated', async () => {
    const listFile =
      'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n# between\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: b\n';
    const dir = tree({ 'list.yaml': listFile });
    const sourced = readPackageFiles(dir);
    const same = await runFunction(identity, sourceResourceList(sourced, IDENTITY));
    expect(sinkResourceList(dir, same.output, sourced, true)).toEqual({ written: [], removed: [], unchanged: 1 });
    expect(contents(dir)).toEqual({ 'list.yaml': listFile });
    const changed = await runFunction(identity, sourceResourceList(sourced, `${IDENTITY}spec:\n  annotate: {team: metal}\n`));
    sinkResourceList(dir, changed.output, sourced, true);
    const written = contents(dir)['list.yaml']!;
    const docs = parseAllDocuments(written);
    expect(docs.map((d) => [d.errors.length, (d.toJS() as { metadata: { name: string } }).metadata.name])).toEqual([
      [0, 'a'],
      [0, 'b'],
    ]);
    expect(written).toContain('# between\n');
  });

  it('a file that does not read is an error naming it; so is one that is not UTF-8 or holds a NUL', () => {
    const dir = tree({ 'deep/a/bad.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [a\n' });
    expect(() => sourceResourceList(readPackageFiles(dir))).toThrow(/^deep\/a\/bad\.yaml: /);
    const bin = tree({});
    writeFileSync(join(bin, 'latin1.yaml'), Buffer.from([0x61, 0x3a, 0x20, 0xe9, 0x0a]));
    expect(() => readPackageFiles(bin)).toThrow(/latin1\.yaml/);
    const nul = tree({ 'b/nul.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\u0000y\n' });
    expect(() => readPackageFiles(nul)).toThrow(
      /^b\/nul\.yaml holds a character YAML does not allow at byte offset 50 \(line 4, byte 10 of the line\); U\+0000 \(NUL/,
    );
  });

  it('never writes outside the folder or through a link: nothing is written when one path is bad', () => {
    const outside = tree({});
    const dir = tree({ 'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n' });
    symlinkSync(outside, join(dir, 'link'));
    // links whose target is missing: to a file outside, and as a folder on the way
    symlinkSync(join(outside, 'gone.yaml'), join(dir, 'dangling.yaml'));
    symlinkSync(join(outside, 'gone'), join(dir, 'dangling-dir'));
    const item = (name: string, path: string): string =>
      `- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: ${name}\n    annotations:\n      config.kubernetes.io/path: '${path}'\n`;
    for (const bad of ['../escape.yaml', '/tmp/abs.yaml', 'link/x.yaml', 'dangling.yaml', 'dangling-dir/x.yaml']) {
      const output = `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n${item('ok', 'b.yaml')}${item('bad', bad)}`;
      expect(() => sinkResourceList(dir, output), bad).toThrow(/sink folder/);
      expect(Object.keys(contents(dir)).sort()).toEqual(['a.yaml', 'dangling-dir', 'dangling.yaml', 'link']);
      expect(readdirSync(outside)).toEqual([]);
    }
    // a file and a folder of one name, a name with a NUL: refused before the first write
    const both = `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n${item('one', 'd')}${item('two', 'd/x.yaml')}`;
    expect(() => sinkResourceList(dir, both)).toThrow(/both d and d\/x\.yaml/);
    // (a NUL can only be written escaped in a double-quoted string: as it is, no reader takes it)
    const nul = `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n${item('ok', 'b.yaml')}${item('bad', 'z\\0.yaml')}`;
    expect(() => sinkResourceList(dir, nul.replace("'z\\0.yaml'", '"z\\0.yaml"'))).toThrow(/not a usable file name/);
    expect(() => sinkResourceList(dir, nul.replace('z\\0', 'z\u0000'))).toThrow(/U\+0000 \(NUL, a control character\) is not allowed/);
    expect(Object.keys(contents(dir)).sort()).toEqual(['a.yaml', 'dangling-dir', 'dangling.yaml', 'link']);
    // a name that only starts with two dots is inside
    const dots = `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n${item('dots', '..foo.yaml')}`;
    expect(sinkResourceList(dir, dots).written).toEqual(['..foo.yaml']);
  });

  it('as a process: --fn-config, --source and --sink on the test bundle; bad options exit 2 with one line', () => {
    const dir = tree(PACKAGE);
    writeFileSync(join(dir, '.fn.yaml'), `${IDENTITY}spec:\n  annotate: {team: metal}\n`);
    const bundle = join(repoRoot, 'dist/test-identity.cjs');
    const r = spawnSync(process.execPath, [bundle, '--fn-config', join(dir, '.fn.yaml'), '--source', dir, '--sink', dir], {
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('2 file(s) written, 0 removed, 1 unchanged');
    expect(readFileSync(join(dir, 'one.yml'), 'utf8')).toContain('team: metal');
    // into another folder: the same files, comments and untouched documents as they were
    const source = tree({
      'a.yaml':
        '# Copyright 2024 ACME\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n---\n# second\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: two\n',
    });
    const elsewhere = join(tree({}), 'out');
    writeFileSync(join(source, '.fn.yaml'), IDENTITY);
    const copied = spawnSync(process.execPath, [bundle, '--fn-config', join(source, '.fn.yaml'), '--source', source, '--sink', elsewhere], {
      encoding: 'utf8',
    });
    expect(copied.status, copied.stderr).toBe(0);
    expect(readFileSync(join(elsewhere, 'a.yaml'), 'utf8')).toBe(readFileSync(join(source, 'a.yaml'), 'utf8'));
    // --source alone prints the ResourceList
    const printed = spawnSync(process.execPath, [bundle, '--source', dir], { encoding: 'utf8' });
    expect(printed.status).toBe(0);
    expect(printed.stdout).toMatch(/^apiVersion: config.kubernetes.io\/v1\nkind: ResourceList\n/);
    // the sink refuses (a path outside): exit 1, nothing written
    const escaping = `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\n    annotations:\n      config.kubernetes.io/path: ../x.yaml\n`;
    const refused = spawnSync(process.execPath, [bundle, '--sink', dir], { input: escaping, encoding: 'utf8' });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/outside the sink folder: nothing written/);
    // --fn-config without --source: said before stdin is read
    const alone = spawnSync(process.execPath, [bundle, '--fn-config', join(dir, '.fn.yaml')], { encoding: 'utf8' });
    expect(alone.status).toBe(1);
    expect(alone.stderr).toMatch(/--fn-config needs --source/);
    // a file holding a NUL: named with its position, nothing written
    writeFileSync(join(dir, 'one.yml'), 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: n\u0000s\n');
    const before = contents(dir);
    const nul = spawnSync(process.execPath, [bundle, '--fn-config', join(dir, '.fn.yaml'), '--source', dir, '--sink', dir], {
      encoding: 'utf8',
    });
    expect(nul.status).toBe(1);
    expect(nul.stderr).toMatch(/^test-identity: error: one\.yml holds a character YAML does not allow at byte offset 50 \(line 4, byte 10/);
    expect(contents(dir)).toEqual(before);
    const bad = spawnSync(process.execPath, [bundle, '--sorce', dir], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
  });
});
