/** What a discovery tells V8 about the process it is: a short one that mostly waits, with much of its young generation alive. */
import v8 from 'node:v8';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { repoRoot, resourceList } from '../../test/golden.js';
import { runFunction } from '../../src/krm/index.js';
import { definition } from './function.js';
import { simulatedBmcs } from './test-support.js';

const simulated = simulatedBmcs({ tree: join(repoRoot, '../shared/fixtures/redfish', 'dmtf-public-rackmount1') });

describe('V8 settings of a discovery', () => {
  afterEach(() => vi.restoreAllMocks());

  it('its young generation grows at once, and code is optimised only when really hot (up to 1,000 BMCs); generate leaves V8 alone', async () => {
    const set = vi.spyOn(v8, 'setFlagsFromString');
    const bmc = await simulated();
    const spec = { mode: 'discover', requestsPerBmc: 1, bmcs: [{ address: bmc.url, name: 'node-1' }] };
    const cfg = JSON.stringify({ apiVersion: 'baremetal-krm.dev/v1alpha1', kind: 'BMHFromRedfish', metadata: { name: 'd' }, spec });
    const r = await runFunction(definition, resourceList([], cfg), { BMC_USERNAME: 'admin', BMC_PASSWORD: 'password' });
    expect(r.exitCode).toBe(0);
    expect(set.mock.calls).toEqual([[`--semi-space-growth-factor=16 --interrupt-budget=${100 * 66 * 1024}`]]);
    set.mockClear();
    const generate = await runFunction(definition, resourceList([], cfg.replace('"discover"', '"generate"')));
    expect(generate.exitCode).toBe(0);
    expect(set).not.toHaveBeenCalled();
  });
});
