/**
 * `npm run docs`: writes each function's functionConfig field table into its README, between
 * `<!-- BEGIN GENERATED FIELDS -->` and `<!-- END GENERATED FIELDS -->`, from spec.schema.json,
 * so that the docs cannot drift from the schema (test/docs.test.ts checks it).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { schemaMarkdown, type JsonSchema } from '../src/krm/schema-doc.js';

export const BEGIN = '<!-- BEGIN GENERATED FIELDS -->';
export const END = '<!-- END GENERATED FIELDS -->';
const root = join(import.meta.dirname, '..');

/** The README with its generated section brought up to date (or undefined without markers). */
export function renderReadme(fn: string): { path: string; current: string; wanted: string } | undefined {
  const path = join(root, 'functions', fn, 'README.md');
  const schemaPath = join(root, 'functions', fn, 'spec.schema.json');
  if (!existsSync(path) || !existsSync(schemaPath)) return undefined;
  const current = readFileSync(path, 'utf8');
  const b = current.indexOf(BEGIN);
  const e = current.indexOf(END);
  if (b < 0 || e < b) return undefined;
  const table = schemaMarkdown(JSON.parse(readFileSync(schemaPath, 'utf8')) as JsonSchema);
  const wanted = current.slice(0, b + BEGIN.length) + '\n' + table + '\n' + current.slice(e);
  return { path, current, wanted };
}

export function functionNames(): string[] {
  return readdirSync(join(root, 'functions'))
    .filter((f) => existsSync(join(root, 'functions', f, 'main.ts')))
    .sort();
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  for (const fn of functionNames()) {
    const r = renderReadme(fn);
    if (!r) {
      console.log(`${fn}: no README markers`);
      continue;
    }
    if (r.current !== r.wanted) writeFileSync(r.path, r.wanted);
    console.log(`${fn}: ${r.current === r.wanted ? 'up to date' : 'updated'}`);
  }
}
