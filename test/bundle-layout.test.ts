/**
 * A function bundle is dist/<fn>.cjs (a launcher), dist/lib/<fn>.js (its code), dist/lib/<fn>.cache
 * (V8's code cache, made by the build) and dist/lazy/ (modules some runs load): it runs the same
 * from a copy of dist/ anywhere, from any working directory, through a symlink (npm's
 * node_modules/.bin), and with its code cache used, rejected (another node) or missing.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fleetMix } from './fleet-mix.js';
import { resourceList } from './golden.js';
import { bmh } from './hosts.js';

const repoRoot = join(import.meta.dirname, '..');
const dist = join(repoRoot, 'dist');
const FUNCTIONS = readdirSync(join(repoRoot, 'functions'))
  .filter((f) => existsSync(join(repoRoot, 'functions', f, 'main.ts')))
  .sort();

/** Needs the careful reader (anchor, alias, flow style: dist/lazy/yaml.cjs) and a packed validator (dist/lazy/validate). */
const INPUT = `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: settings, namespace: site-a}
  data: &shared {ntp: pool.ntp.org}
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: more-settings
    namespace: site-a
  data: *shared
- apiVersion: metal3.io/v1alpha1
  kind: BareMetalHost
  metadata:
    name: node-01
    namespace: site-a
  spec:
    online: true
    bootMACAddress: 52:54:00:00:01:01
    bmc:
      address: redfish-virtualmedia://10.0.0.11/redfish/v1/Systems/1
      credentialsName: node-01-bmc-secret
`;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(file: string, cwd: string, env: NodeJS.ProcessEnv = {}): Run {
  const r = spawnSync(file, [], { cwd, input: INPUT, encoding: 'utf8', env: { ...process.env, ...env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A run's code cache report lines (BAREMETAL_KRM_CODE_CACHE=report), and the run without them. */
function cacheReport(r: Run): { caches: string[]; run: Run } {
  const lines = r.stderr.split('\n');
  const isReport = (l: string): boolean => / code cache (?:used|rejected|missing)$/.test(l);
  return { caches: lines.filter(isReport), run: { ...r, stderr: lines.filter((l) => !isReport(l)).join('\n') } };
}

/** A copy of dist/ in a new temp dir, with bin/<fn> symlinks to its launchers (as npm links bins). */
function copyOfDist(): { root: string; bin: (fn: string) => string; launcher: (fn: string) => string } {
  const root = mkdtempSync(join(tmpdir(), 'bundle-layout-'));
  cpSync(dist, join(root, 'pkg', 'dist'), { recursive: true });
  mkdirSync(join(root, 'bin'));
  for (const fn of FUNCTIONS) symlinkSync(join('..', 'pkg', 'dist', `${fn}.cjs`), join(root, 'bin', fn));
  return { root, bin: (fn) => join(root, 'bin', fn), launcher: (fn) => join(root, 'pkg', 'dist', `${fn}.cjs`) };
}

describe('function bundles', () => {
  const here = run(join(dist, 'test-identity.cjs'), repoRoot);

  it('the identity bundle passes the input through (the baseline of the checks below)', () => {
    expect(here.status, here.stderr).toBe(0);
    expect(here.stdout).toBe(INPUT);
  });

  for (const fn of FUNCTIONS) {
    it(`${fn}: a copy of dist/ runs the same from another directory, directly and through a symlink`, () => {
      const expected = run(join(dist, `${fn}.cjs`), repoRoot);
      expect([0, 1]).toContain(expected.status);
      const copy = copyOfDist();
      const elsewhere = mkdtempSync(join(tmpdir(), 'bundle-cwd-'));
      expect(run(copy.launcher(fn), elsewhere)).toEqual(expected);
      expect(run(copy.bin(fn), elsewhere)).toEqual(expected);
      // the copy loads its own lazy modules: without them the same run looks for them there
      if (fn === 'intent-validate') {
        rmSync(join(copy.root, 'pkg', 'dist', 'lazy'), { recursive: true });
        const broken = run(copy.bin(fn), elsewhere);
        expect(broken.stderr).toBe(
          `${fn}: error: ${join(copy.root, 'pkg', 'dist', 'lazy', 'yaml.cjs')} is missing: install dist/ whole (each bundle needs the lib/ and lazy/ folders beside it)\n`,
        );
        expect(broken.status).toBe(2);
      }
    });

    it(`${fn}: uses its code cache, and runs the same when the cache is rejected or missing`, () => {
      const report = { BAREMETAL_KRM_CODE_CACHE: 'report' };
      const copy = copyOfDist();
      const withCache = cacheReport(run(copy.bin(fn), copy.root, report));
      expect(withCache.caches[0]).toBe(`${fn}: code cache used`);
      // intent-validate's built-in schemas are JSON (no code, no cache): the bundle's is the only one
      expect(withCache.caches).toHaveLength(1);
      const expected = run(join(dist, `${fn}.cjs`), repoRoot);
      expect(withCache.run).toEqual(expected);
      // what another node version's cache looks like to this one: data V8 cannot use
      writeFileSync(join(copy.root, 'pkg', 'dist', 'lib', `${fn}.cache`), Buffer.alloc(4096, 7));
      const rejected = cacheReport(run(copy.bin(fn), copy.root, report));
      expect(rejected.caches[0]).toBe(`${fn}: code cache rejected`);
      expect(rejected.run).toEqual(expected);
      rmSync(join(copy.root, 'pkg', 'dist', 'lib', `${fn}.cache`));
      for (const f of readdirSync(join(copy.root, 'pkg', 'dist', 'lazy', 'validate')))
        if (f.endsWith('.cache')) rmSync(join(copy.root, 'pkg', 'dist', 'lazy', 'validate', f));
      const missing = cacheReport(run(copy.bin(fn), copy.root, report));
      expect(new Set(missing.caches.map((c) => c.replace(/^.*: /, '')))).toEqual(new Set(['code cache missing']));
      expect(missing.run).toEqual(expected);
    });
  }

  it('a reader that goes away (`fn | head -c 10`) ends the bundle quietly, exit 1; stdin a folder is one line', () => {
    const big = `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n${'- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: x}\n  data: {k: v}\n'.repeat(200_000)}`;
    const r = spawnSync('sh', ['-c', `node ${join(dist, 'test-identity.cjs')} | head -c 10 >/dev/null; echo "exit $?" >&2`], {
      input: big,
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    expect(r.stderr).toBe('exit 0\n'); // head's status; the bundle wrote nothing to stderr
    const status = spawnSync('bash', ['-o', 'pipefail', '-c', `node ${join(dist, 'test-identity.cjs')} | head -c 10 >/dev/null`], {
      input: big,
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    expect(status.status).toBe(1);
    expect(status.stderr).toBe('');
    const dir = spawnSync('sh', ['-c', `node ${join(dist, 'test-identity.cjs')} < /`], { encoding: 'utf8' });
    expect(dir.stderr).toBe('test-identity: error: cannot read stdin (EISDIR): give the input on stdin as a file or a pipe [input]\n');
    expect(dir.status).toBe(1);
  });

  it('the CLI with a file of lazy/ missing says which, in one line, exit 2 (not a finding about the user file)', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'bundle-cli-')), 'settings.yaml');
    // an alias: read by the yaml package (lazy/yaml.cjs); a ConfigMap: checked against its packed schema
    writeFileSync(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: &v one, l: *v}\n');
    for (const missing of [undefined, join('validate', 'v21_v1_ConfigMap.json'), 'yaml.cjs']) {
      const copy = copyOfDist();
      if (missing) rmSync(join(copy.root, 'pkg', 'dist', 'lazy', missing));
      const r = spawnSync(process.execPath, [join(copy.root, 'pkg', 'dist', 'baremetal-krm.cjs'), 'validate', file], { encoding: 'utf8' });
      if (!missing) expect(r.status).toBe(0);
      else {
        const path = join(copy.root, 'pkg', 'dist', 'lazy', missing);
        expect(r.stderr).toBe(
          `baremetal-krm validate: ${path} is missing: install dist/ whole (each bundle needs the lib/ and lazy/ folders beside it)\n`,
        );
        expect(r.status).toBe(2);
      }
    }
  });

  it('the CLI uses its code cache (made by a validate run), and validates the same when it is rejected or missing', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'bundle-cli-')), 'hosts.yaml');
    writeFileSync(
      file,
      INPUT.slice(INPUT.indexOf('- apiVersion'))
        .replace(/^(- | {2})/gm, '')
        .replace(/^apiVersion/gm, '---\napiVersion'),
    );
    const copy = copyOfDist();
    const cli = join(copy.root, 'pkg', 'dist', 'baremetal-krm.cjs');
    const validate = (): { caches: string[]; run: Run } => {
      const r = spawnSync(process.execPath, [cli, 'validate', file], {
        encoding: 'utf8',
        env: { ...process.env, BAREMETAL_KRM_CODE_CACHE: 'report' },
      });
      return cacheReport({ status: r.status, stdout: r.stdout, stderr: r.stderr });
    };
    const used = validate();
    expect(used.caches[0]).toBe('baremetal-krm: code cache used');
    expect(used.run.status).toBe(1); // the BareMetalHost's credentials Secret is not in the file
    writeFileSync(join(copy.root, 'pkg', 'dist', 'lib', 'baremetal-krm.cache'), Buffer.alloc(4096, 7));
    const rejected = validate();
    expect(rejected.caches[0]).toBe('baremetal-krm: code cache rejected');
    expect(rejected.run).toEqual(used.run);
    rmSync(join(copy.root, 'pkg', 'dist', 'lib', 'baremetal-krm.cache'));
    const missing = validate();
    expect(missing.caches[0]).toBe('baremetal-krm: code cache missing');
    expect(missing.run).toEqual(used.run);
  });

  it('a start loads only the node modules its run uses: no child process, crypto or network code for a validate of plain objects', () => {
    // pre-commit and kustomize start these on every commit and build: node:child_process alone
    // (with net, stream, dgram) was ~10 ms of every `baremetal-krm validate`, crypto ~5 ms
    const dir = mkdtempSync(join(tmpdir(), 'bundle-modules-'));
    const preload = join(dir, 'modules.cjs');
    // written with writeSync: process.stderr itself would load net and stream
    writeFileSync(
      preload,
      "const before = new Set(process.moduleLoadList);\nprocess.on('exit', () => require('node:fs').writeSync(2, JSON.stringify(process.moduleLoadList.filter((m) => !before.has(m))) + '\\n'));\n",
    );
    const file = join(dir, 'objects.yaml');
    writeFileSync(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: v}\n');
    const heavy = /^NativeModule (child_process|crypto|net|dgram|stream|os|http|https|tls|zlib)$/;
    const runs: [string, string[], string | undefined][] = [
      ['baremetal-krm validate', [join(dist, 'baremetal-krm.cjs'), 'validate', '--quiet', file], undefined],
      ...(['intent-validate', 'bmh-from-redfish', 'site-from-catalogue', 'phase-plan-expand'] as const).map(
        (fn) => [fn, [join(dist, `${fn}.cjs`)], INPUT] as [string, string[], string],
      ),
    ];
    for (const [what, args, input] of runs) {
      const r = spawnSync(process.execPath, ['-r', preload, ...args], { input: input ?? '', encoding: 'utf8' });
      const loaded = JSON.parse(r.stderr.trim().split('\n').pop()!) as string[];
      expect(
        loaded.filter((m) => heavy.test(m)),
        what,
      ).toEqual([]);
    }
  });

  it('a start on ten objects compiles no function with TurboFan: in so short a run such a compile costs more than it saves', () => {
    // a helper run for every line of the input once reached V8's optimising compiler in a start on
    // ten hosts read twice (~300 page faults and ~9 ms); which functions reach it is decided by
    // how much bytecode they run, not by the clock: the same input gives the same list
    const inputs: Record<string, string> = {
      'ten BareMetalHosts without their Secrets (20 findings)': resourceList(Array.from({ length: 10 }, (_, i) => bmh(i))),
      'the ten-object fleet mix': resourceList(fleetMix(10)),
    };
    const dir = mkdtempSync(join(tmpdir(), 'bundle-tiering-'));
    const mixFile = join(dir, 'mix.yaml');
    writeFileSync(mixFile, fleetMix(10).join('---\n'));
    const env = { ...process.env, NODE_OPTIONS: '' };
    const optimised = (args: string[], input: string): string[] => {
      const r = spawnSync(process.execPath, ['--trace-opt', ...args], { input, env, encoding: 'utf8' });
      return [...r.stdout.matchAll(/^\[marking \S+ <JSFunction (\S*)/gm)].map((m) => m[1] || '(anonymous)');
    };
    for (const fn of [...FUNCTIONS, 'test-identity'])
      for (const [label, input] of Object.entries(inputs))
        expect(optimised([join(dist, `${fn}.cjs`)], input), `${fn} on ${label}`).toEqual([]);
    expect(optimised([join(dist, 'baremetal-krm.cjs'), 'validate', '--quiet', mixFile], ''), 'baremetal-krm validate').toEqual([]);
  });

  it('a launcher without its code says what is missing, without a stack trace', () => {
    const copy = copyOfDist();
    rmSync(join(copy.root, 'pkg', 'dist', 'lib'), { recursive: true });
    const r = run(copy.bin(FUNCTIONS[0]!), copy.root);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^${FUNCTIONS[0]}: .*lib/${FUNCTIONS[0]}\\.js: ENOENT: install dist/ whole`));
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
