/**
 * `baremetal-krm report --format sarif|junit`: one finding per row that counts toward a
 * threshold, valid SARIF with repository-relative file locations, errors for the thresholds
 * --fail-on names, JUnit parsed back; stdout holds only the document.
 */
import { rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../golden.js';
import { NOW, runReport as run, writeVariants } from '../report/variants.js';
import { expectValidSarif, parseJUnit } from './ci-formats.js';

const root = relative(process.cwd(), join(repoRoot, '.e2e-out/report-formats'));
const CONFIG = join(repoRoot, 'test/report/report-config.yaml');
let sites: Record<string, string> = {};
beforeAll(() => {
  sites = writeVariants(join(root, 'sites'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const args = (): string[] => ['--now', NOW, '--config', CONFIG, sites['test-site']!, sites['site-b']!, sites['site-d']!];

describe('report in CI', () => {
  it('SARIF: valid, thresholds as rules, rows with file and line, errors for --fail-on', async () => {
    const r = await run(['--format', 'sarif', '--fail-on', 'expired-certs', ...args()]);
    expect(r.code).toBe(1);
    const doc = expectValidSarif(r.out);
    const run0 = doc.runs[0]!;
    expect(run0.tool.driver.rules.map((x) => x.id)).toEqual([
      'expired-certs',
      'expiring-certs',
      'unencrypted-secrets',
      'insecure-bmc',
      'unmatched-hosts',
      'over-capacity',
      'divergence',
    ]);
    const expired = run0.results.filter((x) => x.ruleId === 'expired-certs');
    expect(expired).toHaveLength(1);
    expect(expired[0]!.level).toBe('error');
    expect(expired[0]!.locations![0]!.physicalLocation).toEqual({
      artifactLocation: { uri: '.e2e-out/report-formats/sites/site-d/kubeconfig/old-admin.yaml', uriBaseId: '%SRCROOT%' },
      region: { startLine: 1 },
    });
    expect(run0.results.filter((x) => x.ruleId === 'unencrypted-secrets').every((x) => x.level === 'warning' || x.level === 'error')).toBe(
      true,
    );
    expect(run0.results.some((x) => x.ruleId === 'divergence')).toBe(true);
    expect(r.err).toContain('threshold broken: --fail-on expired-certs');
  });

  it('JUnit: parsed back, failures only for --fail-on thresholds', async () => {
    const r = await run(['--format', 'junit', '--fail-on', 'expired-certs', ...args()]);
    const j = parseJUnit(r.out);
    const failed = j.cases.filter((c) => c.failure);
    expect(failed.map((c) => [c.classname.replace(/^.*sites\//, ''), c.name])).toEqual([
      ['site-d/kubeconfig/old-admin.yaml', 'expired-certs'],
    ]);
    expect(failed[0]!.failure!.message).toContain('expired 245 day(s) ago');
  });
});
