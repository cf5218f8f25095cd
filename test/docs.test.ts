/**
 * The function READMEs follow one template (scripts/docs.ts): `# <function>`, then `## Overview`
 * (with the Try it blocks), `## Usage`, `## FunctionConfig` (the generated field table),
 * `## Examples` (the generated list of example packages), then the function's reference sections;
 * and their generated parts are up to date.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BEGIN,
  BEGIN_EXAMPLES,
  END,
  END_EXAMPLES,
  exampleCases,
  firstParagraph,
  functionNames,
  renderReadme,
  TEMPLATE_SECTIONS,
} from '../scripts/docs.js';
import { readmeCommands, shellCommands } from './examples/kptfile.js';
import { repoRoot } from './golden.js';

/** The README's `##` sections (outside fenced code), each with its text up to the next one. */
function sections(markdown: string): { title: string; text: string }[] {
  const out: { title: string; text: string }[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (!fenced && line.startsWith('## ')) out.push({ title: line.slice(3), text: '' });
    if (out.length > 0) out[out.length - 1]!.text += `${line}\n`;
  }
  return out;
}

const readme = (fn: string): string => readFileSync(join(repoRoot, 'functions', fn, 'README.md'), 'utf8');
const section = (fn: string, title: string): string => sections(readme(fn)).find((s) => s.title === title)?.text ?? '';
const between = (text: string, begin: string, end: string): string => text.slice(text.indexOf(begin), text.indexOf(end));

describe('function READMEs', () => {
  for (const fn of functionNames()) {
    it(`${fn}: ${TEMPLATE_SECTIONS.join(', ')}, in this order, then its reference sections`, () => {
      const text = readme(fn);
      expect(text.split('\n')[0]).toBe(`# ${fn}`);
      const titles = sections(text).map((s) => s.title);
      expect(titles.slice(0, TEMPLATE_SECTIONS.length)).toEqual([...TEMPLATE_SECTIONS]);
      expect(titles.slice(TEMPLATE_SECTIONS.length).filter((t) => (TEMPLATE_SECTIONS as readonly string[]).includes(t))).toEqual([]);
    });

    it(`${fn}: the Try it blocks are in the Overview, each generated part in its own section`, () => {
      expect(section(fn, 'Overview')).toContain('### Try it\n');
      expect(readme(fn).split('<!-- e2e').length).toBe(section(fn, 'Overview').split('<!-- e2e').length);
      expect(section(fn, 'Overview')).toContain('<!-- e2e -->\n```sh\n');
      for (const marker of [BEGIN, END]) expect(section(fn, 'FunctionConfig')).toContain(marker);
      for (const marker of [BEGIN_EXAMPLES, END_EXAMPLES]) expect(section(fn, 'Examples')).toContain(marker);
    });

    it(`${fn}: the generated parts are up to date (run npm run docs)`, () => {
      const r = renderReadme(fn);
      expect(r, `functions/${fn}/README.md needs the generated-fields and generated-examples markers`).toBeDefined();
      expect(r!.current).toBe(r!.wanted);
    });

    it(`${fn}: the Examples list has one entry per example package, each run as its own README says`, () => {
      const generated = between(section(fn, 'Examples'), BEGIN_EXAMPLES, END_EXAMPLES);
      const cases = exampleCases(fn);
      expect(cases.length).toBeGreaterThan(0);
      expect([...generated.matchAll(/^### \[([^\]]+)\]\(\.\.\/\.\.\/examples\/([^)]+)\/\)$/gm)].map((m) => [m[1], m[2]])).toEqual(
        cases.map((c) => [c, `${fn}/${c}`]),
      );
      // every command an entry shows is one its example's README shows (which the examples' e2e test checks)
      for (const [i, entry] of generated.split(/^### /m).slice(1).entries()) {
        const own = readmeCommands(join(repoRoot, 'examples', fn, cases[i]!, 'README.md'));
        const shown = shellCommands(entry);
        expect(shown.length, cases[i]).toBeGreaterThan(1);
        for (const cmd of shown) expect(own, `examples/${fn}/${cases[i]}/README.md`).toContain(cmd);
      }
    });
  }
});

describe("an example's first paragraph", () => {
  it('is the text after the title up to the first blank line', () => {
    expect(firstParagraph('# t\n\nOne\ntwo.\n\nThree.\n')).toBe('One\ntwo.');
  });

  it('takes the block a paragraph ending in a colon introduces, fenced code included', () => {
    const md = '# t\n\nIt fails with:\n\n```\nerror: x\n\ny\n```\n\nLater.\n';
    expect(firstParagraph(md)).toBe('It fails with:\n\n```\nerror: x\n\ny\n```');
  });
});
