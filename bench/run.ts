/**
 * `npm run bench`: runs every benchmark in bench/ (the runtime first) and prints its figures.
 * `npm run bench -- runtime` runs only the named ones.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const only = process.argv.slice(2);
const names = readdirSync(import.meta.dirname)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_'))
  .map((f) => f.slice(0, -3))
  .sort((a, b) => (a === 'runtime' ? -1 : b === 'runtime' ? 1 : a.localeCompare(b)))
  .filter((n) => only.length === 0 || only.includes(n));
for (const n of names) {
  console.log(`\n=== ${n} ===`);
  const mod = (await import(join(import.meta.dirname, `${n}.ts`))) as { run: () => Promise<void> };
  await mod.run();
}
