/**
 * Losslessness through the real kpt: every KRM file of the airship fixtures, rendered through a
 * pipeline of our four functions configured to change nothing, must come out byte-identical to
 * the same package rendered with `cat` as the function (kpt itself reformats some files, so
 * the reference is kpt + cat, not the input).
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleExists, copyKrmFiles, dist, listFiles, repoRoot, run, tempDir, writeKptfile } from './helpers.js';
import { RULES } from '../../src/validate/index.js';

/** Every rule of intent-validate, each set to info below: findings never fail the run. */
const INTENT_RULES = RULES.map((r) => r.id);

/** Each function with a functionConfig under which it changes nothing on these files. */
const NO_CHANGE: { fn: string; config: string }[] = [
  { fn: 'bmh-from-redfish', config: 'kind: BMHFromRedfish\nspec:\n  mode: generate\n' },
  { fn: 'site-from-catalogue', config: 'kind: SiteFromCatalogue\nspec:\n  hosts: []\n' },
  { fn: 'phase-plan-expand', config: 'kind: PhasePlanExpand\nspec:\n  plans: []\n' },
  // every rule runs, reporting at info: the fixtures hold deliberate faults (expired certificates, plaintext passwords)
  {
    fn: 'intent-validate',
    config: `kind: IntentValidate\nspec:\n  rules:\n${INTENT_RULES.map((r) => `    ${r}: {severity: info}\n`).join('')}`,
  },
];

describe('losslessness through kpt fn render', () => {
  it('renders the airship fixtures byte-identical to kpt + cat', () => {
    const dir = tempDir('lossless');
    const ref = join(dir, 'cat');
    const ours = join(dir, 'ours');
    const n = copyKrmFiles(join(repoRoot, '../shared/fixtures/airship'), ref);
    expect(n).toBeGreaterThan(100);
    cpSync(ref, ours, { recursive: true });
    writeKptfile(ref, 'lossless', '  - exec: /bin/cat\n');

    let mutators = '';
    const used: string[] = [];
    NO_CHANGE.forEach(({ fn, config }, i) => {
      const present = bundleExists(fn);
      const exec = present ? dist(fn) : dist('test-identity');
      used.push(present ? fn : `test-identity (for ${fn})`);
      const cfg = present
        ? `apiVersion: baremetal-krm.dev/v1alpha1\n${config}metadata:\n  name: no-change-${i}\n  annotations:\n    config.kubernetes.io/local-config: "true"\n    baremetal-krm.dev/report-only: "true"\n`
        : `apiVersion: baremetal-krm.dev/v1alpha1\nkind: Identity\nmetadata:\n  name: no-change-${i}\n  annotations:\n    config.kubernetes.io/local-config: "true"\n`;
      writeFileSync(join(ours, `fn-config-${i}.yaml`), cfg);
      writeFileSync(join(ref, `fn-config-${i}.yaml`), cfg);
      mutators += `  - exec: ${exec}\n    configPath: fn-config-${i}.yaml\n`;
    });
    writeKptfile(ours, 'lossless', mutators);
    console.log(`pipeline: ${used.join(' -> ')}`);

    for (const pkg of [ref, ours]) {
      const r = run('kpt', ['fn', 'render', pkg, '--allow-exec']);
      expect(r.status, r.stderr).toBe(0);
    }
    const files = listFiles(ref).filter((f) => f !== 'Kptfile');
    expect(listFiles(ours).filter((f) => f !== 'Kptfile')).toEqual(files);
    const differing = files.filter((f) => readFileSync(join(ref, f), 'utf8') !== readFileSync(join(ours, f), 'utf8'));
    expect(differing).toEqual([]);
  });
});
