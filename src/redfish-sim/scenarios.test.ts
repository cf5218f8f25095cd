/** Every scenario is built from its bundled tree and served; the simulator's command line serves scenarios too. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/golden.js';
import { SCENARIOS, scenarioBmc, scenarioTree } from './scenarios.js';
import { loadTree, startBmc } from './server.js';
import { mockupsDir } from './mockups.js';

describe('simulator scenarios', () => {
  it.each(SCENARIOS.map((s) => [s.name, s]))('%s: an edited copy of its bundled tree, its base left as it was', async (name, s) => {
    const base = loadTree(join(mockupsDir(), s.base));
    const before = new Map(base);
    const tree = scenarioTree(name);
    expect(tree.get('/redfish/v1')).toBeDefined();
    // the edits are in the copy only
    expect(base).toEqual(before);
    if (s.edit) expect(tree).not.toEqual(base);
    else expect(s.bmc).toBeDefined();
    const b = await startBmc({ ...scenarioBmc(name), keepLog: true });
    try {
      const r = await fetch(`${b.url}/redfish/v1`);
      expect(r.status).toBe(200);
    } finally {
      await b.close();
    }
    expect(s.about).toMatch(/^\d+\. /);
  });

  it('redfish-sim --scenario serves it (the GPU baseboard: two Systems behind one service root)', async () => {
    const sim = spawn(process.execPath, [join(repoRoot, 'dist/redfish-sim.cjs'), '--scenario', 'gpu-baseboard', '--json'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const line = await new Promise<string>((resolve) => {
        let buf = '';
        sim.stdout.on('data', (d: Buffer) => {
          buf += d;
          if (buf.includes('\n')) resolve(buf.slice(0, buf.indexOf('\n')));
        });
      });
      const [bmc] = JSON.parse(line) as { url: string; tree: string }[];
      expect(bmc!.tree).toBe('gpu-baseboard');
      const auth = `Basic ${Buffer.from('admin:password').toString('base64')}`;
      const systems = (await (await fetch(`${bmc!.url}/redfish/v1/Systems`, { headers: { authorization: auth } })).json()) as {
        Members: unknown[];
      };
      expect(systems.Members).toHaveLength(2);
    } finally {
      sim.kill('SIGTERM');
    }
  });
});
