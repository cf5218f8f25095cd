/**
 * What `baremetal-krm validate` and `report` do when there is little or nothing to check, or a
 * flag is wrong: a CI step whose glob matches nothing, or whose producer wrote nothing, fails
 * (exit 2) instead of passing; stdin is read when named (`-`); files that hold no document, only
 * comments or an empty List are named and pass; every outcome is one message, never a stack trace.
 */
import { spawnSync } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runValidate } from '../../src/cli/validate.js';
import { runFunction } from '../../src/krm/index.js';
import { reportMain } from '../../src/report/cli.js';
import { repoRoot } from '../golden.js';
import { identity } from '../identity/function.js';

const dir = mkdtempSync(join(tmpdir(), 'cli-nothing-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const configMap = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n  namespace: site\ndata:\n  k: v\n';
const plaintextSecret =
  'apiVersion: v1\nkind: Secret\nmetadata:\n  name: bmc\n  namespace: site\nstringData:\n  password: hunter2-not-encrypted\n';

function file(name: string, text: string): string {
  const path = join(dir, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

async function validate(argv: string[], stdin?: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io = { out: (s: string) => void (out += s), err: (s: string) => void (err += s), stdin: () => Buffer.from(stdin ?? '') };
  const code = await runValidate(argv, io);
  expect(err, 'never a stack trace').not.toMatch(/\n\s+at /);
  return { code, out, err };
}

describe('validate: nothing to validate is exit 2, never a pass', () => {
  it('no file given: a usage error naming - for stdin', async () => {
    const r = await validate([]);
    expect(r).toEqual({
      code: 2,
      out: '',
      err: 'baremetal-krm validate: no file given: name YAML files or folders, or - to read stdin (kustomize build . | baremetal-krm validate -) (see --help)\n',
    });
  });

  it('paths that hold no YAML file: each is named, exit 2 (in every format: nothing on stdout)', async () => {
    const text = file('notes.txt', 'not YAML\n');
    const empty = join(dir, 'empty-folder');
    mkdirSync(join(empty, '.hidden'), { recursive: true });
    writeFileSync(join(empty, '.hidden', 'x.yaml'), configMap);
    const fifoOnly = join(dir, 'fifo-only');
    mkdirSync(fifoOnly);
    execFileSync('mkfifo', [join(fifoOnly, 'pipe.yaml')]);
    for (const format of ['text', 'sarif', 'junit']) {
      const r = await validate(['--format', format, text, empty, fifoOnly]);
      expect(r.code).toBe(2);
      expect(r.out).toBe('');
      expect(r.err).toBe(
        'baremetal-krm validate: nothing to validate: no YAML file among the paths given\n' +
          `  ${text}: not a .yaml, .yml or .json file: not read\n` +
          `  ${empty}: a folder with no .yaml, .yml or .json file (dot-folders and node_modules are not read)\n` +
          `  ${join(fifoOnly, 'pipe.yaml')}: a FIFO, not a regular file: not read\n`,
      );
    }
  });

  it('a path that holds no YAML file beside one that does: named (info), the rest validated', async () => {
    const r = await validate([file('notes2.txt', 'x\n'), file('ok/cm.yaml', configMap)]);
    expect(r.code).toBe(0);
    expect(r.err).toContain(`info: ${join(dir, 'notes2.txt')}: not a .yaml, .yml or .json file: not read [input]`);
    expect(r.err).toMatch(/0 error\(s\), 0 warning\(s\), 1 info in 1 object\(s\) from 1 file\(s\)\n$/);
  });
});

describe('validate: stdin (-)', () => {
  it('reads YAML from stdin, findings at <stdin>:LINE', async () => {
    expect((await validate(['-'], configMap)).code).toBe(0);
    const r = await validate(['-'], `${configMap}---\n${plaintextSecret}`);
    expect(r.code).toBe(1);
    expect(r.err).toContain('<stdin>:15: error: Secret/site/bmc stringData.password: ');
    expect(r.err).toMatch(/1 error\(s\), 0 warning\(s\), 0 info in 2 object\(s\) from 1 file\(s\)\n$/);
  });

  it('stdin with no document (a producer that failed in a pipe) is exit 2; an empty List is a document', async () => {
    for (const input of ['', '\n\n', '# only a comment\n', '---\n']) {
      const r = await validate(['-'], input);
      expect(r.code, JSON.stringify(input)).toBe(2);
      expect(r.err).toBe(
        'baremetal-krm validate: nothing to validate: stdin held no YAML document (did the command that feeds it fail?)\n',
      );
    }
    const list = await validate(['-'], 'apiVersion: v1\nkind: List\nitems: []\n');
    expect(list.code).toBe(0);
    expect(list.err).toContain('<stdin>: info: a List with no items: nothing to validate [input]');
  });

  it('stdin and files together; - named twice is a usage error', async () => {
    const r = await validate(['-', file('both/cm.yaml', configMap)], plaintextSecret);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/in 2 object\(s\) from 2 file\(s\)\n$/);
    expect(await validate(['-', '-'])).toEqual({
      code: 2,
      out: '',
      err: 'baremetal-krm validate: - (stdin) is named twice: name it once\n',
    });
  });

  it('the built CLI reads its real stdin (a pipe), and says it is empty', () => {
    const cli = join(repoRoot, 'dist', 'baremetal-krm.cjs');
    const run = (input: string) => spawnSync(process.execPath, [cli, 'validate', '-'], { input, encoding: 'utf8' });
    const bad = run(plaintextSecret);
    expect([bad.status, bad.stderr]).toEqual([1, expect.stringContaining('<stdin>:7: error: Secret/site/bmc stringData.password: ')]);
    const empty = run('');
    expect([empty.status, empty.stderr]).toEqual([2, expect.stringContaining('stdin held no YAML document')]);
    const none = spawnSync(process.execPath, [cli, 'validate'], { input: configMap, encoding: 'utf8' });
    expect([none.status, none.stderr]).toEqual([2, expect.stringContaining('no file given')]);
  });
});

describe('validate: files with no resource pass, named', () => {
  it.each([
    ['empty.yaml', '', 'no YAML document'],
    ['blank.yaml', '\n  \n', 'no YAML document'],
    ['comments.yaml', '# nothing yet\n# really\n', 'no YAML document (only comments or ---)'],
    ['markers.yaml', '---\n---\n...\n', 'no YAML document (only comments or ---)'],
    ['list-null.yaml', 'apiVersion: v1\nkind: List\nitems: null\n', 'a List with no items'],
    ['list-none.yaml', 'apiVersion: v1\nkind: List\nmetadata:\n  resourceVersion: ""\n', 'a List with no items'],
    ['list-empty.yaml', 'apiVersion: v1\nkind: List\nitems: []\n', 'a List with no items'],
    ['list-null.json', '{"apiVersion": "v1", "kind": "List", "items": null}\n', 'a List with no items'],
    ['list-none.json', '{"apiVersion": "v1", "kind": "List"}\n', 'a List with no items'],
    ['resource-list-null.yaml', 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: null\n', 'a List with no items'],
  ])('%s', async (name, text, why) => {
    const path = file(`empty-files/${name}`, text);
    const r = await validate([path]);
    expect(r.code).toBe(0);
    expect(r.err).toBe(
      `${path}: info: ${why}: nothing to validate [input]\n0 error(s), 0 warning(s), 1 info in 0 object(s) from 1 file(s)\n`,
    );
  });

  it('a List whose items is not a list is an error naming the document, in the CLI and every function', async () => {
    for (const items of ['5', '"x"', '{a: b}', 'true']) {
      const text = `${configMap}---\napiVersion: v1\nkind: List\nitems: ${items}\n`;
      const path = file('bad-list.yaml', text);
      const r = await validate([path]);
      expect(r.code, items).toBe(1);
      expect(r.err).toMatch(
        new RegExp(
          `^${path}: error: document 2 \\(line 9\\) is a List whose items is a [a-z]+.*, not a list: write items: as a list of resources \\(items: \\[\\] for none\\) \\[input\\]\\n`,
        ),
      );
      const fn = await runFunction(identity, text);
      expect(fn.exitCode).toBe(1);
      expect(fn.output).toBe(text); // a stream with an input error goes back as it came
    }
  });

  it('a JSON List whose items is not a list: the same error', async () => {
    const text = '{"apiVersion": "v1", "kind": "List", "items": {"a": 1}}\n';
    const r = await validate([file('bad-list.json', text)]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      'bad-list.json: error: the input is a List whose items is a mapping, not a list: write items as a list of resources ([] for none) [input]',
    );
    const fn = await runFunction(identity, text);
    expect([fn.exitCode, fn.output]).toEqual([1, text]);
  });

  it('a List with no items passes through a function byte for byte, in its place', async () => {
    const text = `${configMap}---\n# none yet\napiVersion: v1\nkind: List\nitems: null\n---\n${configMap.replace('web', 'two')}---\napiVersion: v1\nkind: List\n`;
    const r = await runFunction(identity, text);
    expect(r.exitCode).toBe(0);
    expect(r.output).toBe(text);
  });
});

describe('validate: flags and --config with wrong values: exit 2, one line', () => {
  const ok = file('flags/cm.yaml', configMap);
  it.each([
    [['--format', 'xml', ok], '--format xml: use text, sarif, junit'],
    [['--format'], '--format needs a value'],
    [['--format=', ok], '--format is empty: give it a value (is a variable that should fill it unset?)'],
    [['--format', 'text', '--format', 'sarif', ok], '--format is given 2 times (text, sarif): give it once'],
    [['--quiet=yes', ok], '--quiet takes no value'],
    [['--bogus', ok], 'unknown option --bogus (see --help)'],
    [['--config'], '--config needs a value'],
    [['--config', join(dir, 'missing.yaml'), ok], `--config ${join(dir, 'missing.yaml')}: no such file (or a broken symbolic link)`],
    [['--config', dir, ok], `--config ${dir}: a folder, not a regular file`],
  ])('%j', async (argv, message) => {
    expect(await validate(argv)).toEqual({ code: 2, out: '', err: `baremetal-krm validate: ${message}\n` });
  });

  it.each([
    ['', /--config .*: no YAML document \(empty, or only comments\): write an IntentValidate document/],
    ['# later\n', /--config .*: no YAML document \(empty, or only comments\)/],
    ['apiVersion: baremetal-krm.dev/v1alpha1\nkind: IntentValidate\n---\napiVersion: v1\n', /--config .*: more than one YAML document/],
    ['apiVersion: v1\nkind: Secret\n', /functionConfig v1\/Secret is not for intent-validate/],
    ['apiVersion: baremetal-krm.dev/v1alpha1\nkind: IntentValidate\nspec: {rules: {nope: 1}}\n', /spec\.rules: unknown field "nope"/],
    ['{broken', /--config .*: line 1, column \d+: /],
    ['- a\n', /not a mapping/],
  ])('--config %j', async (text, message) => {
    const r = await validate(['--config', file('flags/config.yaml', text), ok]);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(message);
    expect(r.err.trim().split('\n')).toHaveLength(1);
  });
});

describe('report: a site with no KRM object is exit 2, not an empty report', () => {
  it('empty files, comments, an empty List; or only documents that are not KRM objects (each named)', async () => {
    const site = join(dir, 'site-empty');
    file('site-empty/a.yaml', '');
    file('site-empty/b.yaml', '# nothing\n');
    file('site-empty/c.yaml', 'apiVersion: v1\nkind: List\nitems: null\n');
    let err = '';
    let out = '';
    const io = { out: (s: string) => void (out += s), err: (s: string) => void (err += s) };
    expect(await reportMain([site], io)).toBe(2);
    expect(out).toBe('');
    expect(err).toBe(
      `baremetal-krm report: site site-empty: ${site} holds no KRM object (apiVersion and kind): nothing to report (its YAML files hold no document, or only Lists with no items)\n`,
    );
    file('site-empty/d.yaml', 'replicas: 3\n');
    err = '';
    expect(await reportMain([site], io)).toBe(2);
    expect(err).toContain(
      `holds no KRM object (apiVersion and kind): nothing to report\n  ${join(site, 'd.yaml')}:1: warning: skipped: not a KRM object`,
    );
  });
});

describe('report: flags with wrong values are exit 2, one message', () => {
  const site = join(dir, 'site-ok');
  file('site-ok/cm.yaml', configMap);
  it.each([
    [['--max-rows', '-1', site], '--max-rows needs a value (one that starts with -: write --max-rows=VALUE)'],
    [['--max-rows=-1', site], '--max-rows -1: use a whole number (0: all rows)'],
    [['--config', join(dir, 'missing.yaml'), site], `--config ${join(dir, 'missing.yaml')}: no such file (or a broken symbolic link)`],
    [['--config', site, site], `--config ${site}: a folder, not a regular file`],
    [['--role-label=', site], '--role-label is empty: give it a value (is a variable that should fill it unset?)'],
    [['--fail-on', '', site], '--fail-on is empty: give it a value (is a variable that should fill it unset?)'],
    [['--fail-on', ',,', site], '--fail-on ,,: give at least one item (comma-separated)'],
  ])('%j', async (argv, message) => {
    let err = '';
    let out = '';
    const code = await reportMain(argv, { out: (s) => void (out += s), err: (s) => void (err += s) });
    expect({ code, out, err }).toEqual({
      code: 2,
      out: '',
      err: `baremetal-krm report: ${message}\n\nRun \`baremetal-krm report --help\` for the options.\n`,
    });
  });
});
