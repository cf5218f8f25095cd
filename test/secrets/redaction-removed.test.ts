/**
 * The harness can fail: with the redaction module replaced by one that hides nothing (every
 * function of src/secrets/redact.ts a pass-through, the key classification for the encryption
 * rule kept), the same canaries leak into results, validate's lines and the report.
 */
import { describe, expect, it, vi } from 'vitest';
import { CHANNELS } from './channels.js';
import { describeHits, runHarness } from './harness.js';
import { RUNS } from './runs.js';

vi.mock('../../src/secrets/redact.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/secrets/redact.js')>();
  class Redactor {
    add(): this {
      return this;
    }
    addCredentials(): this {
      return this;
    }
    addEnv(): this {
      return this;
    }
    addData(): this {
      return this;
    }
    scrubKnown(t: string): string {
      return t;
    }
    scrub(t: string): string {
      return t;
    }
    scrubResults<R>(r: R): R {
      return r;
    }
  }
  return {
    ...real,
    isSensitiveKey: () => false,
    isSensitivePath: () => false,
    describeValue: (v: unknown) => `${typeof v} ${JSON.stringify(v)}`,
    quoteValue: (_root: unknown, _path: unknown, v: unknown) => JSON.stringify(v),
    redactText: (s: string) => s,
    redactValueText: (s: string) => s,
    redactString: (s: string) => ({ redacted: false, text: s }),
    redactArgs: (l: unknown[]) => [...l],
    Redactor,
  };
});

describe('the canary harness without the redaction module', () => {
  it('finds the leaks the issue reproduced: quoted Secret values, report values, credentials in results', async () => {
    const runs = RUNS.filter((r) =>
      /^(intent-validate|baremetal-krm validate|baremetal-krm report --format (text|html)|bmh-from-redfish discover \()/.test(r.id),
    );
    const { hits } = await runHarness(CHANNELS, runs);
    const leaked = describeHits(hits);
    for (const expected of [
      'secret-stringdata-number -> intent-validate: results',
      'secret-stringdata-octal -> validate --format text: stderr',
      'generic-container-env -> report --format text: stdout',
      'deployment-env -> report --format html: stdout',
      'pwd-key -> report --format text: stdout',
      'deployment-args -> report --format text: stdout',
      'basic-auth-value -> report --format text: stdout',
      'configmap-properties -> report --format html: stdout',
    ])
      expect(leaked.some((h) => h.startsWith(expected))).toBe(true);
  });
});
