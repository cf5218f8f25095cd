/**
 * Properties of the plan over generated trees: how documents are spread over files never
 * matters (identity is group, kind, namespace, name); the plan of head against base mirrors the
 * plan of base against head (added <-> removed, the same objects changed). Speed is in
 * `npm run bench -- plan`.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { buildPlan } from '../../src/plan/build.js';
import { loadPath } from '../../src/plan/load.js';
import { repoRoot } from '../golden.js';
import { SITE } from './cases.js';

const root = relative(process.cwd(), join(repoRoot, '.e2e-out/plan-properties'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function docsOf(dir: string): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d).sort()) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else for (const t of readFileSync(p, 'utf8').split(/^---\n/m)) if (t.trim()) out.push({ file: relative(dir, p), text: t });
    }
  };
  walk(dir);
  return out;
}

const DOCS = docsOf(SITE);

/** Writes the documents into files chosen by `where` (a file index per document, a folder depth). */
function layout(name: string, where: number[], keep: boolean[], edits: boolean[]): string {
  const dir = join(root, name);
  rmSync(dir, { recursive: true, force: true });
  const files = new Map<string, string[]>();
  DOCS.forEach((d, i) => {
    if (!keep[i]) return;
    // Flux Kustomizations stay where they are (their paths locate the other files)
    const file = d.file.startsWith('flux/') ? d.file : join(d.file.split('/').slice(0, 2).join('/'), `part-${where[i]}.yaml`);
    const text = edits[i] ? d.text.replace(/^( {2}name: \S+)$/m, '$1\n  labels:\n    edited: "yes"') : d.text;
    files.set(file, [...(files.get(file) ?? []), text]);
  });
  for (const [f, docs] of files) {
    mkdirSync(join(dir, f, '..'), { recursive: true });
    writeFileSync(join(dir, f), docs.join('---\n'));
  }
  return dir;
}

const plan = (a: string, b: string) =>
  buildPlan([{ name: b, baseLabel: a, headLabel: b, base: loadPath(a).tree, head: loadPath(b).tree }], []);

describe('plan properties', () => {
  it('spreading the same documents over other files plans nothing', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 4 }), { minLength: DOCS.length, maxLength: DOCS.length }), (where) => {
        const all = DOCS.map(() => true);
        const none = DOCS.map(() => false);
        const p = plan(SITE, layout('spread', where, all, none));
        expect(p.changes).toEqual([]);
      }),
      { numRuns: 15 },
    );
  });

  it('head against base mirrors base against head', () => {
    const bools = fc.array(fc.boolean(), { minLength: DOCS.length, maxLength: DOCS.length });
    fc.assert(
      fc.property(bools, bools, (keep, edits) => {
        const a = layout(
          'a',
          DOCS.map(() => 0),
          DOCS.map(() => true),
          DOCS.map(() => false),
        );
        const b = layout(
          'b',
          DOCS.map(() => 1),
          keep,
          edits,
        );
        const forward = plan(a, b);
        const back = plan(b, a);
        const ids = (p: typeof forward, action: string): string[] =>
          p.changes
            .filter((c) => c.action === action)
            .map((c) => `${c.resource.kind}/${c.resource.namespace}/${c.resource.name}`)
            .sort();
        expect(ids(forward, 'removed')).toEqual(ids(back, 'added'));
        expect(ids(forward, 'added')).toEqual(ids(back, 'removed'));
        expect(ids(forward, 'changed')).toEqual(ids(back, 'changed'));
        expect(forward.unchanged).toBe(back.unchanged);
      }),
      { numRuns: 15 },
    );
  });
});
