/**
 * A stdin the parent made non-blocking (O_NONBLOCK on the pipe it gives): the bundle and the CLI
 * wait for its bytes and lose none. They once read the rest as a stream after an EAGAIN and
 * dropped what they had read. Node's own spawn makes a child's stdio blocking, so the parent
 * here is a small Python program (as a shell, a CI runner or an editor may be).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resourceList } from '../golden.js';

const root = join(import.meta.dirname, '../..');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Sets O_NONBLOCK on a pipe's read end, starts the command on it, writes the input in two parts 300 ms apart. */
const PARENT = `
import fcntl, os, subprocess, sys, time
data = open(sys.argv[1], 'rb').read()
r, w = os.pipe()
fcntl.fcntl(r, fcntl.F_SETFL, fcntl.fcntl(r, fcntl.F_GETFL) | os.O_NONBLOCK)
p = subprocess.Popen(sys.argv[2:], stdin=r, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
os.close(r)
half = len(data) // 2
try:
    os.write(w, data[:half]); time.sleep(0.3); os.write(w, data[half:])
except BrokenPipeError:
    pass
os.close(w)
out, err = p.communicate()
sys.stdout.buffer.write(out); sys.stderr.buffer.write(err); sys.exit(p.returncode)
`;
const python = spawnSync('python3', ['--version']).status === 0;

function throughNonBlockingStdin(args: string[], input: string): { status: number | null; stdout: string; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'bmk-nonblock-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'in'), input);
  const r = spawnSync('python3', ['-c', PARENT, join(dir, 'in'), process.execPath, ...args], { encoding: 'utf8', cwd: root });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const docs = Array.from({ length: 20 }, (_, i) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${i}\ndata:\n  k: v${i}\n`);

describe.skipIf(!python)('a non-blocking stdin (needs python3 as the parent)', () => {
  it('the bundle reads all of it: a ResourceList written in two parts comes out whole', () => {
    const input = resourceList(docs);
    const r = throughNonBlockingStdin([join(root, 'dist/test-identity.cjs')], input);
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toBe(input);
  });

  it('the CLI reads all of it (validate -): every document counted', () => {
    const r = throughNonBlockingStdin([join(root, 'dist/baremetal-krm.cjs'), 'validate', '-'], docs.join('---\n'));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('in 20 object(s)');
  });
});
