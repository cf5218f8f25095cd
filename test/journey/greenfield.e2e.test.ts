/**
 * The greenfield journey end to end (examples/greenfield-site/journey.mjs): simulated BMCs ->
 * discover -> render (SOPS-encrypted BMC Secrets) -> flatten -> validate, from nothing, must
 * reproduce the committed site (byte for byte; the encrypted Secrets decrypted, their ciphertext
 * is new on every encryption); the drift check must catch hand edits and stale renders; a wrong hardware
 * class must stop the render; the pre-commit hooks must pass as committed.
 * Run: npm run test:e2e (or npx vitest run --config vitest.e2e.config.ts test/journey)
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, run, tempDir } from '../e2e/helpers.js';

const example = join(repoRoot, 'examples/greenfield-site');
const journey = join(example, 'journey.mjs');
const node = (args: string[]) => run(process.execPath, [journey, ...args], { cwd: repoRoot });

describe('greenfield journey', () => {
  beforeAll(() => {
    execFileSync(process.execPath, [join(repoRoot, 'scripts/build.mjs'), '--no-typecheck'], { stdio: 'inherit', cwd: repoRoot });
  });

  it('from scratch on the simulator: discover, render, flatten, validate, and no drift from the committed site', () => {
    const dir = tempDir('journey-full');
    const r = node(['--dir', dir, '--check']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('discovered 3 System(s) from 3 of 3 BMC(s)');
    expect(r.stdout).toContain('Successfully executed 3 function(s) in 1 package(s).');
    expect(r.stdout).toContain('0 error(s), 0 warning(s), 0 info in 23 object(s) from 16 file(s)');
    // what Flux applies, folder by folder, validates with default settings
    expect(r.stdout).toContain('(default settings): 2 Kustomization: no findings');
    expect(r.stdout).toContain('(default settings): 3 BareMetalHost, 6 Secret: 0 error(s)');
    // new BMC Secrets, encrypted, open to the credentials used; a second render changes nothing
    expect(r.stdout.match(/bmc-secret encrypted for 1 age recipient\(s\) \(new\)/g)).toHaveLength(3);
    expect(r.stdout.match(/decrypts to the credentials used/g)).toHaveLength(3);
    expect(r.stdout).toMatch(/\d+ files, no byte changed/);
    expect(r.stdout).toContain('no drift');
    // the simulator's password is never printed
    expect(r.stdout + r.stderr).not.toContain('BMC_PASSWORD=password');
    // the work folder really started without inventory: discovery wrote it
    expect(readFileSync(join(dir, 'site/inventory/r750-01.yaml'), 'utf8')).toBe(
      readFileSync(join(example, 'site/inventory/r750-01.yaml'), 'utf8'),
    );
  });

  it('rendering the committed inventory (what CI and pre-commit do) is idempotent', () => {
    const r = node(['--render', '--check']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('no drift');
  });

  it('the drift check catches a hand-edited rendered file', () => {
    const from = tempDir('journey-drift-src');
    cpSync(example, from, { recursive: true });
    const f = join(from, 'rendered/hosts/baremetalhost_r750-01.yaml');
    writeFileSync(f, readFileSync(f, 'utf8').replace('online: false', 'online: true'));
    const r = node(['--render', '--check', '--from', from, '--dir', tempDir('journey-drift-out')]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      "journey: drift between the committed files and the journey's output:\n  rendered/hosts/baremetalhost_r750-01.yaml: differs",
    );
  });

  it('the drift check catches a catalogue change that was not re-rendered, and a stray rendered file', () => {
    const from = tempDir('journey-stale-src');
    cpSync(example, from, { recursive: true });
    const f = join(from, 'site/catalogues/host-catalogue.yaml');
    writeFileSync(f, readFileSync(f, 'utf8').replace('oam: "e4:3d:1a:13:27:f0"', 'oam: "e4:3d:1a:13:27:f1"'));
    writeFileSync(join(from, 'rendered/hosts/old-host.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: old\n');
    const r = node(['--render', '--check', '--from', from, '--dir', tempDir('journey-stale-out')]);
    expect(r.status).toBe(1);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('  '));
    // the catalogue itself is the same on both sides: what it generates is not
    expect(lines).toEqual([
      '  site/hosts/r750-01.yaml: differs',
      '  rendered/hosts/old-host.yaml: no longer produced',
      '  rendered/hosts/secret_r750-01-network-data.yaml: differs',
    ]);
  });

  it('a host in the wrong hardware class stops the render (intent-validate in the Kptfile), nothing is written', () => {
    const from = tempDir('journey-class-src');
    cpSync(example, from, { recursive: true });
    const f = join(from, 'site/catalogues/host-catalogue.yaml');
    const text = readFileSync(f, 'utf8');
    // r750-01: 72 threads, 512 GiB; storage-nvme wants 8 flash disks, it has 3
    writeFileSync(f, text.replace('baremetal-krm.dev/hardware-profile: control-plane', 'baremetal-krm.dev/hardware-profile: storage-nvme'));
    const out = tempDir('journey-class-out');
    const r = node(['--render', '--from', from, '--dir', out]);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(
      'BareMetalHost/target-infra/r750-01 does not match HardwareClassification storage-nvme (hardware from HardwareInventory r750-01): disks matching diskSelector: wanted >= 8, found 3',
    );
    expect(r.stderr).toContain('journey: node dist/baremetal-krm.cjs render failed (exit 1)');
    expect(existsSync(join(out, 'rendered'))).toBe(false);
    expect(existsSync(join(out, 'site/hosts'))).toBe(false);
  });

  it('the README step-by-step block, run verbatim, rewrites the committed site with identical bytes', () => {
    const readme = readFileSync(join(example, 'README.md'), 'utf8');
    const block = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '').find((b) => b.includes('kpt fn eval'));
    expect(block).toBeDefined();
    const status = () => run('git', ['status', '--porcelain', '--', example], { cwd: repoRoot }).stdout;
    const before = status();
    const r = run('sh', ['-e', '-c', block!], { cwd: repoRoot });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).toContain('discovered 3 System(s) from 3 of 3 BMC(s)');
    expect(r.stdout).toContain('kind: BareMetalHost');
    expect(status()).toBe(before);
  });

  it('the pre-commit hooks pass as committed (entries run as pre-commit would)', () => {
    const pc = parse(readFileSync(join(example, '.pre-commit-config.yaml'), 'utf8')) as {
      repos: { hooks: { id: string; entry: string; files: string; exclude?: string; pass_filenames?: boolean }[] }[];
    };
    const tracked = run('git', ['ls-files'], { cwd: repoRoot }).stdout.split('\n').filter(Boolean);
    for (const h of pc.repos[0]?.hooks ?? []) {
      const files =
        h.pass_filenames === false
          ? []
          : tracked.filter((f) => new RegExp(h.files).test(f) && !(h.exclude && new RegExp(h.exclude).test(f)));
      if (h.pass_filenames !== false) expect(files.length, h.id).toBeGreaterThan(5);
      const r = run('sh', ['-c', `${h.entry} ${files.join(' ')}`], { cwd: repoRoot });
      expect(r.status, `${h.id}: ${r.stdout}${r.stderr}`).toBe(0);
    }
  });

  it('a plaintext password added to a catalogue fails the validate hook without printing it', () => {
    const dir = tempDir('journey-precommit-secret');
    const f = join(dir, 'host-catalogue.yaml');
    cpSync(join(repoRoot, 'catalogues/hosts/host-catalogue.yaml'), f);
    writeFileSync(
      f,
      readFileSync(f, 'utf8').replace(
        '      bootMode: UEFI\n      # the NIC',
        '      bootMode: UEFI\n      bmcPassword: calvin-Sup3r\n      # the NIC',
      ),
    );
    const r = run('sh', ['-c', `node dist/baremetal-krm.cjs validate ${f}`], { cwd: repoRoot });
    expect(r.status).toBe(1);
    expect(r.stdout + r.stderr).toContain('[encryption]');
    expect(r.stdout + r.stderr).not.toContain('calvin-Sup3r');
    rmSync(dir, { recursive: true, force: true });
  });
});
