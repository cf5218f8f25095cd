/** CRDs from files and folders named in spec.schemas.paths. */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Results } from '../krm/index.js';
import { InstallError, loadYaml } from '../krm/index.js';
import { splitStream } from '../krm/index.js';

export function readExtraCrds(paths: string[], results: Results): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const files: string[] = [];
  for (const p of paths) {
    if (!existsSync(p)) {
      results.error(`spec.schemas.paths: ${p} does not exist: fix the path (relative to where the function runs)`, {
        rule: 'config',
        field: 'spec.schemas.paths',
      });
      continue;
    }
    if (statSync(p).isDirectory()) {
      for (const f of readdirSync(p).sort()) if (/\.(ya?ml|json)$/.test(f)) files.push(join(p, f));
    } else files.push(p);
  }
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    const docs = f.endsWith('.json') ? [text] : splitStream(text);
    for (const d of docs) {
      try {
        const v = f.endsWith('.json') ? JSON.parse(d) : loadYaml(d);
        if (v && typeof v === 'object' && (v as Record<string, unknown>).kind === 'CustomResourceDefinition')
          out.push(v as Record<string, unknown>);
      } catch (e) {
        if (e instanceof InstallError) throw e; // a broken install, not this input's problem
        results.error(`spec.schemas.paths: ${f} is not valid YAML/JSON: ${(e as Error).message}`, {
          rule: 'config',
          field: 'spec.schemas.paths',
        });
      }
    }
  }
  return out;
}
