/**
 * How the report reads real Airship sites: the same object in two folders of a site is one
 * object (not "missing" in other sites); an airshipctl site root that builds only its metadata
 * is said, with the entry points to use; hosts only the host catalogue names are counted; `?`
 * in workloads is explained; the HTML verdict never shows green over expired certificates; a
 * certificate's days left reads like validate's message.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runValidate } from '../../src/cli/validate.js';
import type { Report } from '../../src/report/model.js';
import { repoRoot } from '../golden.js';
import { NOW, runReport as run, writeVariants } from './variants.js';

const root = relative(process.cwd(), join(repoRoot, '.e2e-out/report-site-reading'));
let sites: Record<string, string> = {};
beforeAll(() => {
  rmSync(root, { recursive: true, force: true });
  sites = writeVariants(join(root, 'sites'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const json = async (args: string[]): Promise<Report> => JSON.parse((await run(['--format', 'json', '--now', NOW, ...args])).out) as Report;

describe('report: reading sites as committed', () => {
  it('an object in two folders of one site is counted once and is not missing elsewhere', async () => {
    // compared with a plain copy: both hold the test-site's own name in their values
    const plain = join(root, 'plain');
    const twice = join(root, 'twice');
    cpSync(sites['test-site']!, plain, { recursive: true });
    cpSync(sites['test-site']!, twice, { recursive: true });
    // the same host and its Secret generated into an ephemeral and a target phase folder
    mkdirSync(join(twice, 'ephemeral'));
    cpSync(join(twice, 'hosts/node01.yaml'), join(twice, 'ephemeral/node01.yaml'));
    const r = await run(['--format', 'json', '--now', NOW, plain, twice]);
    const report = JSON.parse(r.out) as Report;
    expect(report.sites.map((s) => [s.objects, s.hosts])).toEqual([
      [report.sites[0]!.objects, 6],
      [report.sites[0]!.objects, 6],
    ]);
    expect(report.divergence).toEqual([]);
    expect(r.err).toContain(
      `${twice}/hosts/node01.yaml:1: info: BareMetalHost/target-infra/node01 is identical to the copy at ${twice}/ephemeral/node01.yaml:1: counted once [duplicate]`,
    );
  });

  it('copies that differ are both kept and said', async () => {
    const differ = join(root, 'differ');
    cpSync(sites['test-site']!, differ, { recursive: true });
    mkdirSync(join(differ, 'ephemeral'));
    writeFileSync(
      join(differ, 'ephemeral/node01.yaml'),
      readFileSync(join(differ, 'hosts/node01.yaml'), 'utf8').replace('online: false', 'online: true'),
    );
    const r = await run(['--format', 'json', '--now', NOW, differ]);
    expect(r.err).toContain(
      `${differ}/hosts/node01.yaml:1: info: BareMetalHost/target-infra/node01 differs from the copy at ${differ}/ephemeral/node01.yaml:1: both are kept; make them one [duplicate]`,
    );
  });

  it('an airshipctl site root (its kustomization lists only metadata.yaml) is said, with the entry points', async () => {
    const siteRoot = join(root, 'airship-root');
    mkdirSync(join(siteRoot, 'target/workload'), { recursive: true });
    writeFileSync(join(siteRoot, 'kustomization.yaml'), 'resources:\n  - metadata.yaml\n');
    writeFileSync(
      join(siteRoot, 'metadata.yaml'),
      'apiVersion: airshipit.org/v1alpha1\nkind: ManifestMetadata\nmetadata:\n  name: manifest-metadata\nspec:\n  phase:\n    path: manifests/site/test-site/phases\n',
    );
    writeFileSync(join(siteRoot, 'target/workload/kustomization.yaml'), 'resources: []\n');
    const r = await run(['--now', NOW, siteRoot]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(
      'is an airshipctl site root: its kustomization builds only ManifestMetadata (the phases are in manifests/site/test-site/phases)',
    );
    expect(r.err).toContain(`such as ${join(siteRoot, 'target/workload')}`);
  });

  it('hosts only the host catalogue names are counted and listed', async () => {
    const lone = join(root, 'catalogue-only');
    cpSync(sites['test-site']!, lone, { recursive: true });
    rmSync(join(lone, 'hosts/node02.yaml'));
    const r = await json([lone]);
    expect(r.sites[0]!.hosts).toBe(6);
    expect(r.sites[0]!.catalogueOnlyHosts).toBe(1);
    expect(r.hardware.hosts.filter((h) => h.kind === 'host catalogue').map((h) => [h.name, h.file])).toEqual([
      ['node02', 'catalogues/hosts.yaml'],
    ]);
    const text = (await run(['--now', NOW, '--max-rows', '0', lone])).out;
    expect(text).toContain('1 host(s) only in a host catalogue (no BareMetalHost or inventory yet)');
    expect(text).toMatch(/node02 .*\(host catalogue only\)/);
  });

  it('explains ? in workloads', async () => {
    const q = join(root, 'question');
    cpSync(sites['test-site']!, q, { recursive: true });
    writeFileSync(
      join(q, 'workload/bare.yaml'),
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: bare\nspec:\n  template:\n    spec:\n      containers:\n      - name: x\n',
    );
    const text = (await run(['--now', NOW, '--max-rows', '0', q])).out;
    expect(text).toContain('? = not set in the manifest');
  });
});

describe('report: HTML verdict and days left', () => {
  const html = async (extra: string[]): Promise<string> => (await run(['--format', 'html', '--now', NOW, ...extra])).out;

  it('no green banner while a certificate is expired; without thresholds it says so', async () => {
    const none = await html([sites['site-d']!]);
    expect(none).not.toContain('class="ok-banner"');
    expect(none).toContain('<div class="broken-banner">1 certificate(s) expired</div>');
    expect(none).toContain('no thresholds set (--fail-on): nothing gates this report');
    const other = await html(['--fail-on', 'divergence', sites['site-d']!]);
    expect(other).not.toContain('class="ok-banner"');
    expect(other).toContain('no --fail-on threshold broken (divergence)');
    const green = await html(['--fail-on', 'expired-certs', sites['test-site']!]);
    expect(green).toContain('<div class="ok-banner">no threshold broken (--fail-on expired-certs)</div>');
  });

  it('short words never wrap in narrow columns', async () => {
    const page = await html([sites['site-d']!]);
    expect(page).toContain('<td class="bad word">expired</td>');
    expect(page).toContain('td.word,td.num{white-space:nowrap}');
    expect(page).not.toContain('word-break:break-word');
  });

  it("days left is the negative of validate's days ago", async () => {
    const r = await json([sites['site-d']!]);
    const expired = r.certificates.find((c) => c.status === 'expired')!;
    let err = '';
    await runValidate([join(sites['site-d']!, 'kubeconfig/old-admin.yaml')], { out: () => undefined, err: (s) => void (err += s) });
    // validate evaluates at the real now: compare the convention, not the number
    const ago = Number(/expired on \S+ \((\d+) days ago\)/.exec(err)?.[1]);
    const then = Math.trunc((Date.now() - Date.parse(expired.notAfter)) / 86_400_000);
    expect(ago).toBe(then);
    expect(expired.daysLeft).toBe(-Math.trunc((Date.parse(NOW) - Date.parse(expired.notAfter)) / 86_400_000));
  });
});
