/** What this function's tests share: simulated BMCs that are closed after each test. */
import { afterEach } from 'vitest';
import { startBmc, type BmcOptions, type SimBmc } from '../../src/redfish-sim/server.js';

/**
 * A starter of simulated BMCs with these defaults (each call's options override them); every
 * BMC it started is closed after each test of the file that calls this at its top level.
 */
export function simulatedBmcs(defaults: Partial<BmcOptions> = {}): (opts?: Partial<BmcOptions>) => Promise<SimBmc> {
  let open: SimBmc[] = [];
  afterEach(async () => {
    await Promise.all(open.map((b) => b.close()));
    open = [];
  });
  return async (opts = {}) => {
    const b = await startBmc({ ...defaults, ...opts } as BmcOptions);
    open.push(b);
    return b;
  };
}
