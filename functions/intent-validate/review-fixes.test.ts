/** Regression tests for the bugs a review found (each fails before its fix). */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readInput, type KubeObject } from '../../src/krm/index.js';
import { runValidate } from '../../src/cli/validate.js';
import { analyse, type IntentValidateSpec } from './analyse.js';

function items(yaml: string): KubeObject[] {
  return readInput(yaml).items;
}
async function findings(yaml: string, spec: IntentValidateSpec = {}): Promise<{ rule: string; severity: string; field?: string; message: string }[]> {
  const a = await analyse(items(yaml), spec);
  return a.findings.map((f) => ({ rule: f.rule, severity: f.severity, field: f.field, message: f.message }));
}
async function cli(argv: string[]): Promise<{ code: number; err: string }> {
  let err = '';
  const code = await runValidate(argv, { out: () => undefined, err: (s) => (err += s) });
  return { code, err };
}
const tmp = mkdtempSync(join(tmpdir(), 'iv-fix-'));

describe('spec.now', () => {
  it('the CLI exits non-zero on a spec.now that is not a time, naming the field', async () => {
    const cfg = join(tmp, 'now.yaml');
    writeFileSync(cfg, 'apiVersion: baremetal-krm.dev/v1alpha1\nkind: IntentValidate\nmetadata:\n  name: v\nspec:\n  now: yesterday\n');
    const f = join(tmp, 'cm.yaml');
    writeFileSync(f, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: b\n');
    const r = await cli(['--config', cfg, f]);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('spec.now "yesterday" is not a valid time: write an RFC 3339 time such as 2024-01-01T00:00:00Z');
    expect(r.err).toContain('[config]');
  });
});
