/** The reference catalogues under catalogues/ and the schema each document is checked against. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from '../golden.js';

export const cataloguesDir = join(repoRoot, 'catalogues');

export type Doc = Record<string, any>;

export interface CatalogueDoc {
  file: string;
  index: number;
  doc: Doc;
  schema: string;
}

/** Which catalogues/schemas/<name>.schema.json a document follows. */
export function schemaFor(doc: Doc): string | undefined {
  if (doc.kind === 'HardwareClassification') return 'hardware-classification';
  if (doc.kind === 'NetworkCatalogue') return 'network-catalogue';
  if (doc.kind === 'VersionsCatalogue') return 'versions-catalogue';
  if (doc.kind === 'VariableCatalogue' && typeof doc.metadata?.name === 'string' && doc.metadata.name.startsWith('hardwareprofile-'))
    return 'hardware-profile';
  if (doc.kind === 'VariableCatalogue' && doc.hosts?.m3 && !Array.isArray(doc.hosts.m3)) return 'host-catalogue';
  return undefined;
}

export function yamlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...yamlFiles(p));
    else if (/\.ya?ml$/.test(e)) out.push(p);
  }
  return out;
}

export function readDocs(file: string): Doc[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => {
      if (d.errors.length) throw new Error(`${file}: ${d.errors[0]?.message}`);
      return d.toJS() as Doc | null;
    })
    .filter((d): d is Doc => d !== null);
}

/** The first document of a file. */
export function readDoc(file: string): Doc {
  const d = readDocs(file)[0];
  if (!d) throw new Error(`${file}: no YAML document`);
  return d;
}

/** Every catalogue document (kustomization.yaml files excluded). */
export function catalogueDocs(): CatalogueDoc[] {
  const out: CatalogueDoc[] = [];
  for (const f of yamlFiles(cataloguesDir)) {
    if (/kustomization\.ya?ml$/.test(f)) continue;
    readDocs(f).forEach((doc, index) => out.push({ file: relative(repoRoot, f), index, doc, schema: schemaFor(doc) ?? '' }));
  }
  return out;
}
