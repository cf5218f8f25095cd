/**
 * `baremetal-krm validate` in CI: every finding line in the problem-matcher form
 * (`file:line: severity: message [rule]`), SARIF valid against the published schema with rule
 * metadata, repository-relative locations and fingerprints that survive moved lines, JUnit that
 * a real XML parser reads (a test case per file x rule), and nothing but the document on stdout.
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runValidate } from '../../src/cli/validate.js';
import { RULES } from '../../src/validate/index.js';
import { repoRoot } from '../golden.js';
import { expectValidSarif, parseJUnit } from './ci-formats.js';

const testdata = relative(process.cwd(), join(repoRoot, 'functions/intent-validate/testdata'));
const FILES = ['bmh-faults', 'certificates', 'encryption-scope', 'clean'].map((c) => join(testdata, c, 'input.yaml'));
const tmp = relative(process.cwd(), join(repoRoot, '.e2e-out/validate-formats'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function validate(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runValidate(['--config', join(testdata, 'certificates/fn-config.yaml'), ...argv], {
    out: (s) => void (out += s),
    err: (s) => void (err += s),
  });
  return { code, out, err };
}

describe('validate in CI', () => {
  it('prints every finding as file:line: severity: message [rule], then the summary', async () => {
    const r = await validate(FILES);
    expect(r.code).toBe(1);
    const lines = r.err.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/^\d+ error\(s\), \d+ warning\(s\), \d+ info in \d+ object\(s\) from 4 file\(s\)$/);
    for (const l of lines.slice(0, -1)) expect(l).toMatch(/^[^\s:]+:\d+: (error|warning|info): .+ \[[a-z0-9-]+\]$/);
    expect(r.out).toBe('');
  });

  it('an unreadable document is an input finding in the same form', async () => {
    cpSync(FILES[3]!, join(tmp, 'ok.yaml'));
    writeFileSync(join(tmp, 'broken.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata: [1, 2\n');
    const r = await validate([tmp]);
    expect(r.err).toMatch(new RegExp(`^${join(tmp, 'broken.yaml').replace(/[.]/g, '\\.')}:1: error: .*not valid YAML.* \\[input\\]$`, 'm'));
  });

  it('SARIF: valid, every rule described, repository-relative locations, fingerprints that survive moved lines', async () => {
    const r = await validate(['--format', 'sarif', ...FILES]);
    expect(r.code).toBe(1);
    const doc = expectValidSarif(r.out);
    const run = doc.runs[0]!;
    const ids = run.tool.driver.rules.map((x) => x.id);
    for (const rule of RULES) expect(ids).toContain(rule.id);
    for (const rule of run.tool.driver.rules) {
      expect(rule.shortDescription.text.length).toBeGreaterThan(3);
      expect(rule.help.text.length).toBeGreaterThan(10);
      expect(['error', 'warning', 'note']).toContain(rule.defaultConfiguration.level);
    }
    expect(run.results.length).toBeGreaterThan(5);
    for (const res of run.results) {
      const loc = res.locations![0]!.physicalLocation!;
      expect(loc.artifactLocation.uri).toMatch(/^functions\/intent-validate\/testdata\/[a-z-]+\/input\.yaml$/);
      expect(loc.region!.startLine).toBeGreaterThan(0);
    }
    expect(r.err).toMatch(/^\d+ error\(s\)/); // the summary stays on stderr

    // the same files with two lines added on top: lines move, fingerprints do not
    const moved = join(tmp, 'moved');
    const copies = FILES.map((f) => join(moved, relative(testdata, f)));
    FILES.forEach((f, i) => cpSync(f, copies[i]!));
    const first = expectValidSarif((await validate(['--format', 'sarif', ...copies])).out).runs[0]!.results;
    FILES.forEach((f, i) => writeFileSync(copies[i]!, `# moved\n# down\n${readFileSync(f, 'utf8')}`));
    const again = expectValidSarif((await validate(['--format', 'sarif', ...copies])).out).runs[0]!.results;
    const prints = (rs: typeof first): string[] => rs.map((x) => Object.values(x.partialFingerprints)[0]!).sort();
    const lines = (rs: typeof first): number[] => rs.map((x) => x.locations![0]!.physicalLocation!.region!.startLine);
    expect(prints(again)).toEqual(prints(first));
    expect(lines(again)).not.toEqual(lines(first));
  });

  it('JUnit: one document, a test case per file x rule, failures with their messages', async () => {
    const r = await validate(['--format', 'junit', ...FILES]);
    const j = parseJUnit(r.out);
    const files = new Set(j.cases.map((c) => c.classname));
    expect(files.size).toBe(4);
    expect(j.cases.length).toBe(4 * (RULES.length + 1));
    expect(j.tests).toBe(j.cases.length);
    const failed = j.cases.filter((c) => c.failure);
    expect(failed.length).toBe(j.failures);
    expect(failed.length).toBeGreaterThan(2);
    for (const c of failed) expect(c.failure!.text).toContain(`[${c.name}]`);
    expect(j.cases.filter((c) => c.classname.endsWith('clean/input.yaml') && c.failure)).toEqual([]);
  });
});
