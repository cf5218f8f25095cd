/**
 * Site variants derived from the committed rendered test-site (test/report/sites/test-site),
 * written into a folder by the tests and the benchmark:
 *   test-site  unchanged
 *   site-b     changed versions (ingress chart 3.5.1 -> 4.0.1, analytics image v2.1.3 -> v2.2.0,
 *              capm3 manager v0.5.0 -> v0.5.1), other addresses and MACs (meant to differ),
 *              node06 is now a Dell R750 (misses the worker profile), analytics x14 (over capacity)
 *   site-c     a missing phase (Phase workers-target and its Flux Kustomization removed; the plan
 *              still names it) and hosts renamed c-node0N, in the host catalogue too (matched by
 *              role, not by name)
 *   site-d     an expired certificate (an older kubeconfig) and an unencrypted BMC Secret
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { reportMain } from '../../src/report/cli.js';
import type { Report } from '../../src/report/model.js';
import { repoRoot } from '../golden.js';

export const SITES_DIR = join(import.meta.dirname, 'sites');
export const TEST_SITE = join(SITES_DIR, 'test-site');
/** the pinned evaluation time of the goldens: the test-site admin certificate has 106 days left */
export const NOW = '2021-06-01T00:00:00Z';
/** the plaintext BMC password the test-site catalogue and site-d's Secret hold: never in a report */
export const BMC_PASSWORD = 'r00tme';

function edit(file: string, from: string | RegExp, to: string): void {
  const t = readFileSync(file, 'utf8');
  const n = t.replace(from, to);
  if (n === t) throw new Error(`variant edit had no effect: ${file}: ${String(from)}`);
  writeFileSync(file, n);
}

function walk(dir: string, fn: (file: string) => void): void {
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) walk(p, fn);
    else if (p.endsWith('.yaml')) fn(p);
  }
}

export function writeVariants(root: string): Record<'test-site' | 'site-b' | 'site-c' | 'site-d', string> {
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  const copy = (name: string): string => {
    const d = join(root, name);
    cpSync(TEST_SITE, d, { recursive: true });
    // each site's Flux Kustomizations point at its own folder in the repository
    if (name !== 'test-site') edit(join(d, 'flux/kustomizations.yaml'), /manifests\/site\/test-site\//g, `manifests/site/${name}/`);
    return d;
  };
  const a = copy('test-site');

  const b = copy('site-b');
  edit(join(b, 'workload/helmrelease.yaml'), 'version: 3.5.1', 'version: 4.0.1');
  edit(join(b, 'workload/deployments.yaml'), 'analytics:v2.1.3', 'analytics:v2.2.0');
  edit(join(b, 'workload/deployments.yaml'), /replicas: 4\n/, 'replicas: 14\n');
  edit(
    join(b, 'catalogues/versions-airshipctl.yaml'),
    /(capm3:[^\n]*\n\s+manager:\n\s+repository: quay.io\/metal3-io\n\s+tag: )v0\.5\.0/,
    '$1v0.5.1',
  );
  walk(b, (f) => {
    const t = readFileSync(f, 'utf8');
    writeFileSync(f, t.replace(/10\.23\.2([45])\./g, '10.42.2$1.').replace(/52:54:00:/g, '52:54:01:'));
  });
  writeFileSync(
    join(b, 'hardware/node06.yaml'),
    readFileSync(join(b, 'hardware/node01.yaml'), 'utf8').replace('name: node01', 'name: node06'),
  );

  const c = copy('site-c');
  edit(
    join(c, 'phases/phases.yaml'),
    /---\napiVersion: airshipit.org\/v1alpha1\nkind: Phase\nmetadata:\n {2}name: workers-target\n[\s\S]*?(?=---\n)/,
    '',
  );
  edit(
    join(c, 'flux/kustomizations.yaml'),
    /---\napiVersion: kustomize.toolkit.fluxcd.io\/v1\nkind: Kustomization\nmetadata:\n {2}name: deploy-gating-workers-target\n[\s\S]*?(?=---\n|$)/,
    '',
  );
  for (const dir of ['hosts', 'hardware', 'catalogues'])
    walk(join(c, dir), (f) => {
      const t = readFileSync(f, 'utf8');
      writeFileSync(f, t.replace(/\bnode0(\d)/g, 'c-node0$1'));
    });

  const d = copy('site-d');
  cpSync(join(SITES_DIR, 'extra/kubeconfig-expired.yaml'), join(d, 'kubeconfig/old-admin.yaml'));
  mkdirSync(join(d, 'secrets'));
  writeFileSync(
    join(d, 'secrets/node01-bmc-secret.yaml'),
    `apiVersion: v1\nkind: Secret\nmetadata:\n  name: node01-bmc-secret\n  namespace: target-infra\ntype: Opaque\nstringData:\n  username: root\n  password: ${BMC_PASSWORD}\n`,
  );
  return { 'test-site': a, 'site-b': b, 'site-c': c, 'site-d': d };
}

/** Runs `baremetal-krm report` in process and collects what it prints. */
export async function runReport(args: string[]): Promise<{ out: string; err: string; code: number }> {
  let out = '';
  let err = '';
  const code = await reportMain(args, { out: (s) => void (out += s), err: (s) => void (err += s) });
  return { out, err, code };
}

/** Hand-written report inputs (test/report/cases/), as a path relative to the current folder. */
export const CASES_DIR = relative(process.cwd(), join(import.meta.dirname, 'cases'));

/** The two sites of test/report/cases/leak: values under every sensitive key, east and west. */
export const leakSites = (): string[] => [join(CASES_DIR, 'leak/east'), join(CASES_DIR, 'leak/west')];

/** A scratch folder .e2e-out/<name>, made before the calling file's tests and removed after. */
export function scratchDir(name: string): () => string {
  const dir = join(repoRoot, '.e2e-out', name);
  beforeAll(() => {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return () => dir;
}

/** The JSON report of `args`, evaluated at `now`. */
export async function reportJson(now: string, args: string[]): Promise<Report> {
  return JSON.parse((await runReport(['--format', 'json', '--now', now, ...args])).out) as Report;
}
