/**
 * `npm run docs`: writes each function's functionConfig field table into its README, between
 * `<!-- BEGIN GENERATED FIELDS -->` and `<!-- END GENERATED FIELDS -->`, from the function's definition (its spec schema, the one --help prints),
 * so that the docs cannot drift from the schema (test/docs.test.ts checks it).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { definition as bmhFromRedfish } from '../functions/bmh-from-redfish/function.js';
import { definition as intentValidate } from '../functions/intent-validate/function.js';
import { definition as phasePlanExpand } from '../functions/phase-plan-expand/function.js';
import { definition as siteFromCatalogue } from '../functions/site-from-catalogue/function.js';
import { schemaMarkdown, type JsonSchema } from '../src/krm/index.js';

/** Each function's definition: the one source of its --help and its README's field table. */
const DEFINITIONS: Record<string, { specSchema: JsonSchema }> = {
  'bmh-from-redfish': bmhFromRedfish,
  'intent-validate': intentValidate,
  'phase-plan-expand': phasePlanExpand,
  'site-from-catalogue': siteFromCatalogue,
};

export const BEGIN = '<!-- BEGIN GENERATED FIELDS -->';
export const END = '<!-- END GENERATED FIELDS -->';
const root = join(import.meta.dirname, '..');

/** The README with its generated section brought up to date (or undefined without markers). */
export function renderReadme(fn: string): { path: string; current: string; wanted: string } | undefined {
  const path = join(root, 'functions', fn, 'README.md');
  const def = DEFINITIONS[fn];
  if (!existsSync(path) || !def) return undefined;
  const current = readFileSync(path, 'utf8');
  const b = current.indexOf(BEGIN);
  const e = current.indexOf(END);
  if (b < 0 || e < b) return undefined;
  const table = schemaMarkdown(def.specSchema);
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
