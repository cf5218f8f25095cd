/**
 * The fuzzer's corpus: every YAML document of the shared fixtures (airshipctl manifests, CRDs,
 * schemas) and of the repository's examples that reads as a KRM object, deduplicated.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { PARSE_OPTIONS, splitStream } from '../../src/krm/index.js';
import { repoRoot } from '../golden.js';

function walk(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir).sort()) {
    if (e.startsWith('.') || e === 'node_modules') continue;
    const p = join(dir, e);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (/\.ya?ml$/.test(e)) out.push(p);
  }
  return out;
}

let cached: string[] | undefined;

/**
 * Documents (text, ending in a newline) that `yaml` reads as a mapping with apiVersion and
 * kind; without what a generator owns (HardwareInventory snapshots, items with a generated-by
 * annotation), which a no-change configuration would still regenerate.
 */
export function corpus(): string[] {
  if (cached) return cached;
  const files = [...walk(join(repoRoot, '../shared/fixtures')), ...walk(join(repoRoot, 'examples'))];
  const seen = new Set<string>();
  const docs: string[] = [];
  for (const f of files) {
    for (const d of splitStream(readFileSync(f, 'utf8'))) {
      const body = d.endsWith('\n') ? d : d + '\n';
      if (seen.has(body) || body.length > 200_000 || /baremetal-krm\.dev\/generated-by|^kind: HardwareInventory/m.test(body)) continue;
      seen.add(body);
      const parsed = parseAllDocuments(body, PARSE_OPTIONS);
      if (parsed.length !== 1 || parsed[0]!.errors.length) continue;
      const v = parsed[0]!.toJS() as Record<string, unknown> | null;
      if (v && typeof v === 'object' && !Array.isArray(v) && typeof v.apiVersion === 'string' && typeof v.kind === 'string')
        docs.push(body);
    }
  }
  cached = docs;
  return docs;
}
