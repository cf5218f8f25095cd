/**
 * No secret leaves, in process: a canary in every input channel, every function, `validate`
 * and `report` in all four formats, every byte of stdout, stderr, results and written files
 * scanned for every canary (plain, base64, base64url, URL-encoded, hex). The kpt, bundle and
 * journey runs are in harness.e2e.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { canaryValue, findForms } from './canary.js';
import { CHANNELS } from './channels.js';
import { describeHits, runHarness, type Hit } from './harness.js';
import { FUNCTION_RUNS, PLAN_FORMATS, REPORT_FORMATS, RUNS, type Output, VALIDATE_FORMATS } from './runs.js';

describe('no secret leaves: every input channel x every output (canary harness, in process)', () => {
  let outputs: Output[] = [];
  let hits: Hit[] = [];
  let texts: string[] = [];

  beforeAll(async () => {
    ({ outputs, hits, texts } = await runHarness(CHANNELS, RUNS));
  });

  it('plants at least 15 channels, each canary where the runs read it (the scanner finds every one in the input)', () => {
    expect(CHANNELS.length).toBeGreaterThanOrEqual(15);
    expect(new Set(CHANNELS.map((c) => c.id)).size).toBe(CHANNELS.length);
    const input = texts.join('\n');
    const unseen = CHANNELS.filter((c) => findForms(input, canaryValue(c.id, c.kind)).length === 0);
    expect(unseen.map((c) => c.id)).toEqual([]);
  });

  it('runs every function, validate, report and plan in every format', () => {
    const names = new Set(outputs.map((o) => o.name.split(':')[0]));
    for (const f of FUNCTION_RUNS) expect(names).toContain(f.id);
    for (const f of VALIDATE_FORMATS) expect(names).toContain(`validate --format ${f}`);
    for (const f of REPORT_FORMATS) expect(names).toContain(`report --format ${f}`);
    for (const f of PLAN_FORMATS) expect(names).toContain(`plan --format ${f}`);
    // the runs did their work: discovery found the simulated BMCs, the report rendered every section
    expect(outputs.find((o) => o.name === 'bmh-from-redfish discover: stdout')?.text).toContain('kind: HardwareInventory');
    expect(outputs.find((o) => o.name === 'report --format json: --output file')?.text).toContain('"divergence"');
  });

  for (const channel of CHANNELS) {
    const title = `${channel.id} (${channel.what}): no output holds its canary`;
    if (channel.pending) it.skip(`${title} [pending: ${channel.pending}]`, () => {});
    else
      it(title, () => {
        expect(describeHits(hits.filter((h) => h.channel === channel.id))).toEqual([]);
      });
  }
});
