/**
 * How `baremetal-krm validate` and `report` read files: regular files only (special ones named
 * and skipped, never read: /dev/zero never ends, a FIFO never answers), a size limit, UTF-8
 * checked, ResourceList and List files unwrapped into their items with the same findings as
 * the function, and documents that are not KRM objects reported.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { definition as intentValidate } from '../../functions/intent-validate/function.js';
import { runValidate } from '../../src/cli/validate.js';
import { runFunction } from '../../src/krm/index.js';
import { reportMain } from '../../src/report/cli.js';

async function validate(argv: string[]): Promise<{ code: number; err: string }> {
  let err = '';
  const code = await runValidate(argv, { out: () => undefined, err: (s) => (err += s) });
  return { code, err };
}

const plaintextSecret =
  'apiVersion: v1\nkind: Secret\nmetadata:\n  name: bmc\n  namespace: site\nstringData:\n  password: hunter2-not-encrypted\n';
const configMap = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n  namespace: site\ndata:\n  k: v\n';

describe('validate reads regular files only', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cli-files-'));
  writeFileSync(join(dir, 'ok.yaml'), configMap);
  symlinkSync('/dev/zero', join(dir, 'zero.yaml'));
  execFileSync('mkfifo', [join(dir, 'pipe.yaml')]);

  it('names a character device and a FIFO as not read, and checks the rest (no hang, no growth)', async () => {
    const r = await validate([dir]);
    expect(r.code).toBe(0);
    expect(r.err).toContain(`info: ${join(dir, 'pipe.yaml')}: a FIFO, not a regular file: not read [input]`);
    expect(r.err).toContain(`info: ${join(dir, 'zero.yaml')}: a character device, not a regular file: not read [input]`);
    expect(r.err).toMatch(/0 error\(s\), 0 warning\(s\), 2 info in 1 object\(s\) from 3 file\(s\)\n$/);
  });

  it('refuses a file over the size limit with a clear error, and one that is not UTF-8 or holds a NUL with the byte offset', async () => {
    const big = join(dir, 'big', 'huge.yaml');
    mkdirSync(join(dir, 'big'));
    writeFileSync(big, '');
    truncateSync(big, 300 * 1024 * 1024); // sparse: nothing is written
    const latin1 = join(dir, 'big', 'latin1.yaml');
    writeFileSync(
      latin1,
      Buffer.concat([Buffer.from('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: caf'), Buffer.from([0xe9]), Buffer.from('\n')]),
    );
    const nul = join(dir, 'big', 'nul.yaml');
    writeFileSync(nul, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  k: a\u0000b\n');
    const r = await validate([join(dir, 'big')]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${big}: error: larger than 256 MiB: not read; split it [input]`);
    expect(r.err).toContain(
      `${nul}: error: the file holds a character YAML does not allow at byte offset 63 (line 6, byte 7 of the line); U+0000 (NUL, a control character) is not allowed in YAML`,
    );
    expect(r.err).toContain(
      `${latin1}: error: the file is not valid UTF-8: byte 0xE9 at byte offset 52 (line 4, byte 12 of the line); YAML is read as UTF-8: convert the file (e.g. iconv -f latin1 -t utf-8) [input]`,
    );
  });
});

describe('validate unwraps ResourceList and List files: the same findings as the function', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cli-lists-'));
  const items = [plaintextSecret, configMap];
  const rl =
    'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n' +
    items.map((d) => '- ' + d.trimEnd().replace(/\n/g, '\n  ') + '\n').join('');
  const list =
    'apiVersion: v1\nkind: List\nmetadata:\n  resourceVersion: ""\nitems:\n' +
    items.map((d) => '- ' + d.trimEnd().replace(/\n/g, '\n  ') + '\n').join('');
  const jsonList = JSON.stringify(
    {
      apiVersion: 'v1',
      kind: 'List',
      items: [
        {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'bmc', namespace: 'site' },
          stringData: { password: 'hunter2-not-encrypted' },
        },
      ],
    },
    null,
    2,
  );

  it.each([
    ['resource-list.yaml', rl],
    ['kubectl-get.yaml', list],
    ['kubectl-get.json', jsonList],
  ])('%s', async (file, text) => {
    writeFileSync(join(dir, file), text);
    const cli = await validate([join(dir, file)]);
    const fn = await runFunction(intentValidate as never, text);
    expect(cli.code).toBe(1);
    expect(fn.exitCode).toBe(1);
    const fnErrors = fn.results.filter((r) => r.severity === 'error').map((r) => r.tags?.rule);
    const cliErrors = [...cli.err.matchAll(/: error: .*\[([a-z-]+)\]$/gm)].map((m) => m[1]);
    expect(cliErrors).toEqual(fnErrors);
    expect(cliErrors).toContain('encryption');
    // the finding's line is the field's line in the file
    const line = text.split('\n').findIndex((l) => l.includes('password')) + 1;
    expect(cli.err).toContain(`${file}:${line}: error: Secret/site/bmc stringData.password:`);
  });
});

describe('documents that are not KRM objects', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cli-nonkrm-'));

  it('a list or a mapping without apiVersion/kind is named and skipped (info); half a type is an error; broken YAML an error with its line', async () => {
    const file = join(dir, 'mixed.yaml');
    writeFileSync(
      file,
      `${configMap}---\n- op: add\n  path: /x\n---\nreplicas: 3\n---\nkind: Deployment\nmetadata:\n  name: half\n---\na: [\n`,
    );
    const r = await validate([file]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${file}:9: info: document 2 is not a mapping (it is a list): skipped, not a KRM object [input]`);
    expect(r.err).toContain(`${file}:12: info: document 3 has no apiVersion and kind: skipped, not a KRM object [input]`);
    expect(r.err).toContain(
      `${file}:14: error: document 4 named half: apiVersion is missing (the item has kind: every KRM resource needs both): `,
    );
    expect(r.err).toMatch(new RegExp(`${file}:18: error: document 5 is not valid YAML at line 19, column 1: `));
  });
});

describe('report', () => {
  it('--fail-on errors fails on a document that does not parse', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'report-broken-'));
    mkdirSync(join(dir, 'site'));
    writeFileSync(join(dir, 'site', 'ok.yaml'), configMap);
    writeFileSync(join(dir, 'site', 'broken.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [x\n');
    const run = async (argv: string[]): Promise<{ code: number; err: string }> => {
      let err = '';
      const code = await reportMain(argv, { out: () => undefined, err: (s) => (err += s) });
      return { code, err };
    };
    const plain = await run(['--format', 'json', join(dir, 'site')]);
    expect(plain.code).toBe(0);
    expect(plain.err).toMatch(
      /site\/broken\.yaml:1: error: skipped: does not parse as YAML \(document 1 is not valid YAML at line 5, column 1: .*\) \[input\]\n/,
    );
    const strict = await run(['--fail-on', 'errors', '--format', 'json', join(dir, 'site')]);
    expect(strict.code).toBe(1);
    expect(strict.err).toContain('threshold broken: --fail-on errors (1)');
  });
});
