/**
 * End to end with the real kpt: the simulator (dist/redfish-sim.cjs, its own process) serves 4
 * BMCs; `kpt fn eval --exec dist/bmh-from-redfish.cjs` discovers them into a copy of
 * examples/bmh-from-redfish/discover (its inventory removed), then `kpt fn render --allow-exec` (the
 * example's Kptfile in its exec form) generates the BareMetalHosts. A BMC that does not answer fails the run with one
 * error naming it, or, with `baremetal-krm.dev/report-only: "true"`, is a warning and the good
 * BMCs' inventory is written.
 *
 * kpt passes its own environment to exec functions and refuses `--env` for them ("--mount,
 * --as-current-user, --network and --env can only be used with container functions"), so the
 * credentials are set in kpt's environment here; `--env BMC_PASSWORD` is for container functions.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dist, listFiles, repoRoot, run, tempDir } from '../../test/e2e/helpers.js';
import { execForm } from '../../test/examples/kptfile.js';

const PASSWORD = 'e2e-Redfish-pw-7f3a9c';
const ENV = { BMC_USERNAME: 'root', BMC_PASSWORD: PASSWORD };
let sim: ChildProcessByStdio<null, Readable, null>;
let bmcs: { url: string; tree: string }[];

beforeAll(async () => {
  sim = spawn(process.execPath, [dist('redfish-sim'), '--count', '4', '--username', 'root', '--password', PASSWORD, '--json'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  bmcs = await new Promise((resolve, reject) => {
    let buf = '';
    sim.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      if (buf.includes('\n')) resolve(JSON.parse(buf) as { url: string; tree: string }[]);
    });
    sim.on('exit', (c) => reject(new Error(`simulator exited ${c}`)));
  });
});
afterAll(() => {
  sim?.kill('SIGTERM');
});

/**
 * A copy of examples/bmh-from-redfish at the same place in a tree with dist/ at its root: the
 * Kptfile's `exec: ./dist/bmh-from-redfish.cjs` works unchanged when kpt runs from that root
 * (kpt resolves exec paths from its working directory, not from the Kptfile).
 */
function examplePackage(prefix: string): { site: string; dir: string } {
  const dir = tempDir(prefix);
  mkdirSync(join(dir, 'examples'));
  cpSync(join(repoRoot, 'examples/bmh-from-redfish'), join(dir, 'examples/bmh-from-redfish'), { recursive: true });
  symlinkSync(join(repoRoot, 'dist'), join(dir, 'dist'));
  const site = join(dir, 'examples/bmh-from-redfish/discover');
  // the example as it was before discovery: no inventory, and the exec form of its Kptfile
  rmSync(join(site, 'inventory'), { recursive: true, force: true });
  rmSync(join(site, '.expected'), { recursive: true, force: true });
  execForm(site);
  return { dir, site };
}

/** The example discover config with the simulator's addresses (and more BMCs, annotations). */
function discoverConfig(dir: string, extraBmcs = '', annotations = ''): string {
  let cfg = readFileSync(join(repoRoot, 'examples/bmh-from-redfish/discover/discover.yaml'), 'utf8');
  bmcs.forEach((b, i) => (cfg = cfg.replace(`http://127.0.0.1:${18441 + i}`, b.url)));
  if (annotations)
    cfg = cfg.replace('    config.kubernetes.io/local-config: "true"\n', `    config.kubernetes.io/local-config: "true"\n${annotations}`);
  cfg += extraBmcs;
  const file = join(dir, 'discover.yaml');
  writeFileSync(file, cfg);
  return file;
}

function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(listFiles(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
}

function docs(file: string): Record<string, any>[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS() as Record<string, any>);
}

describe('bmh-from-redfish with kpt', () => {
  it('discover (kpt fn eval --exec) then generate (kpt fn render), idempotent, no password anywhere', () => {
    expect(bmcs.map((b) => b.tree)).toEqual(['dmtf-public-rackmount1', 'libredfish-dell', 'libredfish-hpe', 'libredfish-supermicro']);
    const { dir, site } = examplePackage('bmh-kpt');
    const cfg = discoverConfig(dir);

    const d = run('kpt', ['fn', 'eval', '--exec', dist('bmh-from-redfish'), '--fn-config', cfg, site, '--truncate-output=false'], {
      env: ENV,
    });
    expect(d.status, d.stderr).toBe(0);
    expect(d.stderr).toMatch(
      /\[info\] baremetal-krm\.dev\/v1alpha1\/BMHFromRedfish\/discover: discovered 4 System\(s\) from 4 of 4 BMC\(s\)/,
    );
    const inventory = ['rack1-r01', 'rack1-r02', 'rack1-r03', 'rack1-r04'].map((n) => `inventory/${n}.yaml`);
    expect(listFiles(site).filter((f) => f.startsWith('inventory/'))).toEqual(inventory);
    const r02 = docs(join(site, 'inventory/rack1-r02.yaml'))[0]!;
    expect(r02.kind).toBe('HardwareInventory');
    expect(r02.metadata.annotations['config.kubernetes.io/local-config']).toBe('true');
    expect(r02.spec.system).toMatchObject({ manufacturer: 'Dell Inc.', model: 'PowerEdge R750', serviceTag: expect.any(String) });
    expect(r02.spec.bmc).toEqual({ address: bmcs[1]!.url, systemPath: '/redfish/v1/Systems/System.Embedded.1', virtualMedia: true });

    const g = run('kpt', ['fn', 'render', '--allow-exec', 'examples/bmh-from-redfish/discover', '--truncate-output=false'], { cwd: dir });
    expect(g.status, g.stderr).toBe(0);
    const hosts = listFiles(site).filter((f) => f.startsWith('hosts/'));
    expect(hosts).toEqual(['hosts/rack1-r01.yaml', 'hosts/rack1-r02.yaml', 'hosts/rack1-r03.yaml', 'hosts/rack1-r04.yaml']);
    const [bmh, hwd] = docs(join(site, 'hosts/rack1-r02.yaml'));
    expect(bmh!.kind).toBe('BareMetalHost');
    expect(bmh!.metadata).toMatchObject({ name: 'rack1-r02', namespace: 'metal3' });
    expect(bmh!.spec.bmc.address).toBe(`idrac-virtualmedia+http://${new URL(bmcs[1]!.url).host}/redfish/v1/Systems/System.Embedded.1`);
    expect(bmh!.spec.bmc.credentialsName).toBe('rack1-r02-bmc-secret');
    expect(bmh!.spec.bootMACAddress).toBe('b8:3f:d2:90:97:c4'); // BIOS HttpDev1Interface NIC.Slot.5-1 (testdata/README.md)
    expect(bmh!.spec.online).toBe(false);
    expect(bmh!.spec.inspectionMode).toBe('disabled');
    expect(hwd!.kind).toBe('HardwareData');
    const hpe = docs(join(site, 'hosts/rack1-r03.yaml'))[0]!;
    expect(hpe.spec.bootMACAddress).toBe('b8:3f:d2:d7:f7:4a');
    expect(hpe.spec.bmc.address).toMatch(/^redfish-virtualmedia\+http:\/\/127\.0\.0\.1:\d+\/redfish\/v1\/Systems\/1$/);
    expect(existsSync(join(site, 'catalogue/host-catalogue.yaml'))).toBe(true);

    // nothing secret: not in any file, not in what kpt printed
    const files = snapshot(site);
    for (const [f, text] of Object.entries(files)) expect(text.includes(PASSWORD), f).toBe(false);
    expect(d.stdout + d.stderr + g.stdout + g.stderr).not.toContain(PASSWORD);

    // a second render changes nothing; re-discovering the same hardware changes nothing
    const again = run('kpt', ['fn', 'render', '--allow-exec', 'examples/bmh-from-redfish/discover', '--truncate-output=false'], {
      cwd: dir,
    });
    expect(again.status, again.stderr).toBe(0);
    expect(snapshot(site)).toEqual(files);
    const d2 = run('kpt', ['fn', 'eval', '--exec', dist('bmh-from-redfish'), '--fn-config', cfg, site, '--truncate-output=false'], {
      env: ENV,
    });
    expect(d2.status, d2.stderr).toBe(0);
    expect(snapshot(site)).toEqual(files);
  });

  it('discover as the discovery CronJob runs it (--fn-config, --source, --sink on the folder): the same files as kpt fn eval', () => {
    const viaKpt = examplePackage('bmh-kpt-eval');
    const d = run(
      'kpt',
      ['fn', 'eval', '--exec', dist('bmh-from-redfish'), '--fn-config', discoverConfig(viaKpt.dir), viaKpt.site, '--truncate-output=false'],
      { env: ENV },
    );
    expect(d.status, d.stderr).toBe(0);
    const alone = examplePackage('bmh-sink');
    const cfg = discoverConfig(alone.dir);
    const args = [dist('bmh-from-redfish'), '--fn-config', cfg, '--source', alone.site, '--sink', alone.site];
    const s = run(process.execPath, args, { env: ENV });
    expect(s.status, s.stderr).toBe(0);
    expect(s.stderr).toMatch(/4 file\(s\) written, 0 removed/);
    expect(s.stdout + s.stderr).not.toContain(PASSWORD);
    expect(snapshot(alone.site)).toEqual(snapshot(viaKpt.site));
    // again: the same hardware writes nothing
    const again = run(process.execPath, args, { env: ENV });
    expect(again.stderr).toMatch(/0 file\(s\) written, 0 removed/);
  });

  it('a BMC that does not answer: one error naming it, nothing written; with report-only a warning, and the good BMCs are written', () => {
    const { dir, site } = examplePackage('bmh-kpt-fail');
    const dead = '    - address: http://127.0.0.1:9\n      name: rack1-r05\n';
    const before = snapshot(site);
    const failing = run(
      'kpt',
      ['fn', 'eval', '--exec', dist('bmh-from-redfish'), '--fn-config', discoverConfig(dir, dead), site, '--truncate-output=false'],
      { env: ENV },
    );
    expect(failing.status).not.toBe(0);
    const errors = failing.stderr.split('\n').filter((l) => l.includes('[error]'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('bmcs[4] (rack1-r05, http://127.0.0.1:9): discovery failed: Systems: connection refused');
    expect(errors[0]).toContain('spec.bmcs[4].address');
    expect(snapshot(site)).toEqual(before); // kpt writes nothing when the function fails

    const reportOnly = run(
      'kpt',
      [
        'fn',
        'eval',
        '--exec',
        dist('bmh-from-redfish'),
        '--fn-config',
        discoverConfig(dir, dead, '    baremetal-krm.dev/report-only: "true"\n'),
        site,
        '--truncate-output=false',
      ],
      { env: ENV },
    );
    expect(reportOnly.status, reportOnly.stderr).toBe(0);
    expect(reportOnly.stderr).not.toContain('[error]');
    expect(reportOnly.stderr).toMatch(
      /\[warning\] baremetal-krm\.dev\/v1alpha1\/BMHFromRedfish\/discover spec\.bmcs\[4\]\.address: bmcs\[4\] \(rack1-r05, http:\/\/127\.0\.0\.1:9\): discovery failed: Systems: connection refused/,
    );
    expect(listFiles(site).filter((f) => f.startsWith('inventory/'))).toEqual([
      'inventory/rack1-r01.yaml',
      'inventory/rack1-r02.yaml',
      'inventory/rack1-r03.yaml',
      'inventory/rack1-r04.yaml',
    ]);
    expect(reportOnly.stdout + reportOnly.stderr + failing.stdout + failing.stderr).not.toContain(PASSWORD);

    // the four good hosts render
    const g = run('kpt', ['fn', 'render', '--allow-exec', 'examples/bmh-from-redfish/discover', '--truncate-output=false'], { cwd: dir });
    expect(g.status, g.stderr).toBe(0);
    expect(listFiles(site).filter((f) => f.startsWith('hosts/'))).toHaveLength(4);
  });
});
