/**
 * The kpt function catalog's conventions, checked: every function folder has a metadata.yaml
 * (image, description, tags, sourceURL, examplePackageURLs, license) whose examples are exactly
 * the function's folders under examples/<function>/, and every image reference in the examples
 * is the function's image at this package's version.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { functionNames } from '../scripts/docs.js';
import { KPT_IMAGE } from './examples/kptfile.js';
import { repoRoot } from './golden.js';

const REPO = 'https://github.com/baremetal-krm/baremetal-krm';
const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { license: string };

function files(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) files(p, out);
    else out.push(p);
  }
  return out;
}

describe('kpt function catalog conventions', () => {
  it('covers the four functions', () => {
    expect(functionNames()).toEqual(['bmh-from-redfish', 'intent-validate', 'phase-plan-expand', 'site-from-catalogue']);
  });

  for (const fn of functionNames()) {
    it(`${fn}: metadata.yaml names its image, source, examples and licence`, () => {
      const meta = parse(readFileSync(join(repoRoot, 'functions', fn, 'metadata.yaml'), 'utf8')) as Record<string, unknown>;
      expect(Object.keys(meta).sort()).toEqual(['description', 'examplePackageURLs', 'image', 'license', 'sourceURL', 'tags']);
      expect(meta.image).toBe(KPT_IMAGE(fn).replace(/:v[0-9.]+$/, ''));
      expect(meta.sourceURL).toBe(`${REPO}/tree/main/functions/${fn}`);
      expect(meta.license).toBe(pkg.license);
      expect(typeof meta.description === 'string' && meta.description.length > 40).toBe(true);
      expect(Array.isArray(meta.tags) && meta.tags.length > 0).toBe(true);
      const cases = readdirSync(join(repoRoot, 'examples', fn)).sort();
      expect(meta.examplePackageURLs).toEqual(cases.map((c) => `${REPO}/tree/main/examples/${fn}/${c}`));
    });

    it(`${fn}: every image its examples name is ${KPT_IMAGE(fn)}`, () => {
      for (const f of files(join(repoRoot, 'examples', fn)).filter((p) => !p.includes('/.expected/'))) {
        for (const m of readFileSync(f, 'utf8').matchAll(/image: (\S*baremetal-krm\/[a-z-]+\S*)/g))
          expect(m[1], f).toBe(KPT_IMAGE(m[1]!.replace(/^.*baremetal-krm\/([a-z-]+).*$/, '$1')));
      }
      expect(existsSync(join(repoRoot, 'examples', fn))).toBe(true);
    });
  }
});
