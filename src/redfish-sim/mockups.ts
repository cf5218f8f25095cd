/** Where the bundled mockup trees live, from the TypeScript sources or from dist/redfish-sim.cjs. */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function mockupsDir(): string {
  const here = typeof __dirname !== 'undefined' ? __dirname : dirname(fileURLToPath(import.meta.url));
  for (const c of [join(here, 'mockups'), join(here, '../redfish-sim/mockups'), join(here, '../src/redfish-sim/mockups')])
    if (existsSync(c)) return c;
  throw new Error(`redfish-sim: mockup trees not found near ${here}`);
}

/** Names of the bundled trees. */
export function bundledTrees(): string[] {
  const d = mockupsDir();
  return readdirSync(d)
    .filter((e) => existsSync(join(d, e, 'redfish/v1/index.json')))
    .sort();
}
